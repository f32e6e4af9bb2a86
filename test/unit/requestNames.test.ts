import fc from 'fast-check';

import { outsideWindow, windowColumn } from '../../nodes/shared/expiryWindow';
import {
	CONCEPT_IDS,
	REQUEST_CONCEPTS,
	documentedName,
	multipartBody,
	readRequestNames,
	RequestNamesError,
	spokenRequest,
	unechoedConcepts,
	type RequestConcept,
} from '../../nodes/shared/transport/requestNames';
import { runs } from '../property/fc';

const names = (entries: Array<[RequestConcept, string]>) => new Map(entries);
const speak = (scope: Parameters<typeof spokenRequest>[0], body: unknown, qs?: Record<string, unknown>, entries: Array<[RequestConcept, string]> = []) =>
	spokenRequest(scope, body, qs, { names: names(entries), jsonFormat: 'application/json' });

describe('Request Names read from the credential', () => {
	test('rows into a map; empty names and unknown concepts skipped; a concept twice, a shared name or a quote refused', () => {
		const read = (rows: unknown[]) => readRequestNames({ name: rows });
		expect(read([{ concept: 'webhook.url', serviceName: ' target ' }, { concept: 'nope', serviceName: 'x' }, { concept: 'policyRun.ke', serviceName: '' }])).toEqual({
			names: new Map([['webhook.url', 'target']]),
		});
		expect(readRequestNames(undefined)).toEqual({ names: new Map() });
		expect(read([{ concept: 'webhook.url', serviceName: 'a' }, { concept: 'webhook.url', serviceName: 'b' }])).toEqual({
			problem: 'Request Names maps Webhook Endpoint > URL twice ("a" and "b"): keep one row for it.',
		});
		expect(read([{ concept: 'invitation.company_name', serviceName: 'work_email' }])).toEqual({
			problem: 'Request Names sends Invitation > Company Name and Invitation > Work Email under the same name "work_email": give each its own name.',
		});
		// Names on different levels of one body may be equal: the mapping's `group` is not the body's.
		expect(read([{ concept: 'sso.group_role_mapping.group', serviceName: 'provider_type' }])).toHaveProperty('names');
		expect(read([{ concept: 'webhook.url', serviceName: 'a"b' }])).toHaveProperty('problem');
	});
});

describe('spokenRequest', () => {
	test('renames mapped names at their level only, keeps values and other fields as sent, and says what went under which name', () => {
		const body = { provider_type: 'SAML', email_domains: ['a.example'], group_role_mapping: [{ group: 'g', role: 'r' }], group: 'top' };
		const spoken = speak('sso', body, undefined, [['sso.group_role_mapping', 'groups'], ['sso.group_role_mapping.group', 'idpGroup']]);
		expect(spoken.body).toEqual({ provider_type: 'SAML', email_domains: ['a.example'], groups: [{ idpGroup: 'g', role: 'r' }], group: 'top' });
		expect(spoken.sent).toEqual([
			{ concept: 'sso.provider_type', name: 'provider_type' },
			{ concept: 'sso.email_domains', name: 'email_domains' },
			{ concept: 'sso.group_role_mapping', name: 'groups' },
			{ concept: 'sso.group_role_mapping.group', name: 'idpGroup' },
			{ concept: 'sso.group_role_mapping.role', name: 'role' },
		]);
	});

	test('a query: window renamed; format=json asked as the JSON Format Parameter and Value; format=csv as the spec shows it', () => {
		const mapped: Array<[RequestConcept, string]> = [['export.window', 'within_days'], ['export.json_format', 'output']];
		expect(speak('export', undefined, { format: 'json', window: '30', cursor: 'c' }, mapped).qs).toEqual({ output: 'application/json', within_days: '30', cursor: 'c' });
		expect(speak('export', undefined, { format: 'csv', window: '30' }, mapped).qs).toEqual({ format: 'csv', within_days: '30' });
		expect(speak('export', undefined, { format: 'json' }).qs).toEqual({ format: 'application/json' });
	});

	test('a renamed field that would take the place of another field is refused; bytes and calls without names pass untouched', () => {
		expect(() => speak('policyRun', { ke: 'KE-1', company: 'x' }, undefined, [['policyRun.ke', 'company']])).toThrow(RequestNamesError);
		const bytes = Buffer.from('a,b');
		expect(speak('invitation', bytes).body).toBe(bytes);
		expect(speak(undefined, { url: 'u' }, { window: '1' })).toEqual({ body: { url: 'u' }, qs: { window: '1' }, sent: [] });
	});

	test('property: with any names mapped, the Service gets each value under its name and nothing else changes', () => {
		const invitationConcepts = CONCEPT_IDS.filter((id) => id.startsWith('invitation.') && REQUEST_CONCEPTS[id].where === 'body');
		fc.assert(
			fc.property(
				fc.uniqueArray(fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,11}$/), { minLength: 4, maxLength: 4 }),
				fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
				fc.array(fc.string(), { minLength: 4, maxLength: 4 }),
				(drawnNames, mappedFlags, values) => {
					const mapped = invitationConcepts.flatMap((id, i): Array<[RequestConcept, string]> => (mappedFlags[i] ? [[id, drawnNames[i]]] : []));
					// Names the unmapped ones keep must not be drawn for the mapped ones.
					fc.pre(mapped.every(([, name]) => !invitationConcepts.some((id) => documentedName(id) === name)));
					const body = Object.fromEntries(invitationConcepts.map((id, i) => [documentedName(id), values[i]]));
					const spoken = speak('invitation', body, undefined, mapped).body as Record<string, string>;
					invitationConcepts.forEach((id, i) => {
						const name = mapped.find(([concept]) => concept === id)?.[1] ?? documentedName(id);
						expect(spoken[name]).toBe(values[i]);
					});
					expect(Object.keys(spoken)).toHaveLength(4);
				},
			),
			runs(200),
		);
	});
});

test('unechoedConcepts: a sent value answered empty under the same name or one that reads the same; a normalised one is not', () => {
	const sent = speak('invitation', { company_name: 'A', reader_reference: 'R' }).sent;
	const body = { company_name: 'A', reader_reference: 'R' };
	expect(unechoedConcepts(body, sent, { company_name: 'a', readerReference: '' })).toEqual([{ concept: 'invitation.reader_reference', name: 'reader_reference' }]);
	expect(unechoedConcepts(body, sent, { data: { company_name: null } })).toEqual([{ concept: 'invitation.company_name', name: 'company_name' }]);
	expect(unechoedConcepts(body, sent, { id: 'INV-1' })).toEqual([]);
});

test('multipartBody: one part holding the bytes as they are, in the named field', () => {
	const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0xff]);
	const { body, contentType } = multipartBody('upload', 'invitations.csv', 'text/csv', bytes);
	const boundary = /boundary=(\S+)$/.exec(contentType)![1];
	const text = body.toString('latin1');
	expect(text.startsWith(`--${boundary}\r\nContent-Disposition: form-data; name="upload"; filename="invitations.csv"\r\nContent-Type: text/csv\r\n\r\n`)).toBe(true);
	expect(text.endsWith(`\r\n--${boundary}--\r\n`)).toBe(true);
	expect(body.includes(bytes)).toBe(true);
});

describe('expiry window', () => {
	const now = Date.parse('2026-01-10T12:00:00Z');
	const window = { days: 30, parameter: 'window', now };
	test('found by name (days before an end date), else the one date-shaped value', () => {
		expect(windowColumn(['kind', 'ends_on', 'window_days'])).toEqual({ kind: 'days', column: 'window_days' });
		expect(windowColumn(['Ends On', 'kind'])).toEqual({ kind: 'date', column: 'Ends On' });
		expect(windowColumn(['kind', 'when'], { kind: 'share', when: '2026-02-01' })).toEqual({ kind: 'date', column: 'when' });
		expect(windowColumn(['a', 'b'], { a: '2026-02-01', b: '2026-03-01' })).toBeUndefined();
	});
	test('a row beyond the window is outside; within (a day of slack), empty or unreadable is not', () => {
		expect(outsideWindow({ window_days: '60' }, { kind: 'days', column: 'window_days' }, window)).toBe('its window_days is 60');
		expect(outsideWindow({ window_days: 30 }, { kind: 'days', column: 'window_days' }, window)).toBeUndefined();
		expect(outsideWindow({ window_days: '' }, { kind: 'days', column: 'window_days' }, window)).toBeUndefined();
		expect(outsideWindow({ ends_on: '2026-02-10' }, { kind: 'date', column: 'ends_on' }, window)).toBeUndefined();
		expect(outsideWindow({ ends_on: '2026-02-11' }, { kind: 'date', column: 'ends_on' }, window)).toBe('its ends_on is 2026-02-11');
	});
});
