/**
 * One poll's reading: the export's pages in order into an ExportReading (diff.ts), and only once the
 * last page was read, the changes and the state to store. Pure: no n8n types (docs/changes-trigger.md).
 */
import type { CsvPages } from '../shared/csv';
import { csvPageRead } from '../shared/csvText';
import { pageRows } from '../shared/exportRows';
import type { PageAnswer, PageRequest, PagingOptions } from '../shared/paging';
import { cursorPages } from '../shared/paging';
import type { Page } from './diff';
import { ExportReading } from './diff';
import type { Change, ChangeKind, ExportName, Row } from './keys';
import { rowOf } from './keys';
import type { PollLimits } from './limits';
import { PollBudget } from './limits';
import type { StoredState } from './state';
import { restoreState, storedBytes, storeState } from './state';

/** Where one poll's pages come from and how they are read; `failed` words the error of a page that failed. */
export interface ExportSource {
	fetchPage(request: PageRequest): Promise<PageAnswer<unknown>>;
	paging: PagingOptions;
	/** CSV exports: one reading for the whole export; JSON exports: undefined. */
	csv: CsvPages | undefined;
	redact(text: string): string;
	failed(error: unknown, request: PageRequest | undefined, rowsRead: number): Error;
	/** Throws when a row is not what was asked for (an expiries row outside the window); `before`: rows read before these. */
	check?(rows: Row[], before: number): void;
}

/**
 * Every page of the export, in order, to `add` (or the first page only, for the editor's sample).
 * A page that fails to arrive or to be read, or paging that does not end (Max Pages, a repeated
 * cursor), throws `source.failed`'s error: the reading is then incomplete and must not be used.
 */
export async function readPages(source: ExportSource, add: (page: Page) => void, firstPageOnly = false): Promise<void> {
	let current: PageRequest | undefined;
	let rowsRead = 0;
	let failure: Error | undefined;
	const fail = (error: unknown, request: PageRequest | undefined) => (failure = source.failed(error, request, rowsRead));
	const fetchPage = async (request: PageRequest) => {
		current = request;
		return await source.fetchPage(request);
	};
	try {
		for await (const page of cursorPages(fetchPage, source.paging, { prefetch: !firstPageOnly })) {
			try {
				const read = pageOf(source, page.content, page.contentType, rowsRead);
				add(read);
				rowsRead += 'rows' in read ? read.rows.length : read.rowsRead();
			} catch (error) {
				throw fail(error, page.request);
			}
			if (firstPageOnly) break;
		}
	} catch (error) {
		throw error === failure ? error : fail(error, current);
	}
}

/**
 * One page as `add` takes it: JSON rows, or a CSV page read row by row as it is walked (each row
 * checked first), so no page of parsed rows is held (docs/token-and-limits.md).
 */
function pageOf(source: ExportSource, content: unknown, contentType: string | undefined, before: number): Page & { rowsRead(): number } {
	const csv = source.csv;
	if (csv === undefined) {
		const rows = pageRows(content, undefined, source).map(asRow);
		source.check?.(rows, before);
		return { rows, rowsRead: () => rows.length };
	}
	// Decoded by its charset, a sep= line giving the delimiter (csvText.ts), then cleared of the token.
	const page = csv.page(source.redact(csvPageRead(content as Buffer, contentType, csv)));
	const header = csv.header ?? [];
	const check = source.check;
	return {
		header,
		each: (visit) => {
			let row = 0;
			page.each((cells) => {
				check?.([rowOf(header, cells)], before + row++);
				return visit(cells);
			});
		},
		rowsRead: () => page.rowsRead,
	};
}

function asRow(row: unknown): Row {
	return row !== null && typeof row === 'object' && !Array.isArray(row) ? (row as Row) : { value: row };
}

export interface PollOptions {
	export: ExportName;
	/** Expiries only. */
	window: string | undefined;
	/** The Key Column setting; '' or absent detects the key. */
	keyColumn?: string;
	/** The kinds of change to emit. */
	changes: ReadonlySet<ChangeKind>;
	/** The first poll (no state for this export) emits every row as `added`. */
	emitCurrentRows: boolean;
	/** The trigger's own bounds per poll (limits.ts); none when absent. */
	limits?: PollLimits;
}

/**
 * One poll: the export read whole against the state stored by the last complete poll. Returns the
 * changes to emit and the state to store; throws (and the caller stores nothing) when the reading
 * was incomplete or the export cannot be diffed.
 */
export async function pollExport(stored: unknown, options: PollOptions, source: ExportSource): Promise<{ changes: Change[]; stored: StoredState }> {
	const earlier = restoreState(stored, options.export, options.window, options.keyColumn ?? '');
	// The first poll is the baseline: it emits the current rows only when asked to.
	const baseline: ReadonlySet<ChangeKind> = options.emitCurrentRows ? new Set(['added']) : new Set();
	const reading = new ExportReading(options.export, options.window, earlier, earlier !== undefined ? options.changes : baseline, options.keyColumn ?? '', baseline);
	const budget = options.limits === undefined ? undefined : new PollBudget(options.export, options.limits);
	let rowsRead = 0;
	await readPages(source, (page) => {
		// Max Rows and Max State Size are held to row by row: a page past them is not read on.
		if (page.header === undefined) budget?.rowsOf(page.rows.length);
		rowsRead += reading.addPage(page, page.header === undefined || budget === undefined ? undefined : () => {
			budget.rowsOf(1);
			budget.state(reading.stateChars());
		});
		budget?.after(reading.stateChars());
	});
	const { changes, state } = reading.finish();
	const kept = storeState(state);
	try {
		budget?.state(storedBytes(kept));
	} catch (error) {
		throw source.failed(error, undefined, rowsRead);
	}
	return { changes, stored: kept };
}

/** The editor's sample: the first rows of the export's first page as `added`. */
export async function sampleExport(options: PollOptions, source: ExportSource, count: number): Promise<Change[]> {
	const reading = new ExportReading(options.export, options.window, undefined, new Set(['added']), options.keyColumn ?? '');
	// The first `count` rows are all it shows: the page is not read past them.
	let taken = 0;
	await readPages(source, (page) => void reading.addPage(page, () => ++taken < count), true);
	return reading.finish().changes.slice(0, count);
}
