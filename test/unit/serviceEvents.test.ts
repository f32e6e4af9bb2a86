import {
	eventTypeChoices,
	NAMED_EVENT_TYPES,
	readServiceEvent,
	shouldStartWorkflow,
} from '../../nodes/ServiceTrigger/events';
import { eventCatalogue } from '../sandbox/events';

describe('shouldStartWorkflow', () => {
	it('starts every event when nothing is selected', () => {
		expect(shouldStartWorkflow('share_granted', [])).toBe(true);
	});

	it('starts only selected events, and ledger_high always', () => {
		expect(shouldStartWorkflow('share_granted', ['share_revoked'])).toBe(false);
		expect(shouldStartWorkflow('share_revoked', ['share_revoked'])).toBe(true);
		expect(shouldStartWorkflow('ledger_high', ['share_revoked'])).toBe(true);
		expect(shouldStartWorkflow('ledger_medium', ['share_revoked'])).toBe(false);
	});
});

describe('readServiceEvent', () => {
	it('takes the documented fields only and adds ke', () => {
		const body = {
			event_type: 'share_granted',
			alert_id: 'al_1',
			ids: { organisation: 'KE-1', report: 'KS-1', nested: { no: 1 } },
			severity: 'info',
			occurred_at: '2026-01-01T00:00:00.000Z',
			company_name: 'Should Not Pass Ltd',
		};
		expect(readServiceEvent(Buffer.from(JSON.stringify(body)))).toEqual({
			item: {
				event_type: 'share_granted',
				alert_id: 'al_1',
				ids: { organisation: 'KE-1', report: 'KS-1' },
				severity: 'info',
				occurred_at: '2026-01-01T00:00:00.000Z',
				ke: 'KE-1',
			},
		});
	});

	it('gives ke null when the event names no company', () => {
		const body = { event_type: 'reader_invitation_status', alert_id: 'al_2', ids: { invitation: 'INV-1' } };
		const reading = readServiceEvent(Buffer.from(JSON.stringify(body)));
		expect('item' in reading && reading.item.ke).toBeNull();
	});

	it.each([
		['not JSON', '{'],
		['not an object', '[1]'],
		['no event_type', '{"alert_id":"a"}'],
		['no alert_id', '{"event_type":"x"}'],
	])('reports a problem: %s', (_name, text) => {
		expect(readServiceEvent(Buffer.from(text))).toHaveProperty('problem');
	});
});

describe('eventTypeChoices', () => {
	it('falls back to the ten named events of spec section 6, sorted', () => {
		const choices = eventTypeChoices(undefined).map((c) => c.eventType);
		expect(choices).toHaveLength(10);
		expect(choices).toEqual([...NAMED_EVENT_TYPES.map((e) => e.eventType)].sort());
	});

	it('offers every catalogue entry, says that ledger_high cannot be silenced', () => {
		const choices = eventTypeChoices(eventCatalogue.map((e) => ({ event_type: e.event_type, description: e.description })));
		expect(choices.map((c) => c.eventType)).toEqual(eventCatalogue.map((e) => e.event_type).sort());
		// Leading, so the dropdown's two visible lines still show it.
		expect(choices.find((c) => c.eventType === 'ledger_high')!.description).toMatch(/^Always starts the workflow\. Status change/);
	});

	it('skips malformed catalogue entries and keeps the named events', () => {
		const choices = eventTypeChoices([null, 1, { event_type: '' }, { event_type: 'ledger_low' }]).map((c) => c.eventType);
		expect(choices).toContain('ledger_low');
		expect(choices).toContain('share_granted');
		expect(choices).toHaveLength(11);
	});
});
