import fc from 'fast-check';

import { hasLongRun, parseExactJson } from '../../nodes/shared/exactJson';
import { runs } from '../property/fc';

/**
 * Numbers beyond 2^53 kept exact (issue 44): in any JSON document, a number token JSON.parse would
 * not write back exactly comes back as a string of the very text sent; everything else is what
 * JSON.parse gives, strings holding digit runs and escaped quotes and number-like keys included.
 */

const LIMIT = 2n ** 53n - 1n;

/** A value's JSON text and what parseExactJson must give for it. */
type Drawn = { text: string; expected: unknown };

const exactNumber = (text: string): Drawn => ({ text, expected: JSON.parse(text) });
const keptAsText = (text: string): Drawn => ({ text, expected: text });

// Integers: a number when its double writes back its very digits (every safe one, 2^53 itself), else the digits sent.
const integerToken = (n: bigint): Drawn => (JSON.stringify(Number(n)) === String(n) ? exactNumber(String(n)) : keptAsText(String(n)));
const integer = fc.oneof(
	fc.bigInt({ min: -LIMIT, max: LIMIT }).map(integerToken),
	fc.constantFrom(-1n, 0n, 1n, 2n, 3n).map((d) => integerToken(LIMIT + d)),
	fc.constantFrom(-1n, 0n, 1n, 2n, 3n).map((d) => integerToken(-(LIMIT + d))),
	fc.bigInt({ min: LIMIT + 1n, max: 10n ** 20n }).chain((n) => fc.boolean().map((negative) => integerToken(negative ? -n : n))),
);

// Beyond integers: any double as JavaScript writes it (its digits survive), and forms such as 1e3 or 0.1.
const decimal = fc.oneof(
	// As JavaScript writes it, a double gives back its own digits: a number.
	fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => exactNumber(JSON.stringify(d))),
	fc.constantFrom('1e3', '0.1', '1.5', '-0', '-0.0', '0e999', '1E+2', '2.5e-3', '1e308', '5e-324', '123456789012345.5').map(exactNumber),
);

// Tokens whose double would not give back their digits: written with an exponent, a long fraction, or beyond a double's range.
const inexact = fc.oneof(
	fc
		.bigInt({ min: LIMIT + 1n, max: 10n ** 20n })
		// Not the digits JavaScript writes for its double (18446744073709552000 is: 1.8446744073709552e19 stays a number).
		.filter((n) => String(Number(n)).replace(/0+$/, '') !== String(n).replace(/0+$/, ''))
		.chain((n) =>
			fc.tuple(fc.boolean(), fc.constantFrom('e', 'E', 'e+')).map(([negative, e]) => {
				const digits = String(n);
				return keptAsText(`${negative ? '-' : ''}${digits[0]}.${digits.slice(1)}${e}${digits.length - 1}`);
			}),
		),
	fc.constantFrom('1.8446744073709551084e19', '-18446744073709551084', '0.10000000000000000001', '1234567.8901234567891', '1e400', '-2.5E999', '1e-400').map(keptAsText),
);

const space = fc.constantFrom('', ' ', '\n', '\t ');
const text = fc.oneof(
	fc.string(),
	fc.constantFrom('18446744073709551084', 'id "18446744073709551084"', '\\', '"', '1e400', 'KE1000000000000000000', '9007199254740993.5'),
);
const key = fc.oneof(text, fc.constantFrom('18446744073709551084', '1e400', 'registry_number'));

const value: fc.Arbitrary<Drawn> = fc.letrec<{ value: Drawn }>((tie) => ({
	value: fc.oneof(
		{ depthSize: 'small', withCrossShrink: true },
		integer,
		decimal,
		inexact,
		text.map((s) => ({ text: JSON.stringify(s), expected: s })),
		fc.constantFrom(true, false, null).map((v) => ({ text: String(v), expected: v })),
		fc.tuple(fc.array(tie('value'), { maxLength: 4 }), space).map(([items, gap]) => ({
			text: `[${gap}${items.map((item) => item.text).join(`${gap},${gap}`)}${gap}]`,
			expected: items.map((item) => item.expected),
		})),
		fc.tuple(fc.uniqueArray(fc.tuple(key, tie('value')), { maxLength: 4, selector: ([name]) => name }), space).map(([members, gap]) => {
			const expected = Object.create(null) as Record<string, unknown>;
			for (const [name, member] of members) expected[name] = member.expected;
			return { text: `{${gap}${members.map(([name, member]) => `${JSON.stringify(name)}${gap}:${gap}${member.text}`).join(',')}${gap}}`, expected };
		}),
	),
})).value;

describe('parseExactJson', () => {
	it('gives every number JSON.parse would round as the text sent, and everything else as JSON.parse does', () => {
		fc.assert(
			fc.property(value, space, (drawn, gap) => {
				const parsed = parseExactJson(`${gap}${drawn.text}${gap}`);
				expect(JSON.stringify(parsed)).toBe(JSON.stringify(drawn.expected));
				expect(parsed).toEqual(drawn.expected);
			}),
			runs(300),
		);
	});

	it('sees every run of 16 digits or dots, wherever it starts (the fast path reads every 16th character)', () => {
		const piece = fc.oneof(fc.constantFrom('a', '"', '.', '-', 'e'), fc.stringMatching(/^[0-9]{1,20}$/));
		fc.assert(
			fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
				const text = pieces.join('');
				expect(hasLongRun(text)).toBe(/[0-9.]{16}/.test(text));
			}),
			runs(500),
		);
	});

	it('keeps a registry number of 20 digits, and leaves a document without one to JSON.parse', () => {
		expect(parseExactJson('{"registry_number": 18446744073709551084, "n": 12}')).toEqual({ registry_number: '18446744073709551084', n: 12 });
		expect(parseExactJson('[9007199254740991, 9007199254740992, 1e3, 0.1, "18446744073709551084"]')).toEqual([9007199254740991, 9007199254740992, 1000, 0.1, '18446744073709551084']);
		expect(parseExactJson('{"a": "\\"", "b": 18446744073709551084}')).toEqual({ a: '"', b: '18446744073709551084' });
	});

	it('refuses what is not JSON with JSON.parse\'s own error', () => {
		for (const bad of ['{"a": 18446744073709551084', '[18446744073709551084,]', '{"a" 1e400}', '012345678901234567']) {
			expect(() => parseExactJson(bad)).toThrow(SyntaxError);
			expect(() => parseExactJson(bad)).toThrow(((): string => { try { JSON.parse(bad); } catch (error) { return (error as Error).message; } return ''; })());
		}
	});
});
