import type { Delivery, Sandbox } from '../sandbox';
import { serviceApi } from '../sandbox/credential';
import type { N8n } from './n8n';
import { runSql } from './n8n-db';
import { countByAlert } from './examples/executions';
import { credentialId, endpointDeletes, exampleIds } from './examples/stack';
import { useExampleStack } from './examples/useExampleStack';
import { waitFor } from './wait-for';

const ledgerTrigger = 'Service Trigger: register changes';
const triggers = { ledgerAlert: ledgerTrigger, shareRevoked: 'Service Trigger: share ended' } as const;
type TriggerExample = keyof typeof triggers;

const statuses = (deliveries: Delivery[]) => deliveries.flatMap((delivery) => delivery.attempts.map((attempt) => attempt.status));

/** The URLs the Service holds endpoints for, and the URLs each trigger workflow keeps a sealed secret for. */
async function registrations(n8n: N8n, sandbox: Sandbox) {
	const stored: Record<string, string[]> = {};
	for (const name of Object.keys(triggers) as TriggerExample[]) {
		const workflow = await n8n.api.request<{ staticData?: Record<string, { endpoints?: Record<string, unknown> }> | null }>(
			'GET',
			`/workflows/${exampleIds[name]}`,
		);
		stored[name] = Object.keys(workflow.staticData?.[`node:${triggers[name]}`]?.endpoints ?? {});
	}
	return { atService: sandbox.control.webhookEndpoints().map((endpoint) => endpoint.url).sort(), stored };
}

/** Waits until the Service holds exactly `urls` and each trigger keeps its own one. */
async function settledOn(n8n: N8n, sandbox: Sandbox, urls: Record<TriggerExample, string>) {
	const expected = { atService: Object.values(urls).sort(), stored: { ledgerAlert: [urls.ledgerAlert], shareRevoked: [urls.shareRevoked] } };
	return await waitFor(
		async () => {
			const now = await registrations(n8n, sandbox);
			return JSON.stringify(now) === JSON.stringify(expected) ? now : undefined;
		},
		{ what: `one endpoint per trigger, at ${Object.values(urls).join(' and ')}, stored by each`, timeoutMs: 60_000 },
	);
}

// What happens around a running n8n, as an operator meets it: the Service down at activation, the
// workflow's static data lost, the access token rotated, n8n's public URL changed.
describe('trigger lifecycle in a real n8n: routine changes leave one endpoint per trigger, and alerts flow', () => {
	const running = useExampleStack('e2e-lifecycle');

	async function ledgerAlertStarts(): Promise<string> {
		const { sandbox, n8n } = running();
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1001' });
		expect(statuses(await sandbox.control.whenSettled(alert.alertId))).toEqual([200, 200]);
		await waitFor(async () => (countByAlert(await n8n.api.executions(exampleIds.ledgerAlert), ledgerTrigger)[alert.alertId] === 1 ? true : undefined), {
			what: `one execution for ${alert.alertId}`,
			timeoutMs: 60_000,
		});
		return alert.alertId;
	}

	test('with the Service unreachable, activation fails visibly and leaves nothing; once it is back, activation registers one endpoint', async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const before = sandbox.control.webhookEndpoints().find((endpoint) => endpoint.url === webhookUrls.ledgerAlert);
		await n8n.api.deactivateWorkflow(exampleIds.ledgerAlert);
		await endpointDeletes(sandbox, before?.id);

		sandbox.control.failRoute({ path: '/v1/reader/webhooks', mode: 'drop' });
		for (let attempt = 0; attempt < 2; attempt++) {
			await expect(n8n.api.activateWorkflow(exampleIds.ledgerAlert)).rejects.toThrow(/400/);
			const workflow = await n8n.api.request<{ active: boolean }>('GET', `/workflows/${exampleIds.ledgerAlert}`);
			expect(workflow.active).toBe(false);
			expect(sandbox.control.webhookEndpoints().map((endpoint) => endpoint.url)).toEqual([webhookUrls.shareRevoked]);
		}

		sandbox.control.clearFaults();
		await n8n.api.activateWorkflow(exampleIds.ledgerAlert);
		await settledOn(n8n, sandbox, webhookUrls);
		await ledgerAlertStarts();
	}, 240_000);

	test("after the workflow's static data is lost, n8n's restart leaves one endpoint for its URL, and alerts verify", async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const orphan = sandbox.control.webhookEndpoints().find((endpoint) => endpoint.url === webhookUrls.ledgerAlert);
		await n8n.restart({
			whileStopped: () => runSql(n8n.userFolder, `UPDATE workflow_entity SET staticData = NULL WHERE id = '${exampleIds.ledgerAlert}'`),
		});

		await settledOn(n8n, sandbox, webhookUrls);
		expect(sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id)).not.toContain(orphan?.id);
		expect((await endpointDeletes(sandbox, orphan?.id)).map((request) => request.status)).toEqual([204]);
		await ledgerAlertStarts();
	}, 240_000);

	test('after the access token is rotated: alerts keep starting executions, and after a restart one endpoint per trigger is sealed with the new token', async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const old = sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id);
		const token = sandbox.control.rotateToken();
		await n8n.importCredentials([{ id: credentialId, name: 'Service API', type: 'serviceApi', data: serviceApi(sandbox, { token }) }]);

		// Emitted after the rotation, to the endpoints registered before it.
		const afterRotation = await ledgerAlertStarts();

		await n8n.restart();
		await settledOn(n8n, sandbox, webhookUrls);
		const fresh = sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id);
		expect(fresh.filter((id) => old.includes(id))).toEqual([]);
		const afterRestart = await ledgerAlertStarts();
		const counts = countByAlert(await n8n.api.executions(exampleIds.ledgerAlert), ledgerTrigger);
		expect([counts[afterRotation], counts[afterRestart]]).toEqual([1, 1]);
	}, 300_000);

	test("after n8n's public URL changes and n8n restarts, the Service holds one endpoint per trigger, at the new URL, and alerts verify", async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const old = sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id);
		// Same n8n, reached by another name (its certificate covers both).
		const publicUrl = `https://127.0.0.1:${n8n.port}/`;
		await n8n.restart({ env: { WEBHOOK_URL: publicUrl, N8N_WEBHOOK_URL: publicUrl } });

		const moved = (url: string) => url.replace(`https://localhost:${n8n.port}/`, publicUrl);
		await settledOn(n8n, sandbox, { ledgerAlert: moved(webhookUrls.ledgerAlert), shareRevoked: moved(webhookUrls.shareRevoked) });
		for (const id of old) expect((await endpointDeletes(sandbox, id)).map((request) => request.status)).toEqual([204]);
		await ledgerAlertStarts();
	}, 240_000);
});
