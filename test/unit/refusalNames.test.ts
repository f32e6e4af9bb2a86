import { readErrorBody } from '../../nodes/shared/transport/errors';
import { closeness, nameWords, pairNames, type PairingRow } from '../../nodes/shared/transport/namePairing';
import { errorBodyWords, namesHint, refusalNames } from '../../nodes/shared/transport/refusalNames';
import { conceptLabel, CONCEPT_IDS, documentedName, REQUEST_CONCEPTS, spokenRequest } from '../../nodes/shared/transport/requestNames';

const speak = (scope: Parameters<typeof spokenRequest>[0], body: unknown) => spokenRequest(scope, body, undefined, { names: new Map(), jsonFormat: 'json' });
const hint = (status: number, body: unknown, request: Parameters<typeof namesHint>[2]) => {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	const said = readErrorBody(Buffer.from(text));
	return namesHint(status, errorBodyWords(text, said.message, said.code), request);
};
const invitationSent = speak('invitation', { company_name: 'a', registration_number: 'b', work_email: 'c' }).sent;
const invitation = { scope: 'invitation' as const, sent: invitationSent };
const rows = (scope: string): PairingRow[] =>
	CONCEPT_IDS.filter((id) => REQUEST_CONCEPTS[id].scope === scope && REQUEST_CONCEPTS[id].where !== 'type').map((id) => ({ id, documented: documentedName(id), label: conceptLabel(id) }));
const SETTING = '(Request Names under Advanced Settings in the Service API credential.)';
const THREE_ROWS = [
	'The Service answered 422 naming `name`, `registration_no`, `email`, which the node did not send.',
	'Set Request Names > Invitation > Company Name to `name` (sent as `company_name`).',
	'Set Request Names > Invitation > Registration Number to `registration_no` (sent as `registration_number`).',
	'Set Request Names > Invitation > Work Email to `email` (sent as `work_email`).',
	SETTING,
].join(' ');

describe('pairing a name with a row', () => {
	test('words of a name, whatever its case or separators', () => {
		expect(nameWords('registration_no')).toEqual(['registration', 'no']);
		expect(nameWords('registrationNo')).toEqual(['registration', 'no']);
		expect(nameWords('XMLParser-v2')).toEqual(['xml', 'parser', 'v2']);
		expect(nameWords('Work Email')).toEqual(['work', 'email']);
	});

	test('a known name first, then shared words and short forms; a contraction alone is not a pairing', () => {
		const [company, registration, email] = rows('invitation');
		expect(closeness('companyName', company)).toBe(100);
		expect(closeness('company', company)).toBe(100);
		expect(closeness('registration_no', registration)).toBe(100);
		expect(closeness('registration_nbr', registration)).toBe(4);
		expect(closeness('reg_num', registration)).toBe(4);
		expect(closeness('work_mail', email)).toBe(5);
		expect(closeness('contact_email', company)).toBe(0);
		expect(closeness('nme', company)).toBe(1);
	});

	test('each row its one best name; a name two rows fit as well is open with both, never picked', () => {
		expect(pairNames(['name', 'registration_no', 'email'], rows('invitation'))).toEqual({
			pairs: [
				{ name: 'name', row: 'invitation.company_name' },
				{ name: 'registration_no', row: 'invitation.registration_number' },
				{ name: 'email', row: 'invitation.work_email' },
			],
			open: [],
		});
		// `reference_number` shares a word with Registration Number and one with Reader Reference.
		expect(pairNames(['reference_number'], rows('invitation'))).toEqual({ pairs: [], open: [{ name: 'reference_number', rows: ['invitation.registration_number', 'invitation.reader_reference'] }] });
		// With `registration` taken by Registration Number, `reference_number` is Reader Reference's.
		expect(pairNames(['registration', 'reference_number'], rows('invitation')).pairs).toEqual([
			{ name: 'registration', row: 'invitation.registration_number' },
			{ name: 'reference_number', row: 'invitation.reader_reference' },
		]);
		expect(pairNames(['colour', 'GB1'], rows('invitation'))).toEqual({ pairs: [], open: [] });
	});
});

describe('the names a refusal gives, in every shape', () => {
	const names = (body: unknown) => {
		const text = typeof body === 'string' ? body : JSON.stringify(body);
		const said = readErrorBody(Buffer.from(text));
		return refusalNames(errorBodyWords(text, said.message, said.code)).names;
	};
	test.each([
		['a list in words', 'Missing required fields: name, registration_no, email', ['name', 'registration_no', 'email']],
		['a list with and', { error: { code: 'invalid', message: 'Required parameters name, registration_no and email were not given.' } }, ['name', 'registration_no', 'email']],
		['JSON:API source.pointer', { errors: [{ detail: 'is required', source: { pointer: '/data/attributes/name' } }, { detail: 'is required', source: { pointer: '/data/attributes/email' } }] }, ['name', 'data.attributes.name', 'email', 'data.attributes.email']],
		['errors[] with field, name, path', { errors: [{ field: 'name' }, { name: 'registration_no' }, { path: ['body', 'email'] }] }, ['name', 'registration_no', 'body', 'email']],
		['RFC 9457 with an errors extension', { type: 'about:blank', title: 'Invalid', status: 422, detail: 'See errors', errors: [{ pointer: '/registration_no', detail: 'is required' }] }, ['registration_no']],
		['errors keyed by field', { errors: { name: ["can't be blank"], email: 'is invalid' } }, ['name', 'email']],
		['x is required', 'name is required', ['name']],
		['a and b are missing', 'name and email are missing', ['email', 'name']],
		['unknown field', 'Unknown field company_name', ['company_name']],
	])('%s', (_shape, body, expected) => {
		expect(names(body)).toEqual(expect.arrayContaining(expected));
		expect(names(body).filter((name) => !expected.includes(name))).toEqual([]);
	});

	test('what a field is, said in words, is not its name; a value problem names nothing', () => {
		expect(refusalNames('The work email is missing').names).toEqual([]);
		expect(refusalNames('An invitation for registration number GB1 already exists.').names).toEqual([]);
		expect(refusalNames('This is required').names).toEqual([]);
	});

	test('a long refusal is read in one pass (no backtracking on what the Service wrote)', () => {
		const words = `${'a_'.repeat(50_000)} is required ${'"'.repeat(20_000)} fields: ${'x, '.repeat(20_000)}`;
		const started = Date.now();
		refusalNames(words);
		expect(Date.now() - started).toBeLessThan(1000);
	});
});

describe('namesHint: each Request Names row to set', () => {
	test('fields the Service misses, in words or in any error shape: the three rows', () => {
		expect(hint(422, 'Missing required fields: name, registration_no, email', invitation)).toBe(THREE_ROWS);
		expect(hint(422, { error: { code: 'invalid_invitation', message: 'Missing required fields: name, registration_no, email' } }, invitation)).toBe(THREE_ROWS);
		const problem = { type: 'about:blank', title: 'Unprocessable', status: 422, errors: ['name', 'registration_no', 'email'].map((name) => ({ pointer: `/${name}`, detail: 'is required' })) };
		expect(hint(422, problem, invitation)).toBe(THREE_ROWS);
		const jsonApi = { errors: ['name', 'registration_no', 'email'].map((name) => ({ title: 'Missing', source: { pointer: `/data/attributes/${name}` } })) };
		expect(hint(422, jsonApi, invitation)).toBe(THREE_ROWS);
		expect(hint(400, { errors: { name: ['is required'], registration_no: ['is required'], email: ['is required'] } }, invitation)?.replace('400', '422')).toBe(THREE_ROWS);
	});

	test('a name two rows fit is listed with both; a name no row reads like, with the rows left', () => {
		expect(hint(422, 'Missing required fields: reference_number', invitation)).toBe(
			'The Service answered 422 naming `reference_number`, which the node did not send. `reference_number` may be any of Invitation > Registration Number, Invitation > Reader Reference: set the one it is (Request Names > Invitation > Registration Number or Request Names > Invitation > Reader Reference) to `reference_number`. ' + SETTING,
		);
		const said = hint(422, 'Missing required fields: name, registration_no, contact', invitation)!;
		expect(said).toContain('Set Request Names > Invitation > Company Name to `name`');
		expect(said).toContain('`contact` may be what Invitation > Work Email is: if so, set Request Names > Invitation > Work Email to `contact`.');
	});

	test('a name that reads like a row, in the message, a problem+json `invalid-params` or a JSON:API pointer', () => {
		const expected = 'Set Request Names > Invitation > Company Name to `companyName` (sent as `company_name`).';
		expect(hint(422, { error: { code: 'invalid', message: 'companyName is required' } }, invitation)).toContain(expected);
		expect(hint(400, { title: 'Invalid', 'invalid-params': [{ name: 'companyName', reason: 'required' }] }, invitation)).toContain(expected);
		expect(hint(422, { errors: [{ detail: 'is required', source: { pointer: '/data/attributes/companyName' } }] }, invitation)).toContain(expected);
	});

	test("the one field sent, named beside the Service's own name, pairs with it; words about a value do not lead", () => {
		const webhook = speak('webhook', { url: 'https://x' }).sent;
		expect(hint(400, 'Unknown field url: send "destination_address"', { scope: 'webhook', sent: webhook })).toContain('Set Request Names > Webhook Endpoint > URL to `destination_address` (sent as `url`).');
		expect(hint(422, { error: { code: 'duplicate_invitation', message: 'An invitation for registration number GB1 already exists.' } }, invitation)).toBeUndefined();
		expect(hint(422, 'The work email "a@gmail.com" is a free-mail address.', invitation)).toBeUndefined();
		expect(hint(404, 'companyName is required', invitation)).toBeUndefined();
	});

	test('a field named by what it is, then by its name, pairs in order', () => {
		const said = hint(422, 'The work email is missing: fill in "contact". The company name is missing: fill in "legal"', invitation);
		expect(said).toContain('Set Request Names > Invitation > Company Name to `legal` (sent as `company_name`).');
		expect(said).toContain('Set Request Names > Invitation > Work Email to `contact` (sent as `work_email`).');
	});

	test('media types and form fields of an upload', () => {
		expect(hint(415, 'Use multipart/form-data', { sent: [], upload: { form: 'csv' } })).toContain('to Multipart Form');
		expect(hint(415, '', { sent: [], upload: { form: 'csv' } })).toContain('to Multipart Form');
		expect(hint(415, 'Send text/csv', { sent: [], upload: { form: 'multipart', field: 'file' } })).toContain('to CSV Body');
		expect(hint(422, 'No file in "document"', { sent: [], upload: { form: 'multipart', field: 'file' } })).toContain('set Import Form Field (Import Upload under Advanced Settings in the Service API credential) to `document`');
		expect(hint(422, 'Row 2: bad email', { sent: [], upload: { form: 'csv' } })).toBeUndefined();
	});
});
