import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { startSandbox, type Delivery, type Sandbox } from '../sandbox';
import { binaryOf, downloadBinary } from './examples/binary-file';
import { suppliersCsvPath } from './examples/catalog';
import { countByAlert, executionItems } from './examples/executions';
import { chatPath, credentialId, crmPath, endpointDeletes, exampleIds } from './examples/stack';
import { useExampleStack } from './examples/useExampleStack';
import { settingsToldIn, testSavedCredential } from './credential-test';
import { readXlsx } from './examples/xlsx';
import { nodeItems } from './n8n';

/**
 * The compatibility smoke test: both nodes in whichever n8n and Node N8N_E2E_VERSION / N8N_E2E_NODE
 * choose (`npm run test:matrix` runs it on each of the matrix's), with the package installed from its
 * `npm pack` tarball. One pass over what the package needs from n8n: a paged export as items and as
 * a streamed file, Invitation > Import, Record > Get, trigger activation, a verified delivery, a
 * refused forgery, a redelivery, the credential test in code and deactivation. The example suites go deeper on the default n8n.
 */
const ledgerTrigger = 'Service Trigger: register changes';
const shareTrigger = 'Service Trigger: share ended';
const csvFileWorkflowId = 'svcMatrixCsvFile';

const statuses = (deliveries: Delivery[]) => deliveries.flatMap((delivery) => delivery.attempts.map((attempt) => attempt.status));

/** Portfolio > Get Many, Return All, output one CSV file: the export streamed into binary data. */
function csvFileWorkflow(): Record<string, unknown> {
	return {
		id: csvFileWorkflowId,
		name: 'Matrix: portfolio as one CSV file',
		nodes: [
			{ parameters: {}, id: 'a1b2c3d4-0000-4000-8000-000000000001', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] },
			{
				parameters: { resource: 'portfolio', operation: 'getAll', format: 'csv', output: 'file', binaryPropertyName: 'data', returnAll: true, options: {} },
				id: 'a1b2c3d4-0000-4000-8000-000000000002',
				name: 'Portfolio file',
				type: 'n8n-nodes-service-reader.serviceReader',
				typeVersion: 1,
				position: [240, 0],
				credentials: { serviceApi: { id: credentialId, name: 'Service API' } },
			},
		],
		connections: { Start: { main: [[{ node: 'Portfolio file', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

describe(`compatibility smoke test (n8n ${process.env.N8N_E2E_VERSION ?? 'pinned'}, Node ${process.env.N8N_E2E_NODE ?? '24'})`, () => {
	// 4 rows a page: the demo portfolio's 10 companies come in 3 pages. Starting the stack imports
	// the examples and activates the two trigger examples (registered with the Service and n8n).
	const running = useExampleStack('e2e-matrix', { sandbox: { pageSize: 4 } }, { start: 420_000, stop: 60_000 });
	const ledgerExecutions = () => running().n8n.api.executions(exampleIds.ledgerAlert);
	const chatTexts = () => running().sink.received(chatPath).map((request) => String(JSON.parse(request.body).text));
	const portfolioPages = () => running().sandbox.control.accessLog().filter((entry) => entry.export === 'portfolio');

	/** Emits a ledger_high and waits for its execution and chat message: what was sent before is settled then. */
	async function barrier(): Promise<void> {
		const { sandbox, n8n, sink } = running();
		const executionsBefore = (await ledgerExecutions()).length;
		const messagesBefore = sink.received(chatPath).length;
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1001' });
		await sandbox.control.whenSettled(alert.alertId);
		await n8n.api.waitForExecutions(exampleIds.ledgerAlert, executionsBefore + 1);
		await sink.waitForRequests(chatPath, messagesBefore + 1);
	}

	beforeAll(async () => {
		await running().n8n.importWorkflow(csvFileWorkflow());
	}, 60_000);

	test('n8n loads both nodes from the tarball; activation registered each trigger\'s https webhook URL', async () => {
		const { n8n, sandbox, webhookUrls } = running();
		console.log(`matrix: n8n ${n8n.version} on ${n8n.url}`);
		expect(await n8n.hasNodeType('n8n-nodes-service-reader.serviceReader')).toBe(true);
		expect(await n8n.hasNodeType('n8n-nodes-service-reader.serviceTrigger', 2)).toBe(true);
		expect(sandbox.control.webhookEndpoints().map((endpoint) => endpoint.url).sort()).toEqual(
			[webhookUrls.ledgerAlert, webhookUrls.shareRevoked].sort(),
		);
		const registrations = sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' });
		expect(registrations.map((request) => request.status)).toEqual([201, 201]);
	}, 60_000);

	test('Portfolio > Get Many, Return All: every page as items, through Convert to File into .xlsx', async () => {
		const { n8n, sandbox } = running();
		const shared = sandbox.control.shares().filter((share) => share.state === 'shared');
		const pagesBefore = portfolioPages().length;

		const run = await n8n.executeWorkflow(exampleIds.portfolio);
		expect(run.data.resultData.error).toBeUndefined();
		const items = nodeItems(run, 'Portfolio: every page');
		expect(items.map((item) => item.ke).sort()).toEqual(shared.map((share) => share.ke).sort());
		expect(portfolioPages().slice(pagesBefore).map((entry) => entry.page)).toEqual([1, 2, 3]);

		const { rows } = await readXlsx(await downloadBinary(n8n, binaryOf(run, 'Spreadsheet (.xlsx)')));
		expect(rows).toEqual(items);
	}, 120_000);

	test('Portfolio > Get Many, Return All, Output File: every page streamed into one CSV file', async () => {
		const { n8n, sandbox } = running();
		const shared = sandbox.control.shares().filter((share) => share.state === 'shared');
		const pagesBefore = portfolioPages().length;

		const run = await n8n.executeWorkflow(csvFileWorkflowId);
		expect(run.data.resultData.error).toBeUndefined();
		const file = binaryOf(run, 'Portfolio file');
		expect(file.mimeType).toBe('text/csv');
		expect(nodeItems(run, 'Portfolio file')).toEqual([
			expect.objectContaining({ export: 'portfolio', fileName: 'portfolio.csv', pages: 3, rows: shared.length }),
		]);
		const csv = (await downloadBinary(n8n, file)).toString('utf8');
		const rows = parse(csv, { columns: true }) as Array<Record<string, string>>;
		expect(rows.map((row) => row.ke).sort()).toEqual(shared.map((share) => share.ke).sort());
		// The header once, however many pages.
		expect(csv.split('\n').filter((line) => line.startsWith('ke,'))).toHaveLength(1);
		expect(portfolioPages().slice(pagesBefore).map((entry) => entry.page)).toEqual([1, 2, 3]);
	}, 120_000);

	test('Invitation > Import: accepted rows invited, refused rows on their own branch with the reason', async () => {
		const { n8n, sandbox } = running();
		const csvRows = parse(readFileSync(suppliersCsvPath, 'utf8'), { columns: true }) as Array<Record<string, string>>;
		const invitationsBefore = sandbox.control.invitations().length;

		const run = await n8n.executeWorkflow(exampleIds.invitations);
		expect(run.data.resultData.error).toBeUndefined();
		const invited = nodeItems(run, 'Invited');
		const refused = nodeItems(run, 'Refused: fix and send again');
		expect([...invited, ...refused].map((item) => item.row).sort()).toEqual(csvRows.map((_, i) => i + 1));
		expect(invited.map((item) => item.company_name)).toEqual(['Blue Harbour Foods Ltd', 'Kestrel Metals GmbH']);
		expect(sandbox.control.invitations().slice(invitationsBefore).map((invitation) => invitation.id)).toEqual(
			invited.map((item) => item.invitation_id),
		);
		expect(refused.find((item) => item.company_name === 'Quick Parts')?.reason).toEqual(expect.stringContaining('free-mail'));
	}, 120_000);

	test('a verified delivery starts one execution; a forged one gets 401 and starts none', async () => {
		const { sandbox, n8n } = running();
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1010' });
		expect(statuses(await sandbox.control.whenSettled(alert.alertId))).toEqual([200, 200]);
		const forged = sandbox.control.sendTampered('ledger_high', { organisation: 'KE-1002' }, { mode: 'signature' });
		expect(statuses(await sandbox.control.whenSettled(forged.alertId))).toEqual([401, 401]);
		await barrier();

		const executions = await ledgerExecutions();
		const counts = countByAlert(executions, ledgerTrigger);
		expect(counts[alert.alertId]).toBe(1);
		expect(counts[forged.alertId]).toBeUndefined();
		expect(executions.map((execution) => execution.status)).toEqual(executions.map(() => 'success'));
		expect(chatTexts().filter((text) => text.includes(alert.alertId))).toHaveLength(1);
		expect(chatTexts().some((text) => text.includes(forged.alertId))).toBe(false);
		expect(n8n.logs()).toContain('Service Trigger refused a webhook delivery (401)');
	}, 120_000);

	test('share_revoked: Record > Get outputs the ended share and the CRM copy is marked', async () => {
		const { sandbox, n8n, sink } = running();
		const alert = sandbox.control.revokeShare('KE-1004');
		expect(statuses(await sandbox.control.whenSettled(alert.alertId))).toEqual([200, 200]);

		const [patch] = await sink.waitForRequests(crmPath, 1);
		expect({ path: patch.path, body: JSON.parse(patch.body) }).toEqual({ path: '/crm/companies/KE-1004', body: { share: 'ended' } });
		const runs = await n8n.api.waitForExecutions(exampleIds.shareRevoked, 1);
		const run = runs.find((execution) => countByAlert([execution], shareTrigger)[alert.alertId]);
		expect(run?.status).toBe('success');
		expect(executionItems(run!, 'Get record (Output Item when not shared)')).toEqual([{ ke: 'KE-1004', shared: false }]);
	}, 120_000);

	test('a redelivered alert_id is acknowledged and starts nothing more', async () => {
		const { sandbox } = running();
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1005' });
		await sandbox.control.whenSettled(alert.alertId);
		await barrier();
		sandbox.control.redeliver(alert.alertId);
		expect(statuses(await sandbox.control.whenSettled(alert.alertId))).toEqual([200, 200, 200, 200]);
		await barrier();

		expect(countByAlert(await ledgerExecutions(), ledgerTrigger)[alert.alertId]).toBe(1);
		expect(chatTexts().filter((text) => text.includes(alert.alertId))).toHaveLength(1);
	}, 120_000);

	test('the credential test in code (testedBy): OK on the documented defaults, Error naming the settings a Service that chose differently needs', async () => {
		const { n8n } = running();
		// Two more Services in this process: their certificates come from the test CA n8n already trusts.
		const defaults = await startSandbox({ dialect: 'default' });
		const alt = await startSandbox({ dialect: 'alt' });
		try {
			expect([defaults.ca, alt.ca]).toEqual([running().sandbox.ca, running().sandbox.ca]);
			// Base URL and Access Token only, as a new user fills them in.
			const bare = (id: string, service: Sandbox) => ({ id, name: id, type: 'serviceApi', data: { baseUrl: service.baseUrl, accessToken: service.tokens.reader } });
			await n8n.importCredentials([bare('svcMatrixCheckDef', defaults), bare('svcMatrixCheckAlt', alt)]);
			expect(await testSavedCredential(n8n, 'svcMatrixCheckDef', 'svcMatrixCheckDef')).toEqual({ status: 'OK', message: expect.any(String) });
			const told = await testSavedCredential(n8n, 'svcMatrixCheckAlt', 'svcMatrixCheckAlt');
			expect(told.status).toBe('Error');
			expect(settingsToldIn(told.message)).toMatchObject({ cursorParameter: alt.dialect.cursorParameter, jsonFormat: alt.dialect.jsonFormat });
		} finally {
			await defaults.close();
			await alt.close();
		}
	}, 120_000);

	test('deactivation deletes the endpoint at the Service', async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const endpoint = sandbox.control.webhookEndpoints().find((candidate) => candidate.url === webhookUrls.ledgerAlert);
		expect(endpoint).toBeDefined();

		await n8n.api.deactivateWorkflow(exampleIds.ledgerAlert);

		const deletes = await endpointDeletes(sandbox, endpoint?.id);
		expect(deletes.map((request) => request.status)).toEqual([204]);
		expect(sandbox.control.webhookEndpoints().map((candidate) => candidate.url)).toEqual([webhookUrls.shareRevoked]);
	}, 120_000);
});
