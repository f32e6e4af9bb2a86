import { answeredAlerts } from '../../../nodes/ServiceTrigger/passedOn';
import { liveAlerts } from '../../../nodes/shared/redeliveryMemory';
import { retryOffsetsSeconds } from '../../sandbox';
import { startTriggerSetup, type TriggerSetup } from './setup';

const KE = 'KE-1001';

// 86400: the sandbox runs its 24-hour retry schedule in about a second.
const timeScale = 86_400;

describe('Service Trigger and redeliveries (Ignore Redeliveries on, the default)', () => {
	let setup: TriggerSetup;

	beforeAll(async () => {
		setup = await startTriggerSetup({ sandbox: { timeScale } });
		await setup.harness.activate();
	});

	afterAll(async () => {
		await setup.harness.deactivate();
		await setup.close();
	});

	async function executionsOf(alertId: string) {
		await setup.receiver.drained();
		return setup.receiver.executions.filter((e) => e.items[0]?.json.alert_id === alertId);
	}

	it('starts one execution, not two, when the same alert_id is delivered again', async () => {
		const { control } = setup.sandbox;
		const alert = control.emit('ledger_high', { organisation: KE });
		await control.whenSettled(alert.alertId);
		control.redeliver(alert.alertId);
		const deliveries = await control.whenSettled(alert.alertId);

		expect(deliveries.map((d) => [d.kind, d.state, d.attempts.map((a) => a.status)])).toEqual([
			['event', 'delivered', [200]],
			['redelivery', 'delivered', [200]],
		]);
		expect(await executionsOf(alert.alertId)).toHaveLength(1);
		expect(setup.logs.some((l) => l.message.includes(`alert ${alert.alertId} (ledger_high) was already passed on`))).toBe(true);
	});

	it('ends the 24-hour retry schedule in exactly one execution when n8n comes back for the last attempt', async () => {
		const { control } = setup.sandbox;
		const offsets = retryOffsetsSeconds();
		expect(offsets[offsets.length - 1]).toBe(24 * 60 * 60);
		// n8n is down (connections dropped) for every attempt but the last.
		setup.receiver.outage({ mode: 'down', requests: offsets.length - 1 });

		const alert = control.emit('share_revoked', { organisation: KE });
		const [delivery] = await control.whenSettled(alert.alertId);

		expect(delivery.state).toBe('delivered');
		expect(delivery.attempts.map((a) => a.offsetSeconds)).toEqual(offsets);
		expect(delivery.attempts.slice(0, -1).every((a) => a.status === undefined && a.error !== undefined)).toBe(true);
		expect(delivery.attempts[delivery.attempts.length - 1].status).toBe(200);
		expect(await executionsOf(alert.alertId)).toHaveLength(1);
	});

	it('answers 5xx through a proxy while n8n is away, then one execution when it is back', async () => {
		const { control } = setup.sandbox;
		setup.receiver.outage({ mode: 'status', status: 503, requests: 3 });
		const alert = control.emit('report_superseded', { organisation: KE, report: 'KS-1001-v2' });
		const [delivery] = await control.whenSettled(alert.alertId);

		expect(delivery.attempts.map((a) => a.status)).toEqual([503, 503, 503, 200]);
		expect(await executionsOf(alert.alertId)).toHaveLength(1);
	});

	it('starts one execution when n8n ran the workflow but its 2xx was lost and the Service retried', async () => {
		const { control } = setup.sandbox;
		// The node runs each time, but the answer the Service sees is 502 for the first two attempts.
		setup.receiver.outage({ mode: 'lostAnswer', status: 502, requests: 2 });
		const answersBefore = setup.receiver.answers.length;
		const alert = control.emit('finding_new', { organisation: KE, report: 'KS-1001-v3' });
		const [delivery] = await control.whenSettled(alert.alertId);

		expect(delivery.attempts.map((a) => a.status)).toEqual([502, 502, 200]);
		// webhook() ran for all three attempts; only the first passed the alert on.
		expect(setup.receiver.answers.slice(answersBefore)).toEqual([
			{ kind: 'production', status: 502, handled: true },
			{ kind: 'production', status: 502, handled: true },
			{ kind: 'production', status: 200, handled: true },
		]);
		expect(await executionsOf(alert.alertId)).toHaveLength(1);
	});

	it('answers 500 when n8n cannot store the execution, and the retry then starts the workflow', async () => {
		const { control } = setup.sandbox;
		// n8n runs webhook() but its database refuses the new execution (e.g. SQLite locked under load).
		setup.receiver.outage({ mode: 'executionNotStored', requests: 1 });
		const alert = control.emit('ledger_high', { organisation: KE });
		const [delivery] = await control.whenSettled(alert.alertId);

		expect(delivery.attempts.map((a) => a.status)).toEqual([500, 200]);
		expect(await executionsOf(alert.alertId)).toHaveLength(1);
	});

	it('starts nothing for a redelivery that arrives while the first copy\'s execution is still waiting to run', async () => {
		const { control } = setup.sandbox;
		await setup.receiver.drained();
		const executionsBefore = setup.receiver.executions.length;
		setup.receiver.executionDelayMs = 300;
		try {
			const alert = control.emit('ledger_high', { organisation: KE });
			await control.whenSettled(alert.alertId);
			// Answered, but the execution (which writes the memory into static data) has not ended.
			expect(setup.receiver.executions).toHaveLength(executionsBefore);
			const logsBefore = setup.logs.length;
			control.redeliver(alert.alertId);
			const deliveries = await control.whenSettled(alert.alertId);
			await setup.receiver.drained();

			expect(deliveries.map((d) => d.attempts.map((a) => a.status))).toEqual([[200], [200]]);
			expect(setup.receiver.executions.slice(executionsBefore).map((e) => e.items.map((i) => i.json.alert_id))).toEqual([[alert.alertId]]);
			expect(setup.logs.slice(logsBefore).map((l) => l.message)).toEqual([
				`Service Trigger: alert ${alert.alertId} (ledger_high) was already passed on; this redelivery starts nothing.`,
			]);
		} finally {
			setup.receiver.executionDelayMs = 0;
		}
	});

	it('passes a copy no further when another process started it and its execution ended first', async () => {
		const { control } = setup.sandbox;
		await setup.receiver.drained();
		const executionsBefore = setup.receiver.executions.length;
		setup.receiver.executionDelayMs = 200;
		try {
			const alert = control.emit('ledger_high', { organisation: KE });
			await control.whenSettled(alert.alertId);
			// The copy goes to another webhook process (queue mode), which never answered this alert.
			answeredAlerts.forgetAll();
			const logsBefore = setup.logs.length;
			control.redeliver(alert.alertId);
			await control.whenSettled(alert.alertId);
			await setup.receiver.drained();

			// Two executions; the second one's trigger step found the alert in static data and passed nothing on.
			expect(setup.receiver.executions.slice(executionsBefore).map((e) => e.items.map((i) => i.json.alert_id))).toEqual([
				[alert.alertId],
				[],
			]);
			expect(setup.logs.slice(logsBefore).map((l) => l.message)).toEqual([
				`Service Trigger: alert ${alert.alertId} (ledger_high) was already passed on by another execution; this copy goes no further.`,
			]);
		} finally {
			setup.receiver.executionDelayMs = 0;
		}
	});

	it('remembers passed-on alerts in static data, so a redelivery after an n8n restart starts nothing', async () => {
		const { control } = setup.sandbox;
		const alert = control.emit('share_granted', { organisation: KE });
		await control.whenSettled(alert.alertId);
		await setup.receiver.drained();
		const seen = liveAlerts(setup.harness.savedNodeData().seenAlerts, Date.now());
		expect(seen.map(([id]) => id)).toContain(alert.alertId);

		// A new n8n process: the saved static data, an empty process memory.
		setup.harness = setup.harness.restart();
		answeredAlerts.forgetAll();
		const logsBefore = setup.logs.length;
		control.redeliver(alert.alertId);
		const deliveries = await control.whenSettled(alert.alertId);

		expect(deliveries.map((d) => d.attempts.map((a) => a.status))).toEqual([[200], [200]]);
		expect(await executionsOf(alert.alertId)).toHaveLength(1);
		expect(setup.logs.slice(logsBefore).map((l) => l.message)).toEqual([
			`Service Trigger: alert ${alert.alertId} (share_granted) was already passed on; this redelivery starts nothing.`,
		]);
	});

	it('keeps the memory of passed-on alerts bounded in static data', async () => {
		await setup.receiver.drained();
		const stored = setup.harness.savedNodeData().seenAlerts;
		expect(typeof stored).toBe('string');
		const seen = liveAlerts(stored, Date.now());
		expect(seen.length).toBeGreaterThan(0);
		expect(seen.length).toBe(new Set(seen.map(([id]) => id)).size);
		expect(seen.length).toBeLessThanOrEqual(1000);
		expect(seen.map(([id]) => id)).toEqual(expect.arrayContaining(setup.receiver.executions.flatMap((e) => e.items.map((i) => i.json.alert_id))));
	});
});

describe('Service Trigger with Ignore Redeliveries off', () => {
	let setup: TriggerSetup;

	beforeAll(async () => {
		setup = await startTriggerSetup({ parameters: { ignoreRedeliveries: false }, sandbox: { timeScale } });
		await setup.harness.activate();
	});

	afterAll(async () => {
		await setup.harness.deactivate();
		await setup.close();
	});

	it('starts an execution for every delivery of the same alert_id and remembers nothing', async () => {
		const { control } = setup.sandbox;
		const alert = control.emit('ledger_high', { organisation: KE });
		await control.whenSettled(alert.alertId);
		control.redeliver(alert.alertId);
		await control.whenSettled(alert.alertId);

		await setup.receiver.drained();
		expect(setup.receiver.executions.filter((e) => e.items[0]?.json.alert_id === alert.alertId)).toHaveLength(2);
		expect(setup.harness.savedNodeData().seenAlerts).toBeUndefined();
	});
});
