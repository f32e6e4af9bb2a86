import { CsvPages } from '../../nodes/shared/csv';
import { eachPageRow } from '../../nodes/shared/exportRows';
import { pollExport, type ExportSource } from '../../nodes/ServiceChangesTrigger/readPages';
import { PortfolioReadings, type PortfolioSource } from '../../nodes/ServiceTrigger/companyDetails/portfolioReadings';
import { heapAfterGc, MiB } from './heapAfterGc';

/**
 * Memory per byte of a CSV page (issue 45 item 1, HIGH; docs/token-and-limits.md): a page is read
 * record by record, so what is live while it is read is its text plus the rows kept, never a page of
 * parsed rows. Before, 2,000,000 two-byte rows (8 MB) took the heap up about 450-570 MiB (59-75
 * bytes a byte) before Limit or Max Rows applied. Live heap is measured after a full collection,
 * from inside the reading (the consumer's own callback), where a page of parsed rows would be live.
 */

const noRedaction = { redact: (text: string) => text };
/** A page's bytes written straight into a Buffer (off the heap): no page-sized string is left for the baseline to count. */
function pageOf(header: string, count: number, row: (n: number) => string): Buffer {
	const page = Buffer.allocUnsafe(header.length + count * Buffer.byteLength(row(count - 1)));
	let at = page.write(header, 'latin1');
	for (let n = 0; n < count; n++) at += page.write(row(n), at, 'latin1');
	return page.subarray(0, at);
}

test('Get Many, Limit 10: a page of 2,000,000 two-byte rows (8 MB) takes the heap up less than 4 times its bytes', () => {
	const page = pageOf('ke\r\n', 2_000_000, () => 'ab\r\n');
	const before = heapAfterGc();
	const items: unknown[] = [];
	let growth = 0;
	eachPageRow(page, new CsvPages({ delimiter: ',', headerRepeat: 'auto' }), noRedaction, (row) => {
		items.push(row);
		if (items.length === 10) growth = heapAfterGc() - before;
		return items.length < 10;
	});
	expect(items).toHaveLength(10);
	expect(items[9]).toEqual({ ke: 'ab' });
	// The figures show in the failure's diff.
	expect({ growthMiB: +(growth / MiB).toFixed(1), perPageByte: +(growth / page.length).toFixed(2), under4: growth < 4 * page.length }).toEqual({
		growthMiB: expect.any(Number),
		perPageByte: expect.any(Number),
		under4: true,
	});
}, 120_000);

test('Changes Trigger: a page of 2,000,000 rows stops at Max Rows with live heap a small multiple of the state kept plus the page', async () => {
	const page = pageOf('ke,tier\r\n', 2_000_000, (n) => `K${n},t\r\n`);
	const before = heapAfterGc();
	const samples: Array<{ row: number; growth: number }> = [];
	const source: ExportSource = {
		fetchPage: async () => ({ content: page, nextCursor: undefined }),
		paging: { cursorParameter: 'cursor' },
		csv: new CsvPages({ delimiter: ',', headerRepeat: 'auto' }),
		...noRedaction,
		failed: (error) => error as Error,
		// Called before each row is taken in: where a page of parsed rows would be live.
		check: (_rows, before_) => {
			if ((before_ + 1) % 250_000 === 0) samples.push({ row: before_ + 1, growth: heapAfterGc() - before });
		},
	};
	const limits = { maxRows: 500_000, maxPollMs: 600_000, maxStateBytes: 64 * MiB, now: Date.now };
	await expect(pollExport(undefined, { export: 'portfolio', window: undefined, changes: new Set(['added']), emitCurrentRows: false, limits }, source)).rejects.toThrow(
		/has more than 500,000 rows, this trigger's Max Rows/,
	);
	// Read as far as Max Rows, not a row further.
	expect(samples.map((s) => s.row)).toEqual([250_000, 500_000]);
	// The state kept of 500,000 rows: `["K123456","t"]` and a comma, about 15 bytes a row.
	const kept = 500_000 * 15;
	const last = samples[1].growth;
	expect({ growthMiB: +(last / MiB).toFixed(1), bound: last < page.length + 8 * kept }).toEqual({ growthMiB: expect.any(Number), bound: true });
}, 180_000);

test('Add Company Details: a page of 2,000,000 rows is looked through holding the bounded rows, not the page parsed', async () => {
	const page = pageOf('ke,name\r\n', 2_000_000, (n) => `K${n},n\r\n`);
	const readings = new PortfolioReadings();
	const before = heapAfterGc();
	const samples: number[] = [];
	const source: PortfolioSource = {
		fetchPage: async () => {
			// The reading was made before its first page is asked for: sample the heap as its rows are held.
			const held = readings.held('cred')!.rows;
			const set = held.set.bind(held);
			let n = 0;
			held.set = (key, value, now) => {
				if (++n % 500_000 === 0) samples.push(heapAfterGc() - before);
				return set(key, value, now);
			};
			return { content: page, nextCursor: undefined };
		},
		paging: { cursorParameter: 'cursor' },
		csv: { delimiter: ',', headerRepeat: 'auto' },
		failed: (_page, error) => error as Error,
	};
	const found = await readings.lookUp('cred', ['K1999999', 'nowhere'], false, source);
	expect(found.get('K1999999')).toEqual({ ke: 'K1999999', name: 'n' });
	expect(found.get('nowhere')).toBeUndefined();
	expect(samples).toHaveLength(4);
	// The page's text, plus at most 10,000 companies held (about 1 MiB): not 2,000,000 parsed rows.
	const peak = Math.max(...samples);
	expect({ growthMiB: +(peak / MiB).toFixed(1), bound: peak < 2 * page.length + 8 * MiB }).toEqual({ growthMiB: expect.any(Number), bound: true });
}, 180_000);
