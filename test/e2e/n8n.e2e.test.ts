import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpsJsonServer, type HttpsJsonServer } from './fixtures/https-json-server';
import { writeTinyCommunityPackage, tinyNodeType } from './fixtures/tiny-community-package';
import { codeWorkflow, communityNodeWorkflow, webhookFetchWorkflow, webhookWorkflow } from './fixtures/workflows';
import { httpsRequest } from './https-request';
import { nodeItems, packPackage, startN8n, type N8n } from './n8n';

describe('a real n8n started by the project', () => {
	let n8n: N8n | undefined;
	let outside: HttpsJsonServer | undefined;
	let work: string;
	const running = () => {
		if (!n8n) throw new Error('n8n did not start');
		return n8n;
	};

	beforeAll(async () => {
		work = await mkdtemp(join(tmpdir(), 'n8n-e2e-test-'));
		const packageDir = await writeTinyCommunityPackage(join(work, 'tiny-package'));
		const tarball = await packPackage(packageDir, join(work, 'tarballs'));
		outside = await startHttpsJsonServer(join(work, 'outside-tls'));
		n8n = await startN8n({ communityPackages: [tarball], trustedCas: [outside.ca] });
	}, 240_000);

	afterAll(async () => {
		await n8n?.stop();
		await outside?.close();
		await rm(work, { recursive: true, force: true });
	}, 60_000);

	test('serves HTTPS with a certificate that only its own CA verifies', async () => {
		const { url, ca } = running();
		const readiness = await httpsRequest(`${url}/healthz/readiness`, { ca });
		expect(readiness.status).toBe(200);
		expect(readiness.json()).toEqual({ status: 'ok' });
		// An empty CA list trusts nothing: the certificate check is really made.
		await expect(httpsRequest(`${url}/healthz`, { ca: [] })).rejects.toThrow(/certificate/i);
	});

	test('runs a manual workflow of stock nodes with `n8n execute`', async () => {
		const id = await running().importWorkflow(codeWorkflow('e2eCode000000001'));
		const run = await running().executeWorkflow(id);
		expect(run.data.resultData.error).toBeUndefined();
		expect(nodeItems(run, 'Code')).toEqual([{ greeting: 'hello', sum: 5 }]);
	}, 60_000);

	test('returns the run data of a failed `n8n execute` with its error', async () => {
		const workflow = codeWorkflow('e2eFail000000001');
		workflow.nodes[1].parameters = { jsCode: "throw new Error('failing on purpose');" };
		const run = await running().executeWorkflow(await running().importWorkflow(workflow));
		expect(run.status).toBe('error');
		expect(run.data.resultData.error?.message).toContain('failing on purpose');
	}, 60_000);

	test('runs a published webhook workflow on an HTTPS POST and records the execution', async () => {
		const { api } = running();
		const id = await running().importWorkflow(
			webhookWorkflow('e2eHook000000001', 'e2e-ping', '6f1c3a52-4b1e-4c8e-9a57-0f5d6f3e2a01'),
		);
		await api.activateWorkflow(id);
		await api.waitForWebhook('e2e-ping');

		const response = await api.callWebhook('e2e-ping', { body: { ping: 'pong' } });
		expect(response.status).toBe(200);
		expect(response.json()).toEqual({ message: 'Workflow was started' });

		const [execution] = await api.waitForExecutions(id, 1);
		expect(execution).toMatchObject({ workflowId: id, mode: 'webhook', status: 'success' });
		const setItems = execution.data?.resultData.runData.Set[0].data?.main?.[0]?.map((item) => item.json);
		expect(setItems).toEqual([{ echo: 'pong' }]);
	}, 90_000);

	test('loads a community package installed from its npm pack tarball', async () => {
		expect(await running().hasNodeType(tinyNodeType)).toBe(true);
		expect(await running().hasNodeType('n8n-nodes-e2e-tiny.notThere')).toBe(false);

		const id = await running().importWorkflow(communityNodeWorkflow('e2eTiny000000001', tinyNodeType));
		const run = await running().executeWorkflow(id);
		expect(nodeItems(run, 'Community')).toEqual([{ echoedBy: 'tinyEcho', word: 'loaded' }]);
	}, 60_000);

	test('trusts the CAs it is given for its own outgoing HTTPS calls', async () => {
		const { api } = running();
		const target = `${outside?.url}/from-n8n`;
		const id = await running().importWorkflow(
			webhookFetchWorkflow('e2eFetch00000001', 'e2e-fetch', '0b7d2c1e-5a3f-4e6b-8c9d-1a2b3c4d5e6f', target),
		);
		await api.activateWorkflow(id);

		// The webhook answers with what the HTTP Request node fetched from the server of another CA.
		const response = await api.callWebhook('e2e-fetch', { body: {} });
		expect(response.status).toBe(200);
		expect(response.json()).toEqual({ ok: true, path: '/from-n8n' });
		expect(outside?.requests).toEqual(['/from-n8n']);
	}, 60_000);

	test('restarts on the same user folder, URL and API key, with its published webhook still served', async () => {
		const n8nBefore = { url: running().url, apiKey: running().apiKey };
		await running().restart();
		expect({ url: running().url, apiKey: running().apiKey }).toEqual(n8nBefore);

		const response = await running().api.callWebhook('e2e-ping', { body: { ping: 'again' } });
		expect(response.status).toBe(200);
		const executions = await running().api.waitForExecutions('e2eHook000000001', 2);
		expect(executions.map((execution) => execution.status)).toEqual(['success', 'success']);
	}, 180_000);
});
