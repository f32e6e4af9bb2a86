import { gzipSync, createGunzip } from 'node:zlib';

import fc from 'fast-check';

import type { CsvDelimiter, CsvHeaderRepeat } from '../../nodes/shared/csv';
import { CsvFormatError } from '../../nodes/shared/csv';
import { CsvPageFilter, HELD_RECORD_BYTES } from '../../nodes/ServiceReader/exports/csvPageFilter';
import { runs } from '../property/fc';

/**
 * File mode holds bytes, bounded (issue 36, item 2; docs/token-and-limits.md): whatever the answer's
 * shape (records up to and beyond the held-record cap, one endless record, gzip or not, any chunks,
 * header rows repeated or not, any delimiter, detected or set, the expiries window on or off), the
 * bytes a page's filter holds at once (`peakHeldBytes`) stay under the documented bound, and the file
 * is exactly the pages minus their repeated header rows, or the page fails naming the record too long
 * to check.
 */

const CAP = 256;

interface Shape {
	delimiter: CsvDelimiter;
	detect: boolean;
	headerEveryPage: boolean;
	pinned: boolean;
	lineEnd: '\n' | '\r\n';
	bom: boolean;
	quoteAll: boolean;
	window: boolean;
	gzip: boolean;
	chunk: number;
	header: string[];
	pages: string[][][];
	/** A last data record that never ends: this many bytes of one cell, no line end. */
	endless: number;
}

const columnName = fc.stringMatching(/^[a-z][a-z0-9_]{0,9}$/);
// Cells of every length class: short, around the cap, far beyond it; with bytes a parser must respect.
const cellText = fc.oneof(
	fc.string({ maxLength: 8 }),
	fc.constantFrom(',', ';', '\t', '|', '"', '\r\n', '\n', "'=", 'é', '€'),
	fc.integer({ min: CAP - 24, max: CAP + 24 }).map((n) => 'x'.repeat(n)),
	fc.integer({ min: 0, max: 4 * CAP }).map((n) => 'é"'.repeat(n >> 2)),
);
// A data row's first cell starts with K: no data row is the header row again (its names are lower case).
const row = (width: number) =>
	fc.tuple(fc.string({ maxLength: 4 }), fc.array(cellText, { minLength: width - 1, maxLength: width - 1 })).map(([first, rest]) => [`K${first}`, ...rest]);

const shape: fc.Arbitrary<Shape> = fc
	.record({
		delimiter: fc.constantFrom<CsvDelimiter>(',', ';', '\t', '|'),
		detect: fc.boolean(),
		headerEveryPage: fc.boolean(),
		pinned: fc.boolean(),
		lineEnd: fc.constantFrom<'\n' | '\r\n'>('\n', '\r\n'),
		bom: fc.boolean(),
		quoteAll: fc.boolean(),
		window: fc.boolean(),
		gzip: fc.boolean(),
		chunk: fc.integer({ min: 1, max: 300 }),
		header: fc.uniqueArray(columnName, { minLength: 2, maxLength: 4 }),
		endless: fc.oneof(fc.constant(0), fc.integer({ min: CAP, max: 40 * CAP })),
	})
	.chain((s) =>
		fc.array(fc.array(row(s.header.length), { maxLength: 4 }), { minLength: 1, maxLength: 4 }).map((pages) => ({ ...s, pages })),
	);

function cell(value: string, s: Shape): string {
	const needs = s.quoteAll || value.includes(s.delimiter) || /["\r\n]/.test(value);
	return needs ? `"${value.replace(/"/g, '""')}"` : value;
}

const line = (cells: string[], s: Shape) => cells.map((value) => cell(value, s)).join(s.delimiter);

/** The pages as sent (bytes), the file they make, and each data record's length in bytes. */
function render(s: Shape): { pages: Buffer[]; file: Buffer; records: number[] } {
	const pages: Buffer[] = [];
	const file: Buffer[] = [];
	const records: number[] = [];
	s.pages.forEach((rows, index) => {
		const data = rows.map((cells) => line(cells, s));
		const last = index === s.pages.length - 1;
		const header = index === 0 || s.headerEveryPage ? [line(s.header, s)] : [];
		const text = [...header, ...data].map((record) => record + s.lineEnd).join('');
		const endless = last && s.endless > 0 ? `K${'y'.repeat(s.endless)}` : '';
		pages.push(Buffer.concat([Buffer.from(s.bom ? '\uFEFF' : ''), Buffer.from(text + endless, 'utf8')]));
		const kept = index === 0 ? [...header, ...data] : data;
		file.push(Buffer.from((index === 0 && s.bom ? '\uFEFF' : '') + kept.map((record) => record + s.lineEnd).join(''), 'utf8'));
		for (const record of data) records.push(Buffer.byteLength(record, 'utf8'));
		if (endless) {
			file.push(Buffer.from(endless + s.lineEnd));
			records.push(endless.length);
		}
	});
	return { pages, file: Buffer.concat(file), records };
}

/** The page's bytes in the chunks a reader gets: inflated by gzip's own chunking, or cut every `chunk` bytes. */
async function chunksOf(page: Buffer, s: Shape): Promise<Buffer[]> {
	if (!s.gzip) {
		const chunks: Buffer[] = [];
		for (let i = 0; i < page.length; i += s.chunk) chunks.push(page.subarray(i, i + s.chunk));
		return chunks;
	}
	const inflater = createGunzip({ chunkSize: Math.max(64, s.chunk) });
	const chunks: Buffer[] = [];
	inflater.on('data', (chunk: Buffer) => chunks.push(chunk));
	const ended = new Promise((resolve, reject) => inflater.on('end', resolve).on('error', reject));
	inflater.end(gzipSync(page));
	await ended;
	return chunks;
}

/** The bound documented for one page's filter (csvPageFilter.ts `peakHeldBytes`, docs/token-and-limits.md). */
const bound = (detecting: boolean, largestChunk: number) => (detecting ? 2 * CAP + 3 + largestChunk : CAP + 2);

describe('file mode: bytes held, bounded', () => {
	test('whatever the answer shape, a page holds at most the documented bytes, and the file is exact or fails naming the record', async () => {
		await fc.assert(
			fc.asyncProperty(shape, async (s) => {
				const { pages, file, records } = render(s);
				const repeat: CsvHeaderRepeat = s.pinned ? (s.headerEveryPage ? 'every' : 'first') : 'auto';
				const rowsSeen: string[][] = [];
				const out: Buffer[] = [];
				let first: CsvPageFilter | undefined;
				let failure: unknown;
				for (const page of pages) {
					const chunks = await chunksOf(page, s);
					const filter = new CsvPageFilter({
						delimiter: first?.delimiter ?? (s.detect ? 'auto' : s.delimiter),
						header: first ? (first.headerCells ?? []) : undefined,
						headerRepeat: repeat,
						lineEnd: first?.lineEnd,
						stripFormulaGuard: false,
						onRow: s.window ? (cells) => void rowsSeen.push(cells) : undefined,
						maxHeldBytes: CAP,
					});
					try {
						for (const chunk of chunks) out.push(...filter.push(chunk));
						out.push(...filter.end());
					} catch (error) {
						failure = error;
					}
					const largest = chunks.reduce((max, chunk) => Math.max(max, chunk.length), 0);
					expect(filter.peakHeldBytes).toBeLessThanOrEqual(bound(first === undefined && s.detect, largest));
					if (failure !== undefined) break;
					first ??= filter;
				}
				// Under a window every row is read whole: one longer than the cap fails the page, naming it.
				const tooLong = s.window ? records.findIndex((bytes) => bytes > CAP) : -1;
				if (tooLong >= 0) {
					expect(failure).toBeInstanceOf(CsvFormatError);
					expect((failure as Error).message).toMatch(/^Row \d+ of the page is a single CSV record longer than 256 bytes, the most the file export holds of one record before writing it, so it cannot be checked against the expiries window: choose All Windows/);
					expect(rowsSeen).toHaveLength(tooLong);
					return;
				}
				expect(failure).toBeUndefined();
				expect(Buffer.concat(out).equals(file)).toBe(true);
				if (s.window) expect(rowsSeen).toHaveLength(records.length);
			}),
			runs(300),
		);
	});
});

describe('file mode at the real cap (HELD_RECORD_BYTES)', () => {
	/** Feeds a page of `prefix` then `size` bytes of one unending record, in 64 KiB chunks made once. */
	function endless(filter: CsvPageFilter, prefix: string, size: number): Buffer[] {
		const out = [...filter.push(Buffer.from(prefix))];
		const chunk = Buffer.alloc(64 * 1024, 'y');
		for (let sent = 0; sent < size; sent += chunk.length) out.push(...filter.push(chunk));
		out.push(...filter.end());
		return out;
	}
	const SIZE = 24 * 1024 * 1024;

	it('a later page that is one endless record passes through holding no more than the header row could be', () => {
		const filter = new CsvPageFilter({ delimiter: ',', header: ['ke', 'name'], headerRepeat: 'auto', stripFormulaGuard: false });
		const out = endless(filter, '', SIZE);
		expect(out.reduce((sum, bytes) => sum + bytes.length, 0)).toBe(SIZE + 2);
		expect(filter.peakHeldBytes).toBeLessThanOrEqual(64 * 1024);
		expect(filter.rows).toBe(1);
	});

	it('under an expiries window the endless record fails the page once it passes 1 MiB, holding at most that', () => {
		const filter = new CsvPageFilter({ delimiter: ',', header: ['ke', 'ends_on'], headerRepeat: 'every', stripFormulaGuard: false, onRow: () => undefined });
		expect(() => endless(filter, 'ke,ends_on\r\nKE-1,2026-01-01\r\n', SIZE)).toThrow(
			'Row 2 of the page is a single CSV record longer than 1 MiB, the most the file export holds of one record before writing it, so it cannot be checked against the expiries window',
		);
		expect(filter.peakHeldBytes).toBeLessThanOrEqual(HELD_RECORD_BYTES + 2);
	});

	it('a first page whose header row never ends fails at 1 MiB with the delimiter set or detected', () => {
		for (const delimiter of [',', 'auto'] as const) {
			const filter = new CsvPageFilter({ delimiter, headerRepeat: 'auto', stripFormulaGuard: false });
			expect(() => endless(filter, 'ke,', SIZE)).toThrow(/single CSV record longer than 1 MiB|holds no whole header row/);
			expect(filter.peakHeldBytes).toBeLessThanOrEqual(2 * HELD_RECORD_BYTES + 3 + 64 * 1024);
		}
	});
});
