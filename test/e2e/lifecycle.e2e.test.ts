import { setTimeout as sleep } from 'node:timers/promises';
import { RECENT_KEYS_MS } from '../../nodes/ServiceTrigger/verify/recentKeys';
import type { Sandbox } from '../sandbox';
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

/** Switches a trigger workflow off and on again: what an operator does after a change n8n does not report to nodes. */
async function reactivate(n8n: N8n, name: TriggerExample): Promise<void> {
	await n8n.api.deactivateWorkflow(exampleIds[name]);
	await n8n.api.activateWorkflow(exampleIds[name]);
}

// What happens around a running n8n, as an operator meets it, in the pinned n8n (2.40: activation
// goes through its publication queue, and a restart calls none of a trigger's webhook methods while
// n8n keeps the webhook's row): the Service down at activation and at start, the workflow's static
// data lost, the access token rotated, n8n's public URL changed.
describe('trigger lifecycle in a real n8n: routine changes leave one endpoint per trigger, and alerts flow', () => {
	const running = useExampleStack('e2e-lifecycle');

	/**
	 * Emits a ledger_high and returns its alert_id with n8n's first answer to each endpoint's delivery
	 * (a refused one is retried a minute later, and for a day).
	 */
	async function emitLedgerHigh(): Promise<{ alertId: string; statuses: Array<number | undefined> }> {
		const { sandbox } = running();
		const { alertId } = sandbox.control.emit('ledger_high', { organisation: 'KE-1001' });
		const answered = await sandbox.control.waitForDeliveries((list) => {
			const own = list.filter((delivery) => delivery.alertId === alertId);
			return own.length > 0 && own.every((delivery) => delivery.attempts[0]?.status !== undefined);
		});
		const own = answered.filter((delivery) => delivery.alertId === alertId);
		return { alertId, statuses: own.map((delivery) => delivery.attempts[0].status).sort() };
	}

	async function ledgerAlertStarts(): Promise<string> {
		const { n8n } = running();
		const { alertId, statuses: answered } = await emitLedgerHigh();
		expect(answered).toEqual([200, 200]);
		await waitFor(async () => (countByAlert(await n8n.api.executions(exampleIds.ledgerAlert), ledgerTrigger)[alertId] === 1 ? true : undefined), {
			what: `one execution for ${alertId}`,
			timeoutMs: 60_000,
		});
		return alertId;
	}

	test('with the Service down, activation fails where the editor shows it and leaves nothing; activated again once it is back, one endpoint', async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const before = sandbox.control.webhookEndpoints().find((endpoint) => endpoint.url === webhookUrls.ledgerAlert);
		await n8n.api.deactivateWorkflow(exampleIds.ledgerAlert);
		await endpointDeletes(sandbox, before?.id);

		sandbox.control.failRoute({ path: '/v1/reader/webhooks', mode: 'drop' });
		await n8n.api.activateWorkflow(exampleIds.ledgerAlert);
		const failed = await waitFor(
			async () => {
				const answer = await n8n.rest('GET', `/rest/workflows/${exampleIds.ledgerAlert}/publication-status`);
				const status = answer.json<{ data: { status: string; triggers: Array<{ status: string; errorMessage: string | null }> } }>().data;
				return status.status === 'failed' ? status : undefined;
			},
			{ what: 'the publication to fail', timeoutMs: 60_000 },
		);
		// Registering is a write: its answer lost, the outcome is said as unknown (the endpoint may exist), never sent again blindly.
		expect(failed.triggers.map((trigger) => trigger.errorMessage)).toEqual(['The outcome of this write is unknown: the connection was dropped before an answer']);
		expect(sandbox.control.webhookEndpoints().map((endpoint) => endpoint.url)).toEqual([webhookUrls.shareRevoked]);

		sandbox.control.clearFaults();
		await reactivate(n8n, 'ledgerAlert');
		await settledOn(n8n, sandbox, webhookUrls);
		await ledgerAlertStarts();
	}, 240_000);

	test('with the Service down while n8n starts, nothing is lost or registered twice: alerts flow once it is back', async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const endpoints = sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id).sort();
		sandbox.control.failRoute({ path: '/v1/reader/webhooks', mode: 'drop' });
		await n8n.restart();
		sandbox.control.clearFaults();

		await ledgerAlertStarts();
		await settledOn(n8n, sandbox, webhookUrls);
		expect(sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id).sort()).toEqual(endpoints);
	}, 240_000);

	test('after the access token is rotated, no alert is lost: the first delivery after it is asked again while n8n saves the secret sealed anew, and after a restart alerts verify', async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const endpoints = sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id).sort();
		const token = sandbox.control.rotateToken();
		await n8n.importCredentials([{ id: credentialId, name: 'Service API', type: 'serviceApi', data: serviceApi(sandbox, { token }) }]);
		// Past the minute in which keys already read verify without reading the credential.
		await sleep(RECENT_KEYS_MS + 1_000);

		// ledger_high starts both example workflows (a reader cannot silence it): each trigger asks for it again once.
		const first = await emitLedgerHigh();
		expect(first.statuses).toEqual([503, 503]);
		expect(n8n.logs()).toContain('the access token changed; the endpoint\'s signing secret, still held by this n8n process, is now sealed with the new token');
		await waitFor(async () => (countByAlert(await n8n.api.executions(exampleIds.ledgerAlert), ledgerTrigger)[first.alertId] === 1 ? true : undefined), {
			what: `the Service's retry of ${first.alertId} to start its execution`,
			timeoutMs: 150_000,
		});

		await n8n.restart();
		const afterRestart = await ledgerAlertStarts();
		await settledOn(n8n, sandbox, webhookUrls);
		expect(sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id).sort()).toEqual(endpoints);
		const counts = countByAlert(await n8n.api.executions(exampleIds.ledgerAlert), ledgerTrigger);
		expect([counts[first.alertId], counts[afterRestart]]).toEqual([1, 1]);
	}, 420_000);

	test('after the access token is rotated and n8n restarted before the next delivery, deliveries resume without a person: the first one renews each endpoint, and the log and the execution list say so', async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const before = sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id);
		const token = sandbox.control.rotateToken();
		await n8n.importCredentials([{ id: credentialId, name: 'Service API', type: 'serviceApi', data: serviceApi(sandbox, { token }) }]);
		// No process holds the secrets any more: the sealed ones open only with the old token.
		await n8n.restart();

		// ledger_high reaches both example workflows: each refuses it (it cannot be verified) and renews its endpoint.
		const lost = await emitLedgerHigh();
		expect(lost.statuses).toEqual([401, 401]);
		await settledOn(n8n, sandbox, webhookUrls);
		const after = sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id);
		for (const id of before) {
			expect(after).not.toContain(id);
			expect((await endpointDeletes(sandbox, id)).map((request) => request.status)).toEqual([204]);
		}
		expect(sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' }).filter((request) => request.status === 201).length).toBeGreaterThanOrEqual(2);
		expect(n8n.logs()).toContain('no n8n process holds it (the token was changed and n8n restarted). Registered a new endpoint');
		expect(n8n.logs()).not.toContain(token);
		// The execution list: one failed execution per trigger workflow, saying what happened.
		for (const name of Object.keys(triggers) as TriggerExample[]) {
			const failed = await waitFor(
				async () => {
					const list = (await n8n.api.executions(exampleIds[name])).filter(
						(execution) => execution.status === 'error' && JSON.stringify(execution.data?.resultData ?? {}).includes('The Service Trigger registered a new endpoint'),
					);
					return list.length > 0 ? list : undefined;
				},
				{ what: `the failed execution reporting the renewal in ${name}`, timeoutMs: 60_000 },
			);
			expect(failed).toHaveLength(1);
			expect(JSON.stringify(failed[0].data)).not.toContain(token);
		}

		// Without a person: the next alert is delivered to the new endpoints and verified, and again after a restart.
		await ledgerAlertStarts();
		await n8n.restart();
		await ledgerAlertStarts();
		await settledOn(n8n, sandbox, webhookUrls);
	}, 420_000);

	test("after the workflow's static data is lost, deliveries are refused naming the workflow and what to do; activating it again leaves one endpoint", async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const orphan = sandbox.control.webhookEndpoints().find((endpoint) => endpoint.url === webhookUrls.ledgerAlert);
		await n8n.restart({
			whileStopped: () => runSql(n8n.userFolder, `UPDATE workflow_entity SET staticData = NULL WHERE id = '${exampleIds.ledgerAlert}'`),
		});

		const refused = await emitLedgerHigh();
		expect(refused.statuses).toEqual([200, 401]);
		expect(n8n.logs()).toContain(
			`refused a webhook delivery (401) for workflow "Service: company register alert to chat" (${exampleIds.ledgerAlert}), node "${ledgerTrigger}": no webhook endpoint is registered for this trigger (activate the workflow again`,
		);

		await reactivate(n8n, 'ledgerAlert');
		await settledOn(n8n, sandbox, webhookUrls);
		expect((await endpointDeletes(sandbox, orphan?.id)).map((request) => request.status)).toEqual([204]);
		await ledgerAlertStarts();
	}, 240_000);

	test("after n8n's public URL changes and n8n restarts, alerts still verify; activated again, each trigger holds one endpoint, at the new URL", async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const old = sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id);
		// Same n8n, reached by another name (its certificate covers both); the old name still reaches it.
		const publicUrl = `https://127.0.0.1:${n8n.port}/`;
		await n8n.restart({ env: { WEBHOOK_URL: publicUrl, N8N_WEBHOOK_URL: publicUrl } });
		await ledgerAlertStarts();

		for (const name of Object.keys(triggers) as TriggerExample[]) await reactivate(n8n, name);
		const moved = (url: string) => url.replace(`https://localhost:${n8n.port}/`, publicUrl);
		await settledOn(n8n, sandbox, { ledgerAlert: moved(webhookUrls.ledgerAlert), shareRevoked: moved(webhookUrls.shareRevoked) });
		for (const id of old) expect((await endpointDeletes(sandbox, id)).map((request) => request.status)).toEqual([204]);
		await ledgerAlertStarts();
	}, 240_000);
});
