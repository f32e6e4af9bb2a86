import fc from 'fast-check';

import { cursorPages, FIRST_PAGE_DIGESTS, LineDigests, packDigests, ReadRows, RepeatedPageError, rowDigest, type PageAnswer, type PageRequest } from '../../nodes/shared/paging';
import { csvLineDigests } from '../../nodes/shared/transport/pageFetch';
import { runs } from '../property/fc';

/**
 * A page that repeats rows already read (issue 44 item 5): told whatever the order, the chunking and the
 * header row, never for a page with one row not read before, and with memory counted in bytes of digests.
 */

const row = fc.stringMatching(/^[A-Za-z0-9 ,;"-]{1,20}$/);
const rows = fc.uniqueArray(row, { minLength: 1, maxLength: 30 });
const csvText = (header: string, lines: readonly string[]) => `${header}\r\n${lines.map((line) => `${line}\r\n`).join('')}`;

/** Splits bytes at the given cut points: a streamed page's chunks. */
function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
	const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
	const chunks: Buffer[] = [];
	let start = 0;
	for (const point of [...points, bytes.length]) {
		chunks.push(bytes.subarray(start, point));
		start = point;
	}
	return chunks;
}

describe('rows already read', () => {
	test('the first page again, in any order, with the header row again or not, read whole or in any chunks: a repeat', () => {
		fc.assert(
			fc.property(rows, fc.func(fc.integer()), fc.boolean(), fc.array(fc.nat(), { maxLength: 6 }), (lines, order, headerAgain, cuts) => {
				const header = 'ke,company_name';
				const again = [...lines].sort((a, b) => order(a) - order(b) || a.localeCompare(b));
				const shared = {};
				const read = new ReadRows();
				expect(read.repeats(1, csvLineDigests(Buffer.from(csvText(header, lines)), 1, shared))).toBe(false);
				const second = new LineDigests(2, shared);
				const text = headerAgain ? csvText(header, again) : again.map((line) => `${line}\r\n`).join('');
				for (const chunk of chunked(Buffer.from(text), cuts)) second.push(chunk);
				expect(read.repeats(2, second.end())).toBe(true);
			}),
			runs(300),
		);
	});

	test("each line's digest, written where it is kept, is the row's own (rowDigest), in order; the header row's on no page", () => {
		fc.assert(
			fc.property(rows, fc.array(fc.nat(), { maxLength: 6 }), (lines, cuts) => {
				fc.pre(!lines.includes('ke'));
				const shared = {};
				const first = csvLineDigests(Buffer.from(csvText('ke', lines)), 1, shared);
				const second = new LineDigests(2, shared);
				for (const chunk of chunked(Buffer.from(csvText('ke', lines)), cuts)) second.push(chunk);
				const expected = packDigests(lines.map((line) => rowDigest(Buffer.from(`${line}\r`))));
				expect(first.equals(expected)).toBe(true);
				expect(second.end().equals(expected)).toBe(true);
			}),
			runs(300),
		);
	});

	test('a page with one row not read before is no repeat; an empty page never is', () => {
		fc.assert(
			fc.property(rows, row, fc.nat(), (lines, extra, at) => {
				fc.pre(!lines.includes(extra) && extra !== 'ke');
				const read = new ReadRows();
				const digests = lines.map((line) => rowDigest(line));
				expect(read.repeats(1, packDigests(digests))).toBe(false);
				const next = [...digests];
				next.splice(at % (next.length + 1), 0, rowDigest(extra));
				expect(read.repeats(2, packDigests(next))).toBe(false);
				expect(read.repeats(3, Buffer.alloc(0))).toBe(false);
				// The same page a second time (page 2 again) is a repeat.
				expect(read.repeats(4, packDigests([...next].reverse()))).toBe(true);
			}),
			runs(300),
		);
	});

	test('memory: 32 bytes a row of the first page up to its bound, then 32 bytes a page', () => {
		const read = new ReadRows();
		const many = Array.from({ length: FIRST_PAGE_DIGESTS + 50 }, (_, i) => rowDigest(`row ${i}`));
		read.repeats(1, packDigests(many));
		expect(read.heldBytes).toBe(32 * FIRST_PAGE_DIGESTS + 32);
		for (let page = 2; page <= 11; page++) read.repeats(page, packDigests([rowDigest(`page ${page}`)]));
		expect(read.heldBytes).toBe(32 * FIRST_PAGE_DIGESTS + 32 * 11);
		// Past the bound, the first page again is still told, as a whole.
		expect(read.repeats(12, packDigests([...many].reverse()))).toBe(true);
	});

	test('cursorPages stops before yielding a repeated page: its rows never reach the consumer, and no third page is asked for', async () => {
		const asked: PageRequest[] = [];
		const page = (n: number): PageAnswer<string[]> => ({ content: ['a', 'b'], nextCursor: `fresh-${n}`, rows: packDigests((n === 1 ? ['a', 'b'] : ['b', 'a']).map((r) => rowDigest(r))) });
		const fetchPage = async (request: PageRequest) => {
			asked.push(request);
			return page(request.page);
		};
		const seen: string[] = [];
		const reading = (async () => {
			for await (const got of cursorPages(fetchPage, { cursorParameter: 'cursor', cursorHeader: 'Service-Cursor' }, { prefetch: true })) seen.push(...got.content);
		})();
		await expect(reading).rejects.toBeInstanceOf(RepeatedPageError);
		await expect(reading).rejects.toMatchObject({ page: 2, cursorHeader: 'Service-Cursor' });
		expect(seen).toEqual(['a', 'b']);
		expect(asked.map((r) => r.page)).toEqual([1, 2]);
		// The cursor went in the header: the query has none.
		expect(asked[1].qs).toEqual({});
	});
});
