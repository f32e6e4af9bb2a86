import { dialectFromEnvironment, dialectNamed } from '../../sandbox/dialect';
import { useSandbox } from '../../sandbox/useSandbox';
import { READER, runReader } from './helpers';
import { importHelpers } from './importHelpers';

// Invitation > Import answered 207 Multi-Status: each row its own HTTP status (201 or 422), its id, a refused row's
// words in `errors: [{pointer, detail}]`; whatever the list is called (the dialect's) and in JSON:API too.
const base = dialectNamed(dialectFromEnvironment());
const sandbox = useSandbox({ dialect: { ...base, answers: { ...base.answers, importAs: 'multiStatus' } } });
const { PATH, HEADER, fromFile, csvItem, invitationId, data } = importHelpers(sandbox);

const file = (n: string) => [HEADER, `Multi Good Ltd,GB7400000${n},buyer@multi.example,M1`, `Multi Bad Ltd,GB7410000${n},not-an-email,M2`].join('\r\n');

describe.each([
	['its own list', 'none'],
	['a JSON:API document', 'jsonapi'],
] as const)('Invitation > Import answered 207 Multi-Status in %s', (_name, envelope) => {
	beforeAll(() => {
		sandbox.dialect.envelope = envelope;
	});
	afterAll(() => {
		sandbox.dialect.envelope = base.envelope;
	});

	it('gives one item per row with its own outcome and words: neither a whole success nor a whole failure', async () => {
		const n = envelope === 'none' ? '1' : '2';
		const result = await runReader(sandbox, fromFile(), { inputItems: [csvItem(file(n))] });

		expect(result.error(READER)).toBeUndefined();
		expect(sandbox.control.requests().filter((r) => r.path === PATH).map((r) => r.status)).toEqual([207]);
		const items = result.output(READER).map((item) => item.json);
		// The node's fields beside the Service's (row status 201/422, id, errors), which pass on as sent.
		expect(items).toEqual([
			expect.objectContaining({ row: 1, ok: true, check: '', invitation_id: invitationId(`GB7400000${n}`), status: 201, id: invitationId(`GB7400000${n}`), data: data('Multi Good Ltd', `GB7400000${n}`, 'buyer@multi.example', 'M1') }),
			expect.objectContaining({
				row: 2,
				ok: false,
				check: 'work_email: The work email "not-an-email" is not a valid email address: check it for typos.',
				status: 422,
				errors: [{ pointer: '/work_email', detail: 'The work email "not-an-email" is not a valid email address: check it for typos.' }],
				data: data('Multi Bad Ltd', `GB7410000${n}`, 'not-an-email', 'M2'),
			}),
		]);
		expect(items[1].invitation_id).toBeUndefined();
		expect(result.output(READER).map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
	});
});
