import fc from 'fast-check';

import { parseSignatureHeader, readSignatureHeader, type ScanSteps } from '../../nodes/ServiceTrigger/verify/signatureHeader';
import { runs } from '../property/fc';

/**
 * The Service-Signature header read in one pass (issue 31): its cost grows with the header's length,
 * never its square, on what an attacker would send (separators, repeated `=`, long runs, mixed
 * whitespace, up to n8n's 16 KiB header limit); and it reads exactly what the regular expression it
 * replaced read, kept here as the reference.
 */

// The reader before issue 31 (quadratic on a run of separators followed by a non-part): the reference.
const OLD_PART = /(?:^|[,;\s])[,;\s]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*(?![A-Za-z0-9_-]+[ \t]*=[^=,;\s])([^,;\s]*)/g;
function referenceParse(value: string) {
	const parts = { timestamps: [] as string[], signatures: [] as string[] };
	for (const [, key, text] of value.matchAll(OLD_PART)) {
		if (key === 't') parts.timestamps.push(text);
		else if (key === 'v1') parts.signatures.push(text);
	}
	return parts;
}

function stepsOf(header: string): number {
	const steps: ScanSteps = { count: 0 };
	parseSignatureHeader(header, steps);
	return steps.count;
}

/** n8n (Node's HTTP server) refuses a request whose headers together pass 16 KiB. */
const HEADER_LIMIT = 16 * 1024;

/** The pieces an attacker builds with: every separator kind, `=` alone and repeated, keys, blanks. */
const piece = fc.constantFrom(',', ';', ' ', '\t', '\n', '\u00a0', '\u2003', '\ufeff', '=', '==', 't', 'v1', 'a', 'x=', 't=', 'v1=', ' = ', '\t=\t', '0', 'AB+/', '-', '_', ':', '"');
/** A header of runs: each a piece repeated many times, `scale` times as many for a longer header of the same shape. */
const runsOfPieces = fc.array(fc.tuple(piece, fc.integer({ min: 1, max: 2_000 })), { minLength: 1, maxLength: 8 });
const headerOf = (runs: Array<[string, number]>, scale = 1) => runs.map(([text, times]) => text.repeat(times * scale)).join('');
const adversarialHeader = runsOfPieces.map((runs) => headerOf(runs, 2).slice(0, HEADER_LIMIT));

// One step a character plus a constant: well above what the scanner needs (about 3), far below a square.
const STEPS_PER_CHARACTER = 6;

describe('parseSignatureHeader cost', () => {
	it('looks at each character of an adversarial header a bounded number of times (steps <= 6 per character)', () => {
		fc.assert(
			fc.property(adversarialHeader, (header) => {
				expect(stepsOf(header)).toBeLessThanOrEqual(STEPS_PER_CHARACTER * header.length + 8);
			}),
			runs(300),
		);
	});

	// Four times, not twice: at a few dozen characters the steps per character still move with the shape
	// (23 '_' then 2 'v1=' take 39 steps, twice that 119, seed 430219223), which a doubling bound of 2.2 caught.
	it('costs at most 8 times the steps for a header of the same shape four times as long (a square would be sixteen times)', () => {
		fc.assert(
			fc.property(
				runsOfPieces.filter((runs) => headerOf(runs, 4).length <= HEADER_LIMIT),
				(runs) => {
					expect(stepsOf(headerOf(runs, 4))).toBeLessThanOrEqual(8 * stepsOf(headerOf(runs)) + 64);
				},
			),
			runs(300),
		);
	});

	it('reads the issue-31 attack (16,000 separators after a fresh header) in linear steps, refused as an ordinary forgery', () => {
		const now = 1_760_000_000;
		const forged = `t=${now},v1=${'0'.repeat(64)}`;
		for (const run of [', ', ';', ' \t', ',\n', '=,', ' =']) {
			const attack = `${forged},${run.repeat(16_000 / run.length)}x`;
			expect(stepsOf(attack)).toBeLessThanOrEqual(STEPS_PER_CHARACTER * attack.length);
			expect(readSignatureHeader(attack, now)).toMatchObject({ parts: { timestamps: [`${now}`], signatures: ['0'.repeat(64)] } });
		}
	});
});

describe('parseSignatureHeader reads what the regular expression read', () => {
	// Short, so that the quadratic reference stays quick; the pieces make every rule of the grammar meet every other.
	const header = fc.array(piece, { maxLength: 24 }).map((pieces) => pieces.join(''));
	const anyText = fc.string({ unit: 'binary', maxLength: 40 });

	it('agrees on headers built from the grammar’s pieces', () => {
		fc.assert(
			fc.property(header, (value) => {
				expect(parseSignatureHeader(value)).toEqual(referenceParse(value));
			}),
			runs(3_000),
		);
	});

	it('agrees on any text', () => {
		fc.assert(
			fc.property(anyText, (value) => {
				expect(parseSignatureHeader(value)).toEqual(referenceParse(value));
			}),
			runs(1_000),
		);
	});

	it('agrees on ordinary headers (the sandbox’s form and the dialects’ separators)', () => {
		const part = fc.oneof(
			fc.stringMatching(/^\d{10,13}$/).map((t) => `t=${t}`),
			fc.stringMatching(/^[0-9a-f]{64}$/).map((v) => `v1=${v}`),
			fc.stringMatching(/^[A-Za-z0-9+/]{43}=$/).map((v) => `v1=${v}`),
			fc.stringMatching(/^[a-z0-9_]{1,6}=[A-Za-z0-9=_.-]{0,12}$/),
		);
		const separator = fc.constantFrom(',', ';', ', ', '; ', ' ', '\t', ' ,', ' ; ', ' = ');
		fc.assert(
			fc.property(fc.array(fc.tuple(part, separator), { minLength: 1, maxLength: 6 }), (parts) => {
				const value = parts.map(([text, sep]) => text + sep).join('');
				expect(parseSignatureHeader(value)).toEqual(referenceParse(value));
			}),
			runs(500),
		);
	});

	it('treats exactly JavaScript’s whitespace, `,` and `;` as separators (every UTF-16 code unit)', () => {
		const differ: number[] = [];
		for (let code = 0; code <= 0xffff; code++) {
			const value = `x=1${String.fromCharCode(code)}t=2`;
			if (JSON.stringify(parseSignatureHeader(value)) !== JSON.stringify(referenceParse(value))) differ.push(code);
		}
		expect(differ).toEqual([]);
	});
});
