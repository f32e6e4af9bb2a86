import { eventTypeChoices } from '../../nodes/ServiceTrigger/delivery/events';
import { deliveryVerdict } from '../../nodes/ServiceTrigger/verify/verdict';
import { matchImportAnswer } from '../../nodes/ServiceReader/actions/invitation/import/invitationImport';
import { listFromBody } from '../../nodes/shared/answerShape';
import { readErrorBody } from '../../nodes/shared/transport/errors';
import { readCreatedEndpoint } from '../../nodes/shared/webhookEndpoint';
import { createHmac } from 'node:crypto';

import { keysAtHand } from './keysAtHand';

// What a Service that chose other names than the default dialect sends: found by name, then by
// shape, never dropped.
describe('lists under other names', () => {
	test.each([
		[{ results: [1] }],
		[{ records: [1] }],
		[{ page: { n: 1 }, event_catalogue: [1] }],
		[[1]],
	])('%j', (body) => {
		expect(listFromBody(body)).toEqual([1]);
	});

	test('two arrays and no conventional name is ambiguous: the error shows what was sent', () => {
		expect(() => listFromBody({ a: [1], b: [2] })).toThrow('The Service answered with something other than a list: {"a":[1],"b":[2]}');
	});
});

describe('catalogue entries under other names', () => {
	test('type/summary, name/title and bare names are all listed, with the named events kept', () => {
		const choices = eventTypeChoices([
			{ type: 'ledger_low', summary: 'A minor register change' },
			{ name: 'grant_expiring', title: 'A grant ends soon' },
			'questionnaire_sent',
		]);
		const byType = Object.fromEntries(choices.map((choice) => [choice.eventType, choice.description]));
		expect(byType.ledger_low).toBe('A minor register change');
		expect(byType.grant_expiring).toBe('A grant ends soon');
		expect(byType.questionnaire_sent).toBe('');
		expect(byType.share_revoked).toBe('A share ended');
	});
});

describe('a JSON:API catalogue', () => {
	test("each resource's event type is its attributes' event_type or its id, never its resource type", () => {
		const choices = eventTypeChoices([
			{ type: 'event-types', id: 'ledger_low', attributes: { description: 'A minor register change' } },
			{ type: 'event-types', id: 'evt_2', attributes: { event_type: 'grant_expiring', summary: 'A grant ends soon' } },
			// As the transport hands it over: the attributes also beside the resource (envelopes.ts).
			{ type: 'event-types', id: 'questionnaire_sent', attributes: { name: 'Questionnaire sent' }, name: 'Questionnaire sent' },
		]);
		const byType = new Map(choices.map((choice) => [choice.eventType, choice.description]));
		expect(byType.get('ledger_low')).toBe('A minor register change');
		expect(byType.get('grant_expiring')).toBe('A grant ends soon');
		expect(byType.has('questionnaire_sent')).toBe(true);
		expect(byType.has('event-types')).toBe(false);
		expect(byType.get('share_revoked')).toBe('A share ended');
	});
});

describe('invitation import answers under other names', () => {
	test('reason, status and line numbers are read; every field the Service sent is kept', () => {
		const rows = matchImportAnswer(
			{
				results: [
					{ line: 1, status: 'accepted', invitationId: 'inv_1', note: 'Invitation sent' },
					{ line: 2, status: 'rejected', reason: 'The work email has no domain', field: 'work_email' },
				],
			},
			2,
		);
		expect(rows.map(({ row, ok, check, invitation_id }) => ({ row, ok, check, invitation_id }))).toEqual([
			{ row: 1, ok: true, check: 'Invitation sent', invitation_id: 'inv_1' },
			{ row: 2, ok: false, check: 'The work email has no domain', invitation_id: undefined },
		]);
		expect(rows[1].said).toEqual({ line: 2, status: 'rejected', reason: 'The work email has no domain', field: 'work_email' });
	});

	test('the one other text of a refused row is its reason; rows without numbers are in order', () => {
		const rows = matchImportAnswer([{ accepted: false, explanation_text: 'Duplicate of row 1' }, { accepted: true }], 2);
		expect(rows.map((row) => [row.row, row.ok, row.check])).toEqual([
			[1, false, 'Duplicate of row 1'],
			[2, true, ''],
		]);
	});
});

describe('error bodies under other names', () => {
	test.each([
		[{ errors: [{ code: 'share_ended', message: 'The share ended' }] }, { code: 'share_ended', message: 'The share ended' }],
		[{ error: 'invalid_token', error_description: 'Token expired' }, { code: 'invalid_token', message: 'Token expired' }],
		[{ title: 'Not Found', detail: 'No such pack' }, { code: undefined, message: 'No such pack' }],
		[{ error_code: 'E42', error_message: 'Bad row' }, { code: 'E42', message: 'Bad row' }],
		['Service unavailable, try later', { message: 'Service unavailable, try later' }],
	])('%j', (body, expected) => {
		expect(readErrorBody(body)).toEqual(expected);
	});
});

describe('created endpoints under other names', () => {
	test.each([
		[{ endpoint_id: 7, signing_secret: 'whsec_a' }, { id: '7', secret: 'whsec_a' }],
		[{ data: { id: 'we_1', webhookSecret: 'whsec_b' } }, { id: 'we_1', secret: 'whsec_b' }],
		[{ webhook: { uuid: 'u-1', secret_key: 'k' } }, { id: 'u-1', secret: 'k' }],
	])('%j', (body, expected) => {
		expect(readCreatedEndpoint(body)).toEqual(expected);
	});
});

describe('v1 encoding detected from its length', () => {
	const key = Buffer.from('0123456789abcdef0123456789abcdef');
	const body = Buffer.from('{"alert_id":"al_1"}');
	const t = 1_800_000_000;
	const mac = createHmac('sha256', key).update(`${t}.`).update(body).digest();
	test.each([
		['hex', mac.toString('hex')],
		['base64', mac.toString('base64')],
		['base64url', mac.toString('base64url')],
	])('%s verifies with Detect', async (_, v1) => {
		const verdict = await deliveryVerdict({ header: `t=${t},v1=${v1}`, rawBody: body, clock: () => t * 1000 }, keysAtHand([key], 'auto'));
		expect(verdict).toEqual({ ok: true, timestamp: t });
	});
});
