import { parseExtraFields } from '../../nodes/ServiceReader/actions/policyRun/extraFields';

describe('parseExtraFields', () => {
	it.each([
		['{"policy": "standard", "depth": 2}', { policy: 'standard', depth: 2 }],
		['  {}  ', {}],
		['', {}],
		['   ', {}],
		[undefined, {}],
		[null, {}],
		[{ policy: 'given as an object by an expression' }, { policy: 'given as an object by an expression' }],
	])('reads %j', (value, fields) => {
		expect(parseExtraFields('Extra', value, ['ke'])).toEqual({ ok: true, fields });
	});

	it('refuses text that is not JSON, saying where it breaks', () => {
		const result = parseExtraFields('Extra', '{"policy": standard}');
		expect(result.ok).toBe(false);
		expect(!result.ok && result.problem).toMatch(
			/^Extra is not valid JSON \(Unexpected token .+\): enter a JSON object such as \{"policy": "standard"\}\.$/,
		);
	});

	it.each([
		['[1]', 'a list'],
		['"text"', 'string'],
		['3', 'number'],
		['null', 'null'],
		['true', 'boolean'],
	])('refuses %s, which is not an object', (value, kind) => {
		expect(parseExtraFields('Extra', value)).toEqual({
			ok: false,
			problem: `Extra must be a JSON object such as {"policy": "standard"}, not ${kind}.`,
		});
	});

	it('refuses keys the node sets itself', () => {
		expect(parseExtraFields('Extra', '{"ke": "x", "id": 1, "policy": "p"}', ['ke', 'id'])).toEqual({
			ok: false,
			problem: 'Extra must not contain "ke", "id": the node sets these from its own field.',
		});
	});
});
