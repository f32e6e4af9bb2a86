import { processMemory } from '../../../nodes/ServiceTrigger/delivery/redelivery';
import { deduplicationStore } from '../../harness';
import { retryOffsetsSeconds } from '../../sandbox';
import { expectNoToken } from '../../property/tokenDecoders';
import { encodeToken } from '../../sandbox/tokenForms';
import { useTriggerSetup } from './setup';

const KE = 'KE-1001';

// 86400: the sandbox runs its 24-hour retry schedule in about a second.
const timeScale = 86_400;

describe('Service Trigger and redeliveries (Ignore Redeliveries on, the default)', () => {
	const setup = useTriggerSetup({ sandbox: { timeScale }, activate: true });

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
		expect(await setup.executionsOf(alert.alertId)).toHaveLength(1);
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
		expect(await setup.executionsOf(alert.alertId)).toHaveLength(1);
	});

	it('answers 5xx through a proxy while n8n is away, then one execution when it is back', async () => {
		const { control } = setup.sandbox;
		setup.receiver.outage({ mode: 'status', status: 503, requests: 3 });
		const alert = control.emit('report_superseded', { organisation: KE, report: 'KS-1001-v2' });
		const [delivery] = await control.whenSettled(alert.alertId);

		expect(delivery.attempts.map((a) => a.status)).toEqual([503, 503, 503, 200]);
		expect(await setup.executionsOf(alert.alertId)).toHaveLength(1);
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
		expect(await setup.executionsOf(alert.alertId)).toHaveLength(1);
	});

	it('answers 500 when n8n cannot store the execution, and the retry then starts the workflow', async () => {
		const { control } = setup.sandbox;
		// n8n runs webhook() but its database refuses the new execution (e.g. SQLite locked under load).
		setup.receiver.outage({ mode: 'executionNotStored', requests: 1 });
		const alert = control.emit('ledger_high', { organisation: KE });
		const [delivery] = await control.whenSettled(alert.alertId);

		expect(delivery.attempts.map((a) => a.status)).toEqual([500, 200]);
		expect(await setup.executionsOf(alert.alertId)).toHaveLength(1);
	});

	it('an alert_id quoting the access token (HTML-escaped) is logged without it when its redelivery is refused', async () => {
		const { control } = setup.sandbox;
		await setup.receiver.drained();
		setup.receiver.executionDelayMs = 300;
		try {
			const alert = control.emit('ledger_high', { organisation: KE }, { alertId: `al_${encodeToken(setup.sandbox.tokens.reader, 'htmlHex')}` });
			await control.whenSettled(alert.alertId);
			const logsBefore = setup.logs.length;
			control.redeliver(alert.alertId);
			await control.whenSettled(alert.alertId);
			await setup.receiver.drained();
			const lines = setup.logs.slice(logsBefore).map((l) => l.message);
			expect(lines).toEqual(['Service Trigger: alert al_*** (ledger_high) was already passed on; this redelivery starts nothing.']);
			expectNoToken(JSON.stringify(lines), setup.sandbox.tokens.reader);
		} finally {
			setup.receiver.executionDelayMs = 0;
		}
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
			expect(setup.receiver.executions.slice(executionsBefore).map((e) => e.items.map((i) => String(i.json.alert_id)))).toEqual([[alert.alertId]]);
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
			processMemory.forgetAll();
			const logsBefore = setup.logs.length;
			control.redeliver(alert.alertId);
			await control.whenSettled(alert.alertId);
			await setup.receiver.drained();

			// Two executions; the second one's trigger step found the alert in n8n's deduplication store and passed nothing on.
			expect(setup.receiver.executions.slice(executionsBefore).map((e) => e.items.map((i) => String(i.json.alert_id)))).toEqual([
				[alert.alertId],
				[],
			]);
			expect(setup.logs.slice(logsBefore).map((l) => l.message)).toEqual([
				`Service Trigger: alert ${alert.alertId} (ledger_high) was already passed on by an earlier execution; this copy goes no further.`,
			]);
		} finally {
			setup.receiver.executionDelayMs = 0;
		}
	});

	it('remembers passed-on alerts in n8n\'s deduplication store, so a redelivery after an n8n restart goes no further than the trigger', async () => {
		const { control } = setup.sandbox;
		const alert = control.emit('share_granted', { organisation: KE });
		await control.whenSettled(alert.alertId);
		await setup.receiver.drained();
		const executionsBefore = setup.receiver.executions.length;

		// A new n8n process: the saved static data and database, an empty process memory.
		setup.harness = setup.harness.restart();
		processMemory.forgetAll();
		const logsBefore = setup.logs.length;
		control.redeliver(alert.alertId);
		const deliveries = await control.whenSettled(alert.alertId);
		await setup.receiver.drained();

		expect(deliveries.map((d) => d.attempts.map((a) => a.status))).toEqual([[200], [200]]);
		// The redelivery's execution passes nothing on: the workflow does not act on the alert twice.
		expect(setup.receiver.executions.slice(executionsBefore).map((e) => e.items)).toEqual([[]]);
		expect(await setup.executionsOf(alert.alertId)).toHaveLength(1);
		expect(setup.logs.slice(logsBefore).map((l) => l.message)).toEqual([
			`Service Trigger: alert ${alert.alertId} (share_granted) was already passed on by an earlier execution; this copy goes no further.`,
		]);
	});

	it('never writes the memory into static data, which executions would save over a newer activation', async () => {
		await setup.receiver.drained();
		expect(Object.keys(setup.harness.savedNodeData())).toEqual(['endpoints']);
		const records = [...deduplicationStore.records.values()];
		expect(records.length).toBeGreaterThan(0);
		expect(records.every((record) => record.data.length <= 10_000)).toBe(true);
	});

	it('starts the workflow once for copies that arrive together, and for overlapping executions keeps every alert after a restart', async () => {
		const { control } = setup.sandbox;
		await setup.receiver.drained();
		const executionsBefore = setup.receiver.executions.length;
		setup.receiver.executionDelayMs = 300;
		try {
			// Five copies of one alert at the same moment, and three alerts whose executions overlap.
			const together = control.emit('ledger_high', { organisation: KE });
			for (let copy = 0; copy < 4; copy++) control.redeliver(together.alertId);
			const overlapping = ['share_revoked', 'report_superseded', 'finding_new'].map((event) => control.emit(event, { organisation: KE }));
			for (const alert of [together, ...overlapping]) await control.whenSettled(alert.alertId);
			await setup.receiver.drained();

			const passedOn = setup.receiver.executions.slice(executionsBefore).flatMap((e) => e.items.map((i) => String(i.json.alert_id)));
			expect(passedOn.filter((id) => id === together.alertId)).toHaveLength(1);
			expect(passedOn).toEqual(expect.arrayContaining(overlapping.map((alert) => alert.alertId)));

			// Restart, then redeliver all of them: none reaches the workflow again.
			setup.harness = setup.harness.restart();
			processMemory.forgetAll();
			const after = setup.receiver.executions.length;
			for (const alert of [together, ...overlapping]) control.redeliver(alert.alertId);
			for (const alert of [together, ...overlapping]) await control.whenSettled(alert.alertId);
			await setup.receiver.drained();
			expect(setup.receiver.executions.slice(after).flatMap((e) => e.items)).toEqual([]);
		} finally {
			setup.receiver.executionDelayMs = 0;
		}
	});
});

describe('Service Trigger with Ignore Redeliveries off', () => {
	const setup = useTriggerSetup({ parameters: { ignoreRedeliveries: false }, sandbox: { timeScale }, activate: true });

	it('starts an execution for every delivery of the same alert_id and remembers nothing', async () => {
		const { control } = setup.sandbox;
		const alert = control.emit('ledger_high', { organisation: KE });
		await control.whenSettled(alert.alertId);
		control.redeliver(alert.alertId);
		await control.whenSettled(alert.alertId);

		await setup.receiver.drained();
		expect(setup.receiver.executions.filter((e) => String(e.items[0]?.json.alert_id) === alert.alertId)).toHaveLength(2);
		expect(Object.keys(setup.harness.savedNodeData())).toEqual(['endpoints']);
	});
});
