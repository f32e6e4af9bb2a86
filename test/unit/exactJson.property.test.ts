import fc from 'fast-check';

import { hasLongRun, parseExactJson } from '../../nodes/shared/exactJson';
import { runs } from '../property/fc';
import { heapAfterGc, MiB } from './heapAfterGc';

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

	it('tells apart 20-digit numbers a few apart (many texts, one double), at any depth and place', () => {
		// Sequential ids near 2^64: doubles there are 2048 or 4096 apart, so neighbours read as one double.
		const near = fc.bigInt({ min: 2n ** 64n - 5000n, max: 2n ** 64n + 5000n }).map(integerToken);
		const doc: fc.Arbitrary<Drawn> = fc.letrec<{ doc: Drawn }>((tie) => ({
			doc: fc.oneof(
				{ depthSize: 'small' },
				near,
				fc.integer().map((n) => exactNumber(String(n))),
				fc.array(tie('doc'), { maxLength: 5 }).map((items) => ({ text: `[${items.map((i) => i.text).join(',')}]`, expected: items.map((i) => i.expected) })),
				fc.uniqueArray(fc.tuple(fc.stringMatching(/^([a-z_]{1,6}|[1-9][0-9]{0,2})$/), tie('doc')), { maxLength: 5, selector: ([name]) => name }).map((members) => {
					const expected = Object.create(null) as Record<string, unknown>;
					for (const [name, member] of members) expected[name] = member.expected;
					return { text: `{${members.map(([name, member]) => `"${name}":${member.text}`).join(',')}}`, expected };
				}),
			),
		})).doc;
		fc.assert(
			fc.property(doc, (drawn) => {
				expect(JSON.stringify(parseExactJson(drawn.text))).toBe(JSON.stringify(drawn.expected));
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

	it('tells apart tokens that round to one double, whatever else the document holds', () => {
		// Two 20-digit numbers one apart read as one double; so do 18446744073709552000 (which a double writes back) and its neighbour.
		expect(parseExactJson('[18446744073709551084, 18446744073709551085, 18446744073709551084]')).toEqual(['18446744073709551084', '18446744073709551085', '18446744073709551084']);
		expect(parseExactJson('{"a": 18446744073709552000, "b": 18446744073709551999}')).toEqual({ a: 18446744073709552000, b: '18446744073709551999' });
		// 0.1 is a short token of the double 0.10000000000000000001 reads as.
		expect(parseExactJson('[0.1, 0.10000000000000000001, 1e400]')).toEqual([0.1, '0.10000000000000000001', '1e400']);
		// A member named __proto__ stays a member; integer-like keys and a repeated key read as JSON.parse reads them.
		const odd = parseExactJson('{"__proto__": 18446744073709551084, "2": 18446744073709551084, "1": 7, "x": 1, "x": 18446744073709551084}') as Record<string, unknown>;
		expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
		expect(Object.entries(odd)).toEqual([['1', 7], ['2', '18446744073709551084'], ['__proto__', '18446744073709551084'], ['x', '18446744073709551084']]);
		// A repeated key keeps its last value, as JSON.parse does.
		expect(parseExactJson('{"x": 18446744073709551084, "x": 18446744073709551085}')).toEqual({ x: '18446744073709551085' });
		// An integer-like key comes first in the parsed object, before a member written ahead of it.
		expect(Object.entries(parseExactJson('{"b": 18446744073709551084, "2": 18446744073709551085}') as object)).toEqual([['2', '18446744073709551085'], ['b', '18446744073709551084']]);
		// Nesting as deep as JSON.parse reads.
		const deep = `${'['.repeat(50_000)}18446744073709551084${']'.repeat(50_000)}`;
		let inner = parseExactJson(deep);
		for (let depth = 0; depth < 50_000; depth++) inner = (inner as unknown[])[0];
		expect(inner).toBe('18446744073709551084');
	});

	it('a number kept as text holds its own bytes, not the page it came from', () => {
		const kept: unknown[] = [];
		const before = heapAfterGc();
		for (let page = 0; page < 20; page++) {
			const text = Buffer.from(`{"data":[{"registry_number":${18446744073709551084n - BigInt(page)},"pad":"${'x'.repeat(MiB)}"}]}`).toString();
			kept.push((parseExactJson(text) as { data: Array<{ registry_number: unknown }> }).data[0].registry_number);
		}
		// 20 pages of 1 MiB read, 20 numbers kept: a slice of each page would keep 20 MiB.
		expect({ kept: kept.length, under: heapAfterGc() - before < 4 * MiB }).toEqual({ kept: 20, under: true });
		expect(kept[19]).toBe(String(18446744073709551084n - 19n));
	});

	it('refuses what is not JSON with JSON.parse\'s own error', () => {
		for (const bad of ['{"a": 18446744073709551084', '[18446744073709551084,]', '{"a" 1e400}', '012345678901234567']) {
			expect(() => parseExactJson(bad)).toThrow(SyntaxError);
			expect(() => parseExactJson(bad)).toThrow(((): string => { try { JSON.parse(bad); } catch (error) { return (error as Error).message; } return ''; })());
		}
	});
});
