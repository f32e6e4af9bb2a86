import type { Delivery } from '../sandbox';
import { parseCsv } from '../sandbox/csvRead';
import { downloadBinary } from './examples/binary-file';
import { countByAlert, executionItems } from './examples/executions';
import { chatPath, credentialId, exampleIds } from './examples/stack';
import { useExampleStack } from './examples/useExampleStack';
import { httpsRequest } from './https-request';
import type { Execution } from './n8n';
import { startQueueDeployment, type QueueDeployment } from './queue/deployment';
import { waitFor } from './wait-for';

const ledgerTrigger = 'Service Trigger: register changes';
const BIG_ROWS = 100_000;
const countBy = (values: string[]) => values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {});
const statuses = (deliveries: Delivery[]) => deliveries.flatMap((delivery) => delivery.attempts.map((attempt) => attempt.status));

// The package in n8n's queue mode: PostgreSQL, Redis, a main process, two webhook processes behind a
// load balancer (the URL the Service delivers to) and two workers, with the example workflows.
describe('queue mode: main, webhook processes and workers', () => {
	let deployment: QueueDeployment | undefined;
	const stack = useExampleStack(
		'e2e-queue',
		{
			sandbox: { portfolioRows: BIG_ROWS },
			n8n: async (options) => {
				deployment = await startQueueDeployment({ ...options, webhooks: 2, workers: 2 });
				return { n8n: deployment.main, webhookBase: deployment.balancer.url, stop: () => deployment!.stop() };
			},
		},
		{ start: 420_000, stop: 120_000 },
	);
	const running = () => {
		if (!deployment) throw new Error('the queue-mode deployment did not start');
		return { ...stack(), deployment };
	};
	const ledgerExecutions = () => running().n8n.api.executions(exampleIds.ledgerAlert);
	const newExecutions = async (seen: Set<string>) => (await ledgerExecutions()).filter((execution) => !seen.has(execution.id));
	const chatTexts = () => running().sink.received(chatPath).map((request) => String(JSON.parse(request.body).text));
	/** Where the balancer sent each delivery to the ledger workflow's URL, in order, with n8n's answer. */
	const ledgerRoutes = () => {
		const { deployment: queue, webhookUrls } = running();
		const path = new URL(webhookUrls.ledgerAlert).pathname;
		return queue.balancer.routed.filter((entry) => entry.path === path);
	};

	/** Emits a ledger_high and waits for its execution and chat message: earlier work has settled then. */
	async function barrier(): Promise<void> {
		const { sandbox, n8n, sink } = running();
		const executionsBefore = (await ledgerExecutions()).length;
		const messagesBefore = sink.received(chatPath).length;
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1001' });
		await sandbox.control.whenSettled(alert.alertId);
		await n8n.api.waitForExecutions(exampleIds.ledgerAlert, executionsBefore + 1, 60_000);
		await sink.waitForRequests(chatPath, messagesBefore + 1, 60_000);
	}

	test('activation on main registers the endpoints at the load balancer\'s URL; main itself takes no production webhook', async () => {
		const { sandbox, webhookUrls, n8n, deployment: queue } = running();
		const endpoints = sandbox.control.webhookEndpoints().map((endpoint) => endpoint.url).sort();
		expect(endpoints).toEqual([webhookUrls.ledgerAlert, webhookUrls.shareRevoked].sort());
		for (const url of endpoints) expect(url.startsWith(`${queue.balancer.url}/webhook/`)).toBe(true);
		expect(queue.balancer.url).not.toBe(n8n.url);
		const registrations = sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' });
		expect(registrations.map((request) => request.status)).toEqual([201, 201]);
		// N8N_DISABLE_PRODUCTION_MAIN_PROCESS: the same path on main's own port is not served.
		const onMain = await httpsRequest(`${n8n.url}${new URL(webhookUrls.ledgerAlert).pathname}`, {
			method: 'POST',
			ca: n8n.ca,
			body: {},
		});
		expect(onMain.status).toBe(404);
	});

	test('deliveries go to the webhook processes, verify there and start executions that run on a worker', async () => {
		const { sandbox, sink, deployment: queue } = running();
		const seen = new Set((await ledgerExecutions()).map((execution) => execution.id));
		const routedBefore = ledgerRoutes().length;
		const alerts = [
			sandbox.control.emit('ledger_high', { organisation: 'KE-1010' }),
			sandbox.control.emit('ledger_medium', { organisation: 'KE-1009' }),
		];
		for (const alert of alerts) expect(statuses(await sandbox.control.whenSettled(alert.alertId))).toEqual([200, 200]);
		await barrier();

		// Each webhook process took one of the two deliveries and answered 200.
		const routes = ledgerRoutes().slice(routedBefore, routedBefore + 2);
		expect(routes.map((route) => route.status)).toEqual([200, 200]);
		expect(routes.map((route) => route.backend).sort()).toEqual([0, 1]);

		const runs = await newExecutions(seen);
		const counts = countByAlert(runs, ledgerTrigger);
		for (const alert of alerts) expect(counts[alert.alertId]).toBe(1);
		const ranOn = queue.ranOn();
		const enqueuedBy = queue.enqueuedBy();
		for (const run of runs) {
			expect(run.status).toBe('success');
			// The webhook process put it on the queue, a worker ran it; main ran nothing.
			expect(enqueuedBy.get(run.id)).toMatch(/^webhook-[12]$/);
			expect(ranOn.get(run.id)).toMatch(/^worker-[12]$/);
		}
		expect(queue.main.logs()).not.toMatch(/Worker started execution/);
		for (const alert of alerts) expect(chatTexts().filter((text) => text.includes(alert.alertId))).toHaveLength(1);
		expect(sink.received(chatPath).every((request) => request.method === 'POST')).toBe(true);
	}, 180_000);

	test('forged and stale deliveries get 401 from the webhook processes and start no execution', async () => {
		const { sandbox, deployment: queue } = running();
		const seen = new Set((await ledgerExecutions()).map((execution) => execution.id));
		const probes = [
			sandbox.control.sendTampered('ledger_high', { organisation: 'KE-1002' }, { mode: 'body' }),
			sandbox.control.sendTampered('ledger_high', { organisation: 'KE-1002' }, { mode: 'signature' }),
			sandbox.control.sendStale('ledger_high', { organisation: 'KE-1002' }, { ageSeconds: 301 }),
		];
		for (const probe of probes) expect(statuses(await sandbox.control.whenSettled(probe.alertId))).toEqual([401, 401]);
		await barrier();

		const runs = await newExecutions(seen);
		expect(runs).toHaveLength(1); // the barrier's own
		for (const probe of probes) expect(chatTexts().some((text) => text.includes(probe.alertId))).toBe(false);
		const refusing = queue.webhooks.filter((process) => process.group.text.includes('Service Trigger refused a webhook delivery (401)'));
		expect(refusing.map((process) => process.name).sort()).toEqual(['webhook-1', 'webhook-2']);
		expect(queue.main.logs()).not.toContain('Service Trigger refused a webhook delivery');
	}, 180_000);

	test('a redelivery after the first execution ended: at the same webhook process it starts nothing; at the other, an execution that stops at the trigger', async () => {
		const { sandbox, deployment: queue } = running();
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1005' });
		await sandbox.control.whenSettled(alert.alertId);
		await barrier();
		const seen = new Set((await ledgerExecutions()).map((execution) => execution.id));
		const routedBefore = ledgerRoutes().length;

		// The balancer alternates per URL: the two redeliveries land on both webhook processes.
		sandbox.control.redeliver(alert.alertId);
		await sandbox.control.whenSettled(alert.alertId);
		sandbox.control.redeliver(alert.alertId);
		const deliveries = await sandbox.control.whenSettled(alert.alertId);
		expect(statuses(deliveries)).toEqual([200, 200, 200, 200, 200, 200]);
		const routes = ledgerRoutes().slice(routedBefore);
		expect(routes.map((route) => route.backend).sort()).toEqual([0, 1]);
		await barrier();

		// Besides the barrier's own execution, exactly one: started by the process that had not seen the
		// alert, run on a worker, where the trigger's step found the alert in n8n's database and passed nothing on.
		const runs = await newExecutions(seen);
		const passedOn = runs.filter((run) => executionItems(run, ledgerTrigger).length > 0);
		const stopped = runs.filter((run) => executionItems(run, ledgerTrigger).length === 0);
		expect(passedOn.map((run) => countByAlert([run], ledgerTrigger)[alert.alertId])).toEqual([undefined]);
		expect(stopped).toHaveLength(1);
		expect(stopped[0].status).toBe('success');
		expect(queue.ranOn().get(stopped[0].id)).toMatch(/^worker-[12]$/);
		expect(Object.keys(stopped[0].data?.resultData.runData ?? {})).toEqual([ledgerTrigger]);
		expect(countByAlert(await ledgerExecutions(), ledgerTrigger)[alert.alertId]).toBe(1);
		expect(chatTexts().filter((text) => text.includes(alert.alertId))).toHaveLength(1);
		const logs = queue.webhooks.map((process) => process.group.text).join('\n');
		expect(logs).toContain(`Service Trigger: alert ${alert.alertId} (ledger_high) was already passed on; this redelivery starts nothing.`);
		expect(queue.workers.map((process) => process.group.text).join('\n')).toContain(
			`Service Trigger: alert ${alert.alertId} (ledger_high) was already passed on by an earlier execution; this copy goes no further.`,
		);
	}, 180_000);

	test('two webhook processes receiving copies of one alert at once: two executions, which pass it on once or twice', async () => {
		const { sandbox } = running();
		const { deployment: queue } = running();
		const measured: Array<{ executions: number; passedOn: number; chat: number; workers: string[] }> = [];
		for (const organisation of ['KE-1003', 'KE-1006', 'KE-1008', 'KE-1002', 'KE-1007', 'KE-1009']) {
			const seen = new Set((await ledgerExecutions()).map((execution) => execution.id));
			const alert = sandbox.control.emit('ledger_high', { organisation });
			// The copy goes out while the first delivery is still being answered; the balancer sends it to the other process.
			sandbox.control.redeliver(alert.alertId);
			expect(statuses(await sandbox.control.whenSettled(alert.alertId))).toEqual([200, 200, 200, 200]);
			await barrier();
			const runs = (await newExecutions(seen)).filter(
				(run) => countByAlert([run], ledgerTrigger)[alert.alertId] !== undefined || executionItems(run, ledgerTrigger).length === 0,
			);
			measured.push({
				executions: runs.length,
				passedOn: runs.filter((run) => executionItems(run, ledgerTrigger).length === 1).length,
				chat: chatTexts().filter((text) => text.includes(alert.alertId)).length,
				workers: runs.map((run) => queue.ranOn().get(run.id) ?? 'none').sort(),
			});
		}
		console.log(`queue mode, concurrent copies at two webhook processes: ${JSON.stringify(measured)}`);
		for (const { executions, passedOn, chat, workers } of measured) {
			expect(executions).toBe(2);
			for (const worker of workers) expect(worker).toMatch(/^worker-[12]$/);
			expect(passedOn).toBeGreaterThanOrEqual(1);
			expect(passedOn).toBeLessThanOrEqual(2);
			expect(chat).toBe(passedOn);
		}
	}, 300_000);

	test('a Reader export with Return All (100,000 rows, items and file) runs on a worker', async () => {
		const { sandbox, n8n, deployment: queue } = running();
		const bigCredential = 'svcServiceApiBig';
		await n8n.importCredentials([
			{
				id: bigCredential,
				name: 'Service API (1,000 a page)',
				type: 'serviceApi',
				data: {
					baseUrl: sandbox.baseUrl,
					accessToken: sandbox.tokens.reader,
					advancedSettings: true,
					pageSizeParameter: 'page_size',
					pageSize: 1000,
				},
			},
		]);
		const reader = (name: string, output: 'items' | 'file', y: number) => ({
			id: name,
			name,
			type: 'n8n-nodes-service-reader.serviceReader',
			typeVersion: 1,
			position: [240, y],
			parameters: { resource: 'portfolio', operation: 'getAll', returnAll: true, ...(output === 'file' ? { output } : {}) },
			credentials: { serviceApi: { id: bigCredential, name: 'Service API (1,000 a page)' } },
		});
		const workflowId = 'svcBigExportQ001';
		await n8n.importWorkflows([
			{
				id: workflowId,
				name: 'Portfolio export on a worker',
				nodes: [
					{
						id: 'hook', name: 'Start export', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0],
						webhookId: '3b0c9f4e-1d2a-4e5f-8a6b-7c8d9e0f1a2b',
						parameters: { httpMethod: 'POST', path: 'svc-big-export', options: {} },
					},
					reader('Portfolio items', 'items', -100),
					reader('Portfolio file', 'file', 100),
				],
				connections: {
					'Start export': {
						main: [[
							{ node: 'Portfolio items', type: 'main', index: 0 },
							{ node: 'Portfolio file', type: 'main', index: 0 },
						]],
					},
				},
				settings: {},
			},
		]);
		// The chat-alert example's Add Company Details read the portfolio in earlier tests: count from here.
		const portfolioBefore = sandbox.control.requests({ path: '/v1/reader/exports/portfolio' }).length;
		await n8n.api.activateWorkflow(workflowId);
		const call = () => httpsRequest(`${queue.balancer.url}/webhook/svc-big-export`, { method: 'POST', ca: n8n.ca, body: {} });
		const started = await waitFor(async () => ((await call()).status === 200 ? true : undefined), {
			what: 'the export webhook to be served',
			timeoutMs: 30_000,
		});
		expect(started).toBe(true);
		const [listed] = await n8n.api.waitForExecutions(workflowId, 1, 240_000);
		const run = await n8n.api.request<Execution>('GET', `/executions/${listed.id}?includeData=true`);

		const shared = sandbox.control.shares().filter((share) => share.state === 'shared').map((share) => share.ke);
		expect(shared.length).toBeGreaterThanOrEqual(BIG_ROWS);
		expect(run.status).toBe('success');
		expect(queue.ranOn().get(run.id)).toMatch(/^worker-[12]$/);
		const items = executionItems(run, 'Portfolio items');
		expect(items).toHaveLength(shared.length);
		expect(items.map((item) => item.ke)).toEqual(shared);
		const [file] = executionItems(run, 'Portfolio file');
		const pages = Math.ceil(shared.length / 1000);
		expect(file).toEqual({ export: 'portfolio', fileName: 'portfolio.csv', pages, rows: shared.length });
		const runData = run.data?.resultData.runData['Portfolio file'] as unknown as Array<{
			data: { main: Array<Array<{ binary: Record<string, { id?: string; data?: string }> }>> };
		}>;
		const csv = parseCsv((await downloadBinary(n8n, runData[0].data.main[0][0].binary.data)).toString('utf8'));
		expect(csv.unclosedQuoteLine).toBeUndefined();
		expect(csv.records[0].values).toEqual(['ke', 'company_name', 'tier', 'status', 'decision_due']);
		expect(csv.records.slice(1).map((record) => record.values[0])).toEqual(shared);
		// Every page was read once, by the worker's requests.
		const pageRequests = sandbox.control.requests({ path: '/v1/reader/exports/portfolio' }).slice(portfolioBefore);
		expect(pageRequests.filter((request) => request.status === 200)).toHaveLength(2 * pages);
	}, 420_000);

	test('the downstream deduplication recipe of docs/queue-mode.md (a unique key in PostgreSQL) passes each alert on once, with the trigger\'s own check off', async () => {
		const { sandbox, n8n, sink, deployment: queue } = running();
		await queue.services.sql('CREATE TABLE service_alerts (alert_id text PRIMARY KEY)');
		const { postgres } = queue.services;
		await n8n.importCredentials([
			{
				id: 'svcPostgresDedup1',
				name: 'Alerts database',
				type: 'postgres',
				data: { host: postgres.host, port: postgres.port, database: postgres.database, user: postgres.user, password: postgres.password, ssl: 'disable' },
			},
		]);
		const workflowId = 'svcDedupRecipe01';
		const webhookId = '5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f';
		const trigger = 'Service Trigger: every copy';
		const url = `${queue.balancer.url}/webhook/${webhookId}/webhook`;
		await n8n.importWorkflows([
			{
				id: workflowId,
				name: 'Deduplicate on alert_id in PostgreSQL',
				nodes: [
					{
						// Ignore Redeliveries off: every accepted copy passes the trigger, only the recipe stops duplicates.
						parameters: { events: ['ledger_high'], ignoreRedeliveries: false },
						id: 'd1', name: trigger, type: 'n8n-nodes-service-reader.serviceTrigger', typeVersion: 2, position: [0, 0], webhookId,
						credentials: { serviceApi: { id: credentialId, name: 'Service API' } },
					},
					{
						parameters: {
							operation: 'executeQuery',
							query:
								'WITH claimed AS (INSERT INTO service_alerts (alert_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING alert_id) SELECT alert_id FROM claimed',
							options: { queryReplacement: '={{ $json.alert_id }}' },
						},
						id: 'd2', name: 'First copy only', type: 'n8n-nodes-base.postgres', typeVersion: 2.6, position: [220, 0],
						credentials: { postgres: { id: 'svcPostgresDedup1', name: 'Alerts database' } },
					},
					{
						parameters: {
							method: 'POST', url: `${sink.url}/dedup`, sendBody: true,
							bodyParameters: { parameters: [{ name: 'alert_id', value: '={{ $json.alert_id }}' }] }, options: {},
						},
						id: 'd3', name: 'Side effect', type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, position: [440, 0],
					},
				],
				connections: {
					[trigger]: { main: [[{ node: 'First copy only', type: 'main', index: 0 }]] },
					'First copy only': { main: [[{ node: 'Side effect', type: 'main', index: 0 }]] },
				},
				settings: {},
			},
		]);
		await n8n.api.activateWorkflow(workflowId);
		await waitFor(
			async () => {
				if (!sandbox.control.webhookEndpoints().some((endpoint) => endpoint.url === url)) return undefined;
				const stored = await n8n.api.request<{ staticData?: Record<string, { endpoints?: Record<string, unknown> }> | null }>(
					'GET',
					`/workflows/${workflowId}`,
				);
				return stored.staticData?.[`node:${trigger}`]?.endpoints?.[url] ? true : undefined;
			},
			{ what: 'the recipe workflow\'s endpoint, registered and stored', timeoutMs: 60_000 },
		);

		const toRecipe = (deliveries: Delivery[]) => statuses(deliveries.filter((delivery) => delivery.url === url));
		const alerts = [];
		for (const organisation of ['KE-1001', 'KE-1004', 'KE-1010']) {
			// Two copies at once (one per webhook process), then two more after they ended.
			const alert = sandbox.control.emit('ledger_high', { organisation });
			sandbox.control.redeliver(alert.alertId);
			expect(toRecipe(await sandbox.control.whenSettled(alert.alertId))).toEqual([200, 200]);
			sandbox.control.redeliver(alert.alertId);
			sandbox.control.redeliver(alert.alertId);
			expect(toRecipe(await sandbox.control.whenSettled(alert.alertId))).toEqual([200, 200, 200, 200]);
			alerts.push(alert.alertId);
		}
		const runs = await n8n.api.waitForExecutions(workflowId, 4 * alerts.length, 120_000);
		const counts = countByAlert(runs, trigger);
		for (const alertId of alerts) expect(counts[alertId]).toBe(4);
		const workers = runs.map((run) => queue.ranOn().get(run.id) ?? 'none');
		for (const worker of workers) expect(worker).toMatch(/^worker-[12]$/);
		console.log(`queue mode, deduplication recipe: ${runs.length} executions on ${JSON.stringify(countBy(workers))}`);
		expect(runs.map((run) => run.status)).toEqual(runs.map(() => 'success'));
		await sink.waitForRequests('/dedup', alerts.length, 30_000);
		const received = sink.received('/dedup').map((request) => JSON.parse(request.body).alert_id as string);
		expect(received.sort()).toEqual([...alerts].sort());
		expect((await queue.services.sql('SELECT alert_id FROM service_alerts ORDER BY alert_id')).trim().split('\n')).toEqual([...alerts].sort());
	}, 300_000);
});
