import type { Delivery } from '../sandbox';
import { countByAlert, executionItems } from './examples/executions';
import { chatPath, crmPath, endpointDeletes, exampleIds } from './examples/stack';
import { useExampleStack } from './examples/useExampleStack';
import { waitFor } from './wait-for';

const ledgerTrigger = 'Service Trigger: register changes';
const shareTrigger = 'Service Trigger: share ended';

/** Status codes n8n answered, one per attempt of each delivery. */
const statuses = (deliveries: Delivery[]) => deliveries.flatMap((delivery) => delivery.attempts.map((attempt) => attempt.status));

// The trigger examples, activated in a real n8n (package from its tarball), fed by the sandbox's signed deliveries.
describe('trigger example workflows in a real n8n', () => {
	const running = useExampleStack('e2e-trigger');
	const ledgerExecutions = () => running().n8n.api.executions(exampleIds.ledgerAlert);
	const chatTexts = () => running().sink.received(chatPath).map((request) => String(JSON.parse(request.body).text));

	/**
	 * Emits a ledger_high and waits until it started its execution and chat message: everything sent
	 * before it has been answered by then, so counts taken afterwards are settled.
	 */
	async function barrier(): Promise<string> {
		const { sandbox, n8n, sink } = running();
		const executionsBefore = (await ledgerExecutions()).length;
		const messagesBefore = sink.received(chatPath).length;
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1001' });
		await sandbox.control.whenSettled(alert.alertId);
		await n8n.api.waitForExecutions(exampleIds.ledgerAlert, executionsBefore + 1);
		await sink.waitForRequests(chatPath, messagesBefore + 1);
		return alert.alertId;
	}

	test('activation registered one https endpoint per trigger with n8n\'s real webhook URL', () => {
		const { sandbox, webhookUrls, n8n } = running();
		const endpoints = sandbox.control.webhookEndpoints();
		expect(endpoints.map((endpoint) => endpoint.url).sort()).toEqual(
			[webhookUrls.ledgerAlert, webhookUrls.shareRevoked].sort(),
		);
		for (const endpoint of endpoints) expect(endpoint.url.startsWith(`${n8n.url}/webhook/`)).toBe(true);
		expect(n8n.url).toMatch(/^https:\/\//);
		const registrations = sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' });
		expect(registrations.map((request) => request.status)).toEqual([201, 201]);
	});

	test('ledger_high and ledger_medium post one chat message per alert; other events start nothing', async () => {
		const { sandbox, n8n, sink } = running();
		const high = [
			sandbox.control.emit('ledger_high', { organisation: 'KE-1010' }),
			sandbox.control.emit('ledger_high', { organisation: 'KE-1009' }),
		];
		const medium = sandbox.control.emit('ledger_medium', { organisation: 'KE-1003' });
		const other = sandbox.control.emit('reader_tier_changed', { organisation: 'KE-1001' });
		for (const alert of [...high, medium, other]) {
			// Both endpoints acknowledged every delivery at the first attempt.
			expect(statuses(await sandbox.control.whenSettled(alert.alertId))).toEqual([200, 200]);
		}
		await barrier();

		const counts = countByAlert(await ledgerExecutions(), ledgerTrigger);
		for (const alert of [...high, medium]) expect(counts[alert.alertId]).toBe(1);
		expect(counts[other.alertId]).toBeUndefined();
		const executions = await ledgerExecutions();
		expect(executions.map((execution) => execution.status)).toEqual(executions.map(() => 'success'));

		const texts = chatTexts();
		for (const alert of [...high, medium]) expect(texts.filter((text) => text.includes(alert.alertId))).toHaveLength(1);
		// The message names the company (the trigger's Add Company Details, no extra node), not only its KE and the alert id.
		const company = sandbox.control.companies().find((candidate) => candidate.ke === 'KE-1010');
		const message = texts.find((text) => text.includes(high[0].alertId)) ?? '';
		expect(message.startsWith(`${company?.name} (KE-1010): company register change ledger_high, severity high, at `)).toBe(true);
		expect(message).toContain('Open the company in the Service');
		// The execution shows the company in the trigger's own output, as the portfolio export has it.
		const run = executions.find((execution) => countByAlert([execution], ledgerTrigger)[high[0].alertId]);
		expect(executionItems(run!, ledgerTrigger)).toEqual([
			expect.objectContaining({ ke: 'KE-1010', alert_id: (JSON.parse(high[0].body) as { alert_id: unknown }).alert_id, company: expect.objectContaining({ ke: 'KE-1010', name: company?.name, shared: true }) }),
		]);
		// The company comes from the portfolio export (read in the execution), not one record export per alert.
		expect(sandbox.control.companyAccessLog('KE-1010').map((entry) => entry.export)).not.toContain('record');
		expect(sandbox.control.requests({ method: 'GET', path: '/v1/reader/exports/portfolio' }).length).toBeGreaterThan(0);
		expect(sink.received(chatPath).every((request) => request.method === 'POST')).toBe(true);

		// ledger_high cannot be silenced, so it also starts the share workflow, whose filter stops it.
		const shareRuns = await n8n.api.executions(exampleIds.shareRevoked);
		expect(countByAlert(shareRuns, shareTrigger)[high[0].alertId]).toBe(1);
		expect(sink.received(crmPath)).toEqual([]);
	}, 120_000);

	test('share_revoked marks the company\'s copy as ended in the CRM', async () => {
		const { sandbox, n8n, sink } = running();
		const alert = sandbox.control.revokeShare('KE-1004');
		expect(statuses(await sandbox.control.whenSettled(alert.alertId))).toEqual([200, 200]);

		const [patch] = await sink.waitForRequests(crmPath, 1);
		expect({ method: patch.method, path: patch.path, body: JSON.parse(patch.body) }).toEqual({
			method: 'PATCH',
			path: '/crm/companies/KE-1004',
			body: { share: 'ended' },
		});
		// The CRM call comes before n8n has saved the execution: wait for this alert's execution itself.
		const run = await waitFor(
			async () =>
				(await n8n.api.executions(exampleIds.shareRevoked)).find(
					(execution) => execution.stoppedAt !== null && countByAlert([execution], shareTrigger)[alert.alertId],
				),
			{ what: `the finished execution of ${alert.alertId}`, timeoutMs: 30_000 },
		);
		expect(run.status).toBe('success');
		expect(executionItems(run, 'Get record (Output Item when not shared)')).toEqual([{ ke: 'KE-1004', shared: false }]);
		// The record route answered 404 (the alt dialect: 410) for the ended share, and nothing else was marked.
		const fetches = sandbox.control.requests({ path: '/v1/reader/exports/records/KE-1004' });
		expect(fetches.map((request) => request.status)).toEqual([sandbox.dialect.notSharedStatus]);
		await barrier();
		expect(sink.received(crmPath)).toHaveLength(1);
		expect(countByAlert(await ledgerExecutions(), ledgerTrigger)[alert.alertId]).toBeUndefined();

		// A register alert about a company that no longer shares still reaches the chat, and says so.
		const late = sandbox.control.emit('ledger_high', { organisation: 'KE-1004' });
		const message = await waitFor(async () => chatTexts().find((text) => text.includes(late.alertId)), {
			what: 'the chat message of the alert about KE-1004',
			timeoutMs: 60_000,
		});
		expect(message.startsWith('A company that no longer shares its record with you (KE-1004): company register change ledger_high')).toBe(true);
	}, 120_000);

	test('tampered and stale deliveries get 401 and start no execution', async () => {
		const { sandbox, n8n } = running();
		const probes = [
			sandbox.control.sendTampered('ledger_high', { organisation: 'KE-1002' }, { mode: 'body' }),
			sandbox.control.sendTampered('ledger_high', { organisation: 'KE-1002' }, { mode: 'signature' }),
			sandbox.control.sendStale('ledger_high', { organisation: 'KE-1002' }, { ageSeconds: 301 }),
		];
		for (const probe of probes) {
			expect(statuses(await sandbox.control.whenSettled(probe.alertId))).toEqual([401, 401]);
		}
		await barrier();

		const ledgerCounts = countByAlert(await ledgerExecutions(), ledgerTrigger);
		const shareCounts = countByAlert(await n8n.api.executions(exampleIds.shareRevoked), shareTrigger);
		for (const probe of probes) {
			expect(ledgerCounts[probe.alertId]).toBeUndefined();
			expect(shareCounts[probe.alertId]).toBeUndefined();
			expect(chatTexts().some((text) => text.includes(probe.alertId))).toBe(false);
		}
		// The reason goes to n8n's log, never to the sender.
		expect(n8n.logs()).toContain('Service Trigger refused a webhook delivery (401)');
	}, 120_000);

	test('a redelivered alert_id starts one execution', async () => {
		const { sandbox } = running();
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1005' });
		await sandbox.control.whenSettled(alert.alertId);
		await barrier();
		sandbox.control.redeliver(alert.alertId);
		const deliveries = await sandbox.control.whenSettled(alert.alertId);
		// Acknowledged (so the Service stops retrying), and nothing more started.
		expect(deliveries.map((delivery) => [delivery.kind, delivery.state])).toEqual([
			['event', 'delivered'],
			['event', 'delivered'],
			['redelivery', 'delivered'],
			['redelivery', 'delivered'],
		]);
		await barrier();

		expect(countByAlert(await ledgerExecutions(), ledgerTrigger)[alert.alertId]).toBe(1);
		expect(chatTexts().filter((text) => text.includes(alert.alertId))).toHaveLength(1);
	}, 120_000);

	test('after an n8n restart, deliveries still verify, no endpoint is registered again, and earlier alerts are remembered', async () => {
		const { sandbox, n8n } = running();
		const endpointsBefore = sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id).sort();
		const registrationsBefore = sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' }).length;
		const earlier = sandbox.control.emit('ledger_high', { organisation: 'KE-1007' });
		expect(statuses(await sandbox.control.whenSettled(earlier.alertId))).toEqual([200, 200]);
		await barrier();

		await n8n.restart();

		// The memory of passed-on alerts lives in n8n's deduplication store (its database): a
		// redelivery after the restart is acknowledged and goes no further than the trigger.
		sandbox.control.redeliver(earlier.alertId);
		expect(statuses(await sandbox.control.whenSettled(earlier.alertId))).toEqual([200, 200, 200, 200]);

		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1006' });
		expect(statuses(await sandbox.control.whenSettled(alert.alertId))).toEqual([200, 200]);
		await barrier();
		expect(countByAlert(await ledgerExecutions(), ledgerTrigger)[alert.alertId]).toBe(1);
		expect(chatTexts().filter((text) => text.includes(alert.alertId))).toHaveLength(1);
		expect(countByAlert(await ledgerExecutions(), ledgerTrigger)[earlier.alertId]).toBe(1);
		expect(chatTexts().filter((text) => text.includes(earlier.alertId))).toHaveLength(1);
		expect(sandbox.control.webhookEndpoints().map((endpoint) => endpoint.id).sort()).toEqual(endpointsBefore);
		expect(sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' })).toHaveLength(registrationsBefore);
	}, 240_000);

	test('deactivating a trigger workflow deletes its endpoint at the Service and forgets its state', async () => {
		const { sandbox, n8n, webhookUrls } = running();
		const endpoint = sandbox.control.webhookEndpoints().find((candidate) => candidate.url === webhookUrls.ledgerAlert);
		expect(endpoint).toBeDefined();
		const staticBefore = await n8n.api.request<{ staticData: Record<string, { endpoints?: object }> }>(
			'GET',
			`/workflows/${exampleIds.ledgerAlert}`,
		);
		expect(Object.keys(staticBefore.staticData[`node:${ledgerTrigger}`]?.endpoints ?? {})).toEqual([webhookUrls.ledgerAlert]);

		await n8n.api.deactivateWorkflow(exampleIds.ledgerAlert);

		const deletes = await endpointDeletes(sandbox, endpoint?.id);
		expect(deletes.map((request) => request.status)).toEqual([204]);
		expect(sandbox.control.webhookEndpoints().map((candidate) => candidate.url)).toEqual([webhookUrls.shareRevoked]);
		const staticAfter = await n8n.api.request<{ staticData: Record<string, { endpoints?: object }> | null }>(
			'GET',
			`/workflows/${exampleIds.ledgerAlert}`,
		);
		expect(staticAfter.staticData?.[`node:${ledgerTrigger}`]?.endpoints).toBeUndefined();
	}, 120_000);

	test('an execution that waits across a deactivate and activate does not restore the old endpoint: the next delivery verifies', async () => {
		const { sandbox, n8n, sink } = running();
		const workflowId = 'svcWaitAcrossAct';
		const webhookId = '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
		const trigger = 'Service Trigger: questionnaires';
		const url = `${n8n.url}/webhook/${webhookId}/webhook`;
		await n8n.importWorkflows([
			{
				id: workflowId,
				name: 'Wait across re-activation',
				nodes: [
					{
						parameters: { events: ['questionnaire_answered'], ignoreRedeliveries: true },
						id: 'b1', name: trigger, type: 'n8n-nodes-service-reader.serviceTrigger', typeVersion: 2, position: [0, 0], webhookId,
						credentials: { serviceApi: { id: 'svcServiceApiCr1', name: 'Service API' } },
					},
					{ parameters: { amount: 12, unit: 'seconds' }, id: 'b2', name: 'Wait', type: 'n8n-nodes-base.wait', typeVersion: 1.1, position: [220, 0], webhookId: 'b2b2b2b2-0000-4000-8000-000000000002' },
					{
						parameters: {
							method: 'POST', url: `${sink.url}/waited`, sendBody: true,
							bodyParameters: { parameters: [{ name: 'alert_id', value: '={{ $json.alert_id }}' }] }, options: {},
						},
						id: 'b3', name: 'Done', type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, position: [440, 0],
					},
				],
				connections: { [trigger]: { main: [[{ node: 'Wait', type: 'main', index: 0 }]] }, Wait: { main: [[{ node: 'Done', type: 'main', index: 0 }]] } },
				settings: {},
			},
		]);
		const registered = async () => {
			const endpoint = sandbox.control.webhookEndpoints().find((candidate) => candidate.url === url);
			const stored = await n8n.api.request<{ staticData?: Record<string, { endpoints?: Record<string, { id?: string }> }> | null }>(
				'GET',
				`/workflows/${workflowId}`,
			);
			const storedId = stored.staticData?.[`node:${trigger}`]?.endpoints?.[url]?.id;
			return endpoint && storedId === endpoint.id ? endpoint.id : undefined;
		};
		await n8n.api.activateWorkflow(workflowId);
		const firstId = await waitFor(registered, { what: 'the first endpoint, registered and stored', timeoutMs: 60_000 });

		// An execution starts and waits in the Wait node...
		const toThisWorkflow = (deliveries: Delivery[]) => statuses(deliveries.filter((delivery) => delivery.url === url));
		const first = sandbox.control.emit('questionnaire_answered', { organisation: 'KE-1001' });
		expect(toThisWorkflow(await sandbox.control.whenSettled(first.alertId))).toEqual([200]);
		// ...while the workflow is deactivated (its endpoint deleted) and activated again (a new endpoint and secret).
		await n8n.api.deactivateWorkflow(workflowId);
		await waitFor(async () => (sandbox.control.webhookEndpoints().some((e) => e.id === firstId) ? undefined : true), {
			what: 'the first endpoint to be deleted',
			timeoutMs: 30_000,
		});
		await n8n.api.activateWorkflow(workflowId);
		const secondId = await waitFor(async () => {
			const id = await registered();
			return id && id !== firstId ? id : undefined;
		}, { what: 'a new endpoint, registered and stored', timeoutMs: 60_000 });

		// The waiting execution ends after the re-activation.
		await sink.waitForRequests('/waited', 1, 60_000);
		expect(JSON.parse(sink.received('/waited')[0].body)).toEqual({ alert_id: (JSON.parse(first.body) as { alert_id: unknown }).alert_id });
		await n8n.api.waitForExecutions(workflowId, 1, 60_000);

		// The next event to the new endpoint still verifies and starts the workflow.
		const next = sandbox.control.emit('questionnaire_answered', { organisation: 'KE-1002' });
		expect(toThisWorkflow(await sandbox.control.whenSettled(next.alertId))).toEqual([200]);
		await sink.waitForRequests('/waited', 2, 60_000);
		expect(JSON.parse(sink.received('/waited')[1].body)).toEqual({ alert_id: (JSON.parse(next.body) as { alert_id: unknown }).alert_id });
		expect(await registered()).toBe(secondId);
		expect(sandbox.control.requests({ method: 'DELETE', path: `/v1/reader/webhooks/${firstId}` }).map((r) => r.status)).toEqual([204]);

		await n8n.api.deactivateWorkflow(workflowId);
		await waitFor(async () => (sandbox.control.webhookEndpoints().some((e) => e.url === url) ? undefined : true), {
			what: 'the second endpoint to be deleted',
			timeoutMs: 30_000,
		});
	}, 240_000);
});
