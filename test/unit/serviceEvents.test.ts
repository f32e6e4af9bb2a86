import {
	eventTypeChoices,
	NAMED_EVENT_TYPES,
	alertIdKey,
	readServiceEvent,
	shouldStartWorkflow,
} from '../../nodes/ServiceTrigger/delivery/events';
import { eventCatalogue } from '../sandbox/events';
import { addLater, triggerAdded } from '../../nodes/shared/addedFields';

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
	it('passes the body on whole, every field in its JSON type, with ke beside it', () => {
		const body = {
			event_type: 'share_granted',
			alert_id: 123,
			ids: { organisation: 'KE-1', report: 'KS-1', nested: { no: 1 }, count: 2 },
			severity: 3,
			occurred_at: 1767225600,
			company_name: 'Extra Field Ltd',
			flags: [true, null],
		};
		expect(readServiceEvent(Buffer.from(JSON.stringify(body)))).toEqual({
			item: { ...body, ke: 'KE-1' },
			eventType: 'share_granted',
			alertKey: 's:123',
			alertId: '123',
		});
	});

	it('keeps a ke (or a company) the Service sent, and puts all its own under _reader', () => {
		const body = { event_type: 'x', alert_id: 'a', ids: { organisation: 'KE-1' }, ke: 'theirs', _reader: 1 };
		const reading = readServiceEvent(Buffer.from(JSON.stringify(body)));
		expect('item' in reading && reading.item).toEqual({ ...body, __reader: { ke: 'KE-1' } });
		const withCompany = { event_type: 'x', alert_id: 'a', ids: { organisation: 'KE-1' }, company: 'theirs' };
		const second = readServiceEvent(Buffer.from(JSON.stringify(withCompany)));
		const withDetails = 'item' in second && addLater(second.item, 'company', { ke: 'KE-1' });
		expect(withDetails).toEqual({ ...withCompany, _reader: { ke: 'KE-1', company: { ke: 'KE-1' } } });
		expect(withDetails && [triggerAdded(withDetails, 'ke'), triggerAdded(withDetails, 'alert_id_bytes')]).toEqual(['KE-1', undefined]);
	});

	it.each([
		['a string', '"al_1"', 'al_1'],
		['an integer', '42', '42'],
		['a number with a fraction', '4.5', '4.5'],
		['a boolean', 'true', 'true'],
		['an object', '{"n":1}', '{"n":1}'],
	])('takes an alert_id that is %s, remembered by its JSON text', (_label, json, key) => {
		const reading = readServiceEvent(Buffer.from(`{"event_type":"ledger_high","alert_id":${json}}`));
		expect(reading).toMatchObject({ alertKey: `s:${key}`, alertId: key, item: { alert_id: JSON.parse(json) } });
		expect(alertIdKey(JSON.parse(json))).toBe(key);
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
		['a null alert_id', '{"event_type":"x","alert_id":null}'],
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
