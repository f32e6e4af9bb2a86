import { NAMED_EVENT_TYPES } from '../../../nodes/ServiceTrigger/delivery/events';
import { secretWindows, useTriggerSetup } from './setup';

const KE = 'KE-1001';

/** ids the sandbox requires per event type (spec section 6 leaves the content of ids open). */
function idsFor(eventType: string): Record<string, string> {
	if (eventType === 'reader_invitation_status') return { invitation: 'INV-0001', organisation: KE };
	if (eventType === 'report_superseded' || eventType === 'finding_new') return { organisation: KE, report: 'KS-1001-v2' };
	if (eventType === 'questionnaire_answered') return { organisation: KE, questionnaire: 'QN-0001' };
	return { organisation: KE };
}

describe('Service Trigger deliveries from the sandbox', () => {
	const setup = useTriggerSetup({ activate: true });

	it('starts the workflow once for every named event type, with the body as the item plus ke', async () => {
		const { control } = setup.sandbox;
		const alerts = NAMED_EVENT_TYPES.map(({ eventType }) => control.emit(eventType, idsFor(eventType)));
		for (const alert of alerts) {
			const [delivery] = await control.whenSettled(alert.alertId);
			expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
			const runs = await setup.executionsOf(alert.alertId);
			expect(runs).toHaveLength(1);
			const body = JSON.parse(alert.body) as Record<string, unknown>;
			expect(runs[0].items).toEqual([{ json: { ...body, ke: KE }, pairedItem: { item: 0 } }]);
			// Every field the Service sent, in its own JSON type (the alt dialect: integer alert_id, numeric severity, more fields).
			expect(Object.keys(runs[0].items[0].json).sort()).toEqual([...Object.keys(body), 'ke'].sort());
		}
		expect(alerts).toHaveLength(10);
	});

	it('reads the raw body itself when n8n did not fill req.rawBody', async () => {
		setup.receiver.fillRawBody = false;
		try {
			const alert = setup.sandbox.control.emit('share_revoked', { organisation: KE });
			await setup.sandbox.control.whenSettled(alert.alertId);
			expect(await setup.executionsOf(alert.alertId)).toHaveLength(1);
		} finally {
			setup.receiver.fillRawBody = true;
		}
	});

	it('never logs or stores the access token or the signing secret', () => {
		const [endpoint] = setup.sandbox.control.webhookEndpoints();
		const logged = JSON.stringify(setup.logs);
		const stored = JSON.stringify(setup.harness.saved);
		for (const part of [...secretWindows(endpoint.secret), ...secretWindows(setup.sandbox.tokens.reader)]) {
			expect(logged).not.toContain(part);
			expect(stored).not.toContain(part);
		}
	});
});

describe('Service Trigger Events parameter', () => {
	const setup = useTriggerSetup({ parameters: { events: ['share_revoked'] }, activate: true });

	it.each([
		['share_revoked', 'selected', 1],
		['ledger_high', 'not selected, but cannot be silenced', 1],
		['share_granted', 'not selected', 0],
		['ledger_medium', 'not selected', 0],
	])('%s (%s) is answered 2xx and starts %i execution(s)', async (eventType, _why, expected) => {
		const alert = setup.sandbox.control.emit(eventType, { organisation: KE });
		const [delivery] = await setup.sandbox.control.whenSettled(alert.alertId);
		expect(delivery.state).toBe('delivered');
		expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
		await setup.receiver.drained();
		expect(setup.receiver.executions.filter((e) => String(e.items[0]?.json.alert_id) === alert.alertId)).toHaveLength(expected);
	});
});
