import { CsvPages } from '../../nodes/shared/csv';
import type { PageAnswer, PageRequest } from '../../nodes/shared/paging';
import { ChangesError } from '../../nodes/ServiceChangesTrigger/keys';
import type { PollLimits } from '../../nodes/ServiceChangesTrigger/limits';
import type { ExportSource, PollOptions } from '../../nodes/ServiceChangesTrigger/readPages';
import { pollExport } from '../../nodes/ServiceChangesTrigger/readPages';

// The trigger's own bounds per poll (limits.ts) through pollExport, with the caller's clock: each fails the
// reading with ChangesError naming its Option, as soon as it is passed, and nothing is returned to store.

/** Pages of `rows` new portfolio rows each, for ever; `asked` counts the pages fetched. */
function endless(rows: number, onPage?: () => void): { source: ExportSource; asked: () => number; pageChars: number } {
	let asked = 0;
	const page = (n: number) => {
		let body = n === 1 ? 'ke,company_name\r\n' : '';
		for (let i = 0; i < rows; i++) body += `KE-${n}-${i},Company ${n} ${i}\r\n`;
		return Buffer.from(body);
	};
	const source: ExportSource = {
		fetchPage: async (request: PageRequest): Promise<PageAnswer<unknown>> => {
			asked++;
			onPage?.();
			return { content: page(request.page), nextCursor: `c${request.page}` };
		},
		paging: { cursorParameter: 'cursor', maxPages: 100_000 },
		csv: new CsvPages({ delimiter: ',', headerRepeat: 'auto' }),
		redact: (text) => text,
		failed: (error) => (error instanceof Error ? error : new Error(String(error))),
	};
	return { source, asked: () => asked, pageChars: JSON.stringify(['KE-2-0', 'Company 2 0']).length };
}

const options = (limits: Partial<PollLimits>): PollOptions => ({
	export: 'portfolio',
	window: undefined,
	changes: new Set(['added', 'changed', 'removed']),
	emitCurrentRows: false,
	limits: { maxRows: 1e9, maxPollMs: 1e9, maxStateBytes: 1e12, now: () => 0, ...limits },
});

test('Max Rows: the page that would pass it is not taken in; the error names Max Rows and the rows', async () => {
	const { source, asked } = endless(10);
	const failed = pollExport(undefined, options({ maxRows: 95 }), source);
	await expect(failed).rejects.toThrow(ChangesError);
	await expect(failed).rejects.toThrow("The portfolio export has more than 95 rows, this trigger's Max Rows (Options)");
	// Page 10 passes 95; one more page may be asked for ahead.
	expect(asked()).toBeGreaterThanOrEqual(10);
	expect(asked()).toBeLessThanOrEqual(11);
});

test('Max Poll Time: by the caller\'s clock, checked after each page; the error names it with the time and rows', async () => {
	let clock = 0;
	const { source, asked } = endless(10, () => (clock += 1000));
	const failed = pollExport(undefined, options({ maxPollMs: 30_000, now: () => clock }), source);
	await expect(failed).rejects.toThrow(/was still being read after 3\d s \(\d+ rows\), longer than this trigger's Max Poll Time of 30 s \(Options\)/);
	expect(asked()).toBeLessThanOrEqual(33);
});

test('Max State Size: passed by the rows kept so far, the poll fails before the export ends, naming it', async () => {
	const { source, asked, pageChars } = endless(100);
	// About 100 rows of ~pageChars characters a page: the bound passes on page 5.
	const failed = pollExport(undefined, options({ maxStateBytes: 100 * pageChars * 4.5 }), source);
	await expect(failed).rejects.toThrow(/The state this trigger keeps of the portfolio export would be more than [\d,]+ bytes \(\d+ rows read\), above its Max State Size/);
	expect(asked()).toBeGreaterThanOrEqual(5);
	expect(asked()).toBeLessThanOrEqual(6);
});

test('within every bound, a complete export is read and its state returned', async () => {
	const { source } = endless(10);
	const ending: ExportSource = { ...source, fetchPage: async (request) => ({ ...(await source.fetchPage(request)), nextCursor: request.page < 3 ? `c${request.page}` : undefined }) };
	const { changes, stored } = await pollExport(undefined, options({ maxRows: 30, maxPollMs: 1, maxStateBytes: 10_000 }), ending);
	expect(changes).toEqual([]);
	expect(JSON.parse(stored.rows!)).toHaveLength(30);
});

test('Max State Size counts everything stored: an 8 MiB header row with two rows under 1 MiB fails the poll naming it; the earlier state stays', async () => {
	const wide = 'x'.repeat(8 * 1024 * 1024);
	const body = (second: string) => Buffer.from(`ke,${wide}\r\nKE-1,a\r\nKE-2,${second}\r\n`);
	const source = (second: string): ExportSource => ({
		fetchPage: async (): Promise<PageAnswer<unknown>> => ({ content: body(second), nextCursor: undefined }),
		paging: { cursorParameter: 'cursor', maxPages: 10 },
		csv: new CsvPages({ delimiter: ',', headerRepeat: 'auto' }),
		redact: (text) => text,
		failed: (error) => (error instanceof Error ? error : new Error(String(error))),
	});
	// The earlier state, made without the bound; the poll under 1 MiB must not replace it.
	const { stored: earlier } = await pollExport(undefined, options({}), source('b'));
	const kept = JSON.stringify(earlier);
	const failed = pollExport(earlier, options({ maxStateBytes: 1024 * 1024 }), source('c'));
	await expect(failed).rejects.toThrow(ChangesError);
	await expect(failed).rejects.toThrow(/would be more than 8,388,\d{3} bytes \(2 rows read\), above its Max State Size of 1 MiB \(Options\)/);
	expect(JSON.stringify(earlier)).toBe(kept);
});
