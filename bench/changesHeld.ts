/**
 * Issue 36 item 3 (`--only changes`): what one poll of the Changes Trigger holds per page read when
 * every page brings new rows (an endless cursor after the baseline), as live heap after collection,
 * per KiB of CSV read. Run in a process of its own with --expose-gc (bench/changes.ts spawns it).
 * Pure: readPages/pollExport against an in-memory page source, no HTTP.
 */
import { CsvPages } from '../nodes/shared/csv';
import type { PageAnswer, PageRequest } from '../nodes/shared/paging';
import type { ExportSource, PollOptions } from '../nodes/ServiceChangesTrigger/readPages';
import { pollExport } from '../nodes/ServiceChangesTrigger/readPages';

export interface HeldResult {
	pages: number;
	rowsPerPage: number;
	pageBytes: number;
	/** Live heap after collection, MiB, at the first and the last measured page. */
	heapFirstMiB: number;
	heapLastMiB: number;
	/** (heapLast - heapFirst) / pages between them, KiB. */
	heldPerPageKiB: number;
	heldPerRowBytes: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** `longKeys`: KEs of 13 characters or more, which V8 would cut from the page's text as slices of it. */
let longKeys = false;

function pageOf(page: number, rows: number): Buffer {
	let body = page === 1 ? 'ke,company_name,tier,status,decision_due\r\n' : '';
	for (let i = 0; i < rows; i++) body += `KE-E${longKeys ? 'NDLESS-0000' : ''}${page}-${i},Endless company number ${page}-${i} Ltd,tier-${i % 9},active,false\r\n`;
	return Buffer.from(body);
}

export async function measureHeld(pages = 40, rowsPerPage = 300, long = false): Promise<HeldResult> {
	if (!gc) throw new Error('run with --expose-gc');
	longKeys = long;
	const options: PollOptions = { export: 'portfolio', window: undefined, changes: new Set(['added', 'changed', 'removed']), emitCurrentRows: false };
	const baseline: ExportSource = sourceOf(1, rowsPerPage);
	const { stored } = await pollExport(undefined, options, baseline);
	const heap: number[] = [];
	const source = sourceOf(pages, rowsPerPage, (page) => {
		gc();
		heap[page] = process.memoryUsage().heapUsed;
	});
	await pollExport(JSON.parse(JSON.stringify(stored)), options, source).catch(() => undefined);
	const first = 5;
	const last = pages;
	const held = (heap[last] - heap[first]) / (last - first);
	const mib = (n: number) => Math.round((n / 1048576) * 10) / 10;
	return {
		pages,
		rowsPerPage,
		pageBytes: pageOf(2, rowsPerPage).length,
		heapFirstMiB: mib(heap[first]),
		heapLastMiB: mib(heap[last]),
		heldPerPageKiB: Math.round(held / 102.4) / 10,
		heldPerRowBytes: Math.round(held / rowsPerPage),
	};
}

/** `pages` pages of new rows, then one more page that fails (so the poll ends without emitting). */
function sourceOf(pages: number, rowsPerPage: number, onPage?: (page: number) => void): ExportSource {
	return {
		fetchPage: async (request: PageRequest): Promise<PageAnswer<unknown>> => {
			// Before page n is fetched, pages up to n - 2 were read (one is asked for ahead).
			onPage?.(request.page);
			if (request.page > pages + 1) throw new Error('end');
			return { content: pageOf(request.page, rowsPerPage), nextCursor: onPage === undefined && request.page >= pages ? undefined : `c${request.page}` };
		},
		paging: { cursorParameter: 'cursor', maxPages: 1_000_000 },
		csv: new CsvPages({ delimiter: ',', headerRepeat: 'auto' }),
		redact: (text) => text,
		failed: (error) => (error instanceof Error ? error : new Error(String(error))),
	};
}

if (require.main === module) {
	void measureHeld(Number(process.argv[2] ?? 40), Number(process.argv[3] ?? 300), process.argv[4] === 'long').then((r) => console.log(JSON.stringify(r)));
}
