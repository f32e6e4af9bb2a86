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
				const csv = source.csv;
				const read: Page = csv === undefined
					? { rows: pageRows(page.content, undefined, source).map(asRow) }
					: { cells: csv.cells(source.redact(csvPageRead(page.content as Buffer, page.contentType, csv))), header: csv.header ?? [] };
				if (source.check !== undefined) source.check('cells' in read ? read.cells.map((cells) => rowOf(read.header, cells)) : read.rows, rowsRead);
				add(read);
				rowsRead += 'cells' in read ? read.cells.length : read.rows.length;
			} catch (error) {
				throw fail(error, page.request);
			}
			if (firstPageOnly) break;
		}
	} catch (error) {
		throw error === failure ? error : fail(error, current);
	}
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
		const rows = 'cells' in page ? page.cells.length : page.rows.length;
		budget?.rowsOf(rows);
		reading.addPage(page);
		rowsRead += rows;
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
	await readPages(source, (page) => reading.addPage(page), true);
	return reading.finish().changes.slice(0, count);
}
