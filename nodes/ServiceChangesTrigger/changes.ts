/**
 * What changed in one export between two complete readings of it. Pure: no n8n types, no HTTP; the
 * node feeds the rows of each page in order and, only once the export is complete, takes the
 * changes and the next state (docs/changes-trigger.md).
 *
 * Rows are told apart by a key per export, or by the Key Column the user set: the portfolio by its
 * KE column (by name, else by the first page's values: shared/keColumn.ts), invitations by their
 * invitation id column, expiries by their kind and reference columns (else a fingerprint of the
 * whole row), decisions and statements by their id (else a fingerprint). Portfolio, invitations and
 * expiries keep each row's values (for `previous` and the `removed` row); decisions and statements
 * keep a fingerprint of the key only, and report new rows only.
 */
import { createHash } from 'node:crypto';

import type { CsvPages } from '../shared/csv';
import { columnNamed } from '../shared/csv';
import { columnWords, findKeColumn } from '../shared/keColumn';
import { pageRows } from '../shared/exportRows';
import type { PageAnswer, PageRequest, PagingOptions } from '../shared/paging';
import { cursorPages } from '../shared/paging';

export type ExportName = 'portfolio' | 'expiries' | 'invitations' | 'decisions' | 'statements';
export type ChangeKind = 'added' | 'changed' | 'removed';
export type Row = Record<string, unknown>;

export const EXPORT_NAMES: readonly ExportName[] = ['portfolio', 'expiries', 'invitations', 'decisions', 'statements'];
export const CHANGE_KINDS: readonly ChangeKind[] = ['added', 'changed', 'removed'];

/** One change, as the node emits it (plus `export`). */
export interface Change {
	change: ChangeKind;
	key: string;
	row: Row;
	/** `changed` only: exactly the fields that changed, with their earlier values (null: the column was not there). */
	previous?: Row;
}

/** Exports whose rows are followed (added, changed, removed); the others report new rows only. */
export function keepsRows(name: ExportName): boolean {
	return name === 'portfolio' || name === 'invitations' || name === 'expiries';
}

/** The state between polls, while computing: Maps only, never a plain object keyed by Service text. */
export interface ExportState {
	export: ExportName;
	/** Expiries only: the window it was read with; another window is another export. */
	window: string | undefined;
	/** Followed exports: the header row the values are in, and each row's values by key. */
	columns: string[];
	/** Followed exports: the columns the rows are keyed by; null a fingerprint; undefined not told yet (no rows). */
	key: string[] | null | undefined;
	/** The Key Column setting it was read with ('' when detected); new-only exports' fingerprints depend on it. */
	keyColumn: string;
	rows: Map<string, unknown[]>;
	/** New-only exports: the fingerprints of the keys seen. */
	seen: Set<string>;
}

/** The state as kept in the workflow's static data: JSON, compact (docs/changes-trigger.md has bytes per row). */
export interface StoredState {
	v: 1;
	export: ExportName;
	window?: string;
	/** Followed exports: the header row, then each row's values in its order (the key is read again from them). */
	columns?: string[];
	/** Followed exports: the key columns the rows are keyed by (null: a fingerprint); absent before any row. */
	key?: string[] | null;
	/** New-only exports: the Key Column setting their fingerprints were taken with, when one was set. */
	keyColumn?: string;
	/**
	 * The rows as one JSON text of a list of value lists: n8n wraps every object of static data in a
	 * Proxy when it loads a workflow, so 100,000 row lists would be 100,000 Proxies (0.5 s and 40 MB).
	 */
	rows?: string;
	/** New-only exports: key fingerprints. */
	seen?: string[];
}

/** The export's answer cannot be diffed safely (no key column, a key listed twice, a blank key). */
export class ChangesError extends Error {}

/** sha256, first 12 bytes, base64: 16 characters. */
export function fingerprint(value: unknown): string {
	return createHash('sha256').update(canonical(value)).digest('base64').slice(0, 16);
}

/** JSON with object keys sorted, so the same row is the same text whatever its key order. */
function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Row)[k])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

const SET_KEY_COLUMN = 'Set Key Column to the column that tells its rows apart';

/**
 * The column names the key is read from: the Key Column when set, else by name (the portfolio's KE
 * column by name, then by the shape of `rows`, the first page's); undefined means a fingerprint of
 * the whole row. Throws ChangesError naming Key Column when the key cannot be told.
 */
export function keyColumns(name: ExportName, header: readonly string[], rows: readonly Row[] = [], keyColumn = ''): string[] | undefined {
	const quoted = () => header.map((c) => JSON.stringify(c)).join(', ');
	const wanted = keyColumn.trim();
	if (wanted !== '') {
		// As typed, else the one column that differs only in case, `_`, `-` or spaces.
		const plain = (column: string) => columnWords(column).join('');
		const loose = header.filter((column) => plain(column) === plain(wanted));
		const column = header.includes(wanted) ? wanted : loose.length === 1 ? loose[0] : undefined;
		if (column === undefined) {
			throw new ChangesError(`Key Column is ${JSON.stringify(wanted)}, but the ${name} export has no such column: its columns are ${quoted()}. Set Key Column to one of them, or leave it empty to detect it`);
		}
		return [column];
	}
	if (name === 'portfolio') {
		const found = findKeColumn(header, rows);
		if ('problem' in found) throw new ChangesError(`${found.problem}. Set Key Column to the column that holds the KE`);
		return [found.column];
	}
	if (name === 'invitations') {
		const id = columnNamed(header, ['invitation_id', 'invitation', 'id']);
		if (id === undefined) {
			throw new ChangesError(`The invitations export has no invitation_id column, so its invitations cannot be told apart: its columns are ${quoted()}. ${SET_KEY_COLUMN}`);
		}
		return [id];
	}
	if (name === 'expiries') {
		const reference = columnNamed(header, ['reference', 'ref']);
		if (reference === undefined) return undefined;
		const kind = columnNamed(header, ['kind', 'type']);
		return kind === undefined ? [reference] : [kind, reference];
	}
	const id = columnNamed(header, ['id', `${name.slice(0, -1)}_id`]);
	return id === undefined ? undefined : [id];
}

/** A row's key: one column's text, several columns as a JSON list, or the row's fingerprint. */
export function keyOf(row: Row, columns: readonly string[] | undefined): string {
	if (columns === undefined) return fingerprint(row);
	const values = columns.map((c) => row[c]);
	const blank = columns.find((column) => row[column] === undefined || row[column] === null || String(row[column]).trim() === '');
	// The row's key column is blank: telling it apart from others would be a guess.
	if (blank !== undefined && columns.length === 1) throw new ChangesError(`A row has no ${blank}: ${JSON.stringify(row).slice(0, 200)}`);
	return columns.length === 1 ? String(values[0]).trim() : JSON.stringify(values.map((v) => (v === undefined || v === null ? '' : String(v).trim())));
}

const same = (a: unknown, b: unknown) => a === b || canonical(a) === canonical(b);

/**
 * One reading of an export against the state before it. Feed every page's rows in order with
 * `add`; only when the export is complete, `finish` gives the changes (only the kinds in `emit`)
 * and the next state. Memory: the two states and the changes kept, never the export's rows.
 */
export class ExportReading {
	private readonly next: ExportState;
	private readonly kept: Change[] = [];
	private readonly keeps: boolean;
	private columnsOfKey: string[] | undefined;
	private header: string[] | undefined;
	private rowCount = 0;
	private earlier: ExportState | undefined;
	private emit: ReadonlySet<ChangeKind>;
	/** The earlier state's columns by name, and whether they are this reading's, in the same order. */
	private earlierAt = new Map<string, number>();
	private sameColumns = false;

	constructor(
		name: ExportName,
		window: string | undefined,
		/** The state after the last complete reading; undefined on the first poll (the baseline). */
		earlier: ExportState | undefined,
		/** The kinds of change to keep for emitting; the state advances whatever they are. */
		emit: ReadonlySet<ChangeKind>,
		/** The Key Column setting; '' detects the key. */
		private readonly keyColumn = '',
		/** What a baseline emits, should the earlier state be keyed by columns this reading does not have. */
		private readonly baseline: ReadonlySet<ChangeKind> = new Set(),
	) {
		this.earlier = earlier;
		this.emit = emit;
		this.keeps = keepsRows(name);
		this.next = { export: name, window, columns: [], rows: new Map(), seen: new Set(), key: undefined, keyColumn: keyColumn.trim() };
	}

	/**
	 * The rows of one page. `header` is the CSV header row (the same on every page); JSON rows
	 * (decisions, statements) have none and are keyed row by row.
	 */
	add(rows: readonly Row[], header?: readonly string[]): void {
		if (this.keeps && this.header === undefined && rows.length > 0) this.begin(header ?? Object.keys(rows[0]), rows);
		for (const row of rows) {
			this.rowCount++;
			if (this.keeps) this.follow(row);
			else this.collect(row);
		}
	}

	/** The first page with rows: its header row, and the key read off it (by shape from its rows, if need be). */
	private begin(header: readonly string[], rows: readonly Row[]): void {
		this.header = [...header];
		this.next.columns = this.header;
		const earlierKey = this.earlier?.key;
		// Detected once, the key stays while its columns do: a first page whose values change cannot move it.
		const kept = this.next.keyColumn === '' && Array.isArray(earlierKey) && earlierKey.every((column) => this.header!.includes(column));
		this.columnsOfKey = kept ? [...earlierKey] : keyColumns(this.next.export, this.header, rows, this.keyColumn);
		this.next.key = this.columnsOfKey ?? null;
		if (this.earlier !== undefined && earlierKey !== undefined && !sameKey(earlierKey, this.next.key)) {
			// Keyed by other columns (Key Column set or changed): the earlier rows keyed again, else a new baseline.
			const rekeyed = rekey(this.earlier, this.columnsOfKey);
			if (rekeyed === undefined) this.emit = this.baseline;
			this.earlier = rekeyed;
		}
		const earlierColumns = this.earlier?.columns ?? [];
		this.earlierAt = new Map(earlierColumns.map((c, i) => [c, i]));
		this.sameColumns = earlierColumns.length === this.header.length && earlierColumns.every((c, i) => c === this.header![i]);
	}

	private follow(row: Row): void {
		const key = keyOf(row, this.columnsOfKey);
		const values = this.header!.map((c) => row[c]);
		if (this.next.rows.has(key)) {
			// Identical rows under a fingerprint key are one row; a key column listed twice is not.
			if (this.columnsOfKey === undefined) return;
			throw new ChangesError(
				`The ${this.next.export} export lists ${this.columnsOfKey.join(' and ')} ${JSON.stringify(key)} twice (row ${this.rowCount}): it probably changed while it was read page by page, so this reading is not used`,
			);
		}
		this.next.rows.set(key, values);
		const before = this.earlier?.rows.get(key);
		if (this.earlier === undefined || before === undefined) {
			if (this.emit.has('added')) this.kept.push({ change: 'added', key, row });
			return;
		}
		if (!this.emit.has('changed')) return;
		// The common case, the same columns and values, costs one comparison per cell.
		if (this.sameColumns && values.every((value, i) => value === before[i])) return;
		const previous = this.previousOf(row, before);
		if (previous !== undefined) this.kept.push({ change: 'changed', key, row, previous });
	}

	/** The fields whose values differ from the earlier row (columns added or gone included), or undefined. */
	private previousOf(row: Row, before: unknown[]): Row | undefined {
		const earlierColumns = this.earlier!.columns;
		let previous: Row | undefined;
		const note = (column: string, value: unknown) => {
			previous ??= {};
			// A Service column named like an Object.prototype member must stay a plain field.
			Object.defineProperty(previous, column, { value, enumerable: true, writable: true, configurable: true });
		};
		for (const column of this.header!) {
			const index = this.earlierAt.get(column);
			const was = index === undefined ? null : before[index];
			if (!same(was ?? null, row[column] ?? null)) note(column, was ?? null);
		}
		const now = new Set(this.header);
		earlierColumns.forEach((column, i) => {
			if (!now.has(column)) note(column, before[i]);
		});
		return previous;
	}

	private collect(row: Row): void {
		const columns = keyColumns(this.next.export, Object.keys(row), [], this.keyColumn);
		const key = keyOf(row, columns);
		const seen = fingerprint(key);
		if (this.next.seen.has(seen)) return;
		this.next.seen.add(seen);
		const isNew = this.earlier === undefined || !this.earlier.seen.has(seen);
		if (isNew && this.emit.has('added')) this.kept.push({ change: 'added', key, row });
	}

	/** The export was read whole: the changes in order (added and changed as read, then removed) and the next state. */
	finish(): { changes: Change[]; state: ExportState } {
		if (this.keeps && this.earlier !== undefined && this.emit.has('removed')) {
			for (const [key, values] of this.earlier.rows) {
				if (!this.next.rows.has(key)) this.kept.push({ change: 'removed', key, row: rowOf(this.earlier.columns, values) });
			}
		}
		return { changes: this.kept, state: this.next };
	}
}

/** The state's rows keyed by `columns`; undefined when it lacks one of them or two rows share a key. */
function rekey(state: ExportState, columns: string[] | undefined): ExportState | undefined {
	if (columns !== undefined && !columns.every((column) => state.columns.includes(column))) return undefined;
	const rows = new Map<string, unknown[]>();
	try {
		for (const values of state.rows.values()) {
			const key = keyOf(rowOf(state.columns, values), columns);
			if (rows.has(key) && columns !== undefined) return undefined;
			rows.set(key, values);
		}
	} catch {
		return undefined;
	}
	return { ...state, rows, key: columns ?? null };
}

const sameKey = (a: readonly string[] | null, b: readonly string[] | null) =>
	a === null || b === null ? a === b : a.length === b.length && a.every((column, i) => column === b[i]);

/** A row from its header row and values, as a plain object with a field per column. */
export function rowOf(columns: readonly string[], values: readonly unknown[]): Row {
	const row: Row = {};
	columns.forEach((c, i) => Object.defineProperty(row, c, { value: values[i], enumerable: true, writable: true, configurable: true }));
	return row;
}

/** The state kept in static data. */
export function storeState(state: ExportState): StoredState {
	const common: StoredState = {
		v: 1,
		export: state.export,
		...(state.window === undefined ? {} : { window: state.window }),
	};
	if (keepsRows(state.export)) {
		return { ...common, columns: state.columns, ...(state.key === undefined ? {} : { key: state.key }), rows: JSON.stringify([...state.rows.values()]) };
	}
	return { ...common, ...(state.keyColumn === '' ? {} : { keyColumn: state.keyColumn }), seen: [...state.seen] };
}

/**
 * The state read back from static data, for this export and window (and, for new-only exports, Key
 * Column); undefined when there is none, it was kept for another (a new baseline), or it cannot be read.
 */
export function restoreState(stored: unknown, name: ExportName, window: string | undefined, keyColumn = ''): ExportState | undefined {
	if (stored === null || typeof stored !== 'object') return undefined;
	const s = stored as Partial<StoredState>;
	const setting = keyColumn.trim();
	if (s.v !== 1 || s.export !== name || (s.window ?? undefined) !== window) return undefined;
	// Followed exports keep their key columns and are keyed again when they change; new-only ones keep fingerprints.
	if (!keepsRows(name) && (s.keyColumn ?? '') !== setting) return undefined;
	const state: ExportState = { export: name, window, columns: [], rows: new Map(), seen: new Set(), key: undefined, keyColumn: setting };
	if (keepsRows(name)) {
		if (!Array.isArray(s.columns) || typeof s.rows !== 'string' || !s.columns.every((c) => typeof c === 'string')) return undefined;
		state.columns = [...s.columns];
		const storedKey = s.key;
		if (storedKey !== undefined && storedKey !== null && (!Array.isArray(storedKey) || !storedKey.every((c) => typeof c === 'string' && state.columns.includes(c)))) {
			return undefined;
		}
		try {
			const rows = JSON.parse(s.rows) as unknown;
			if (!Array.isArray(rows)) return undefined;
			// A state stored before the key was kept with it: its key by name, as it was read then.
			const columns = rows.length === 0 ? undefined : storedKey !== undefined ? (storedKey ?? undefined) : keyColumns(name, state.columns);
			state.key = rows.length === 0 ? undefined : (columns ?? null);
			const at = columns?.length === 1 ? state.columns.indexOf(columns[0]) : -1;
			for (const values of rows as unknown[]) {
				if (!Array.isArray(values) || values.length !== state.columns.length) return undefined;
				// One key column (portfolio, invitations): its value, as keyOf reads it, without building the row.
				const single = at < 0 ? undefined : values[at];
				const key = typeof single === 'string' && single.trim() !== '' ? single.trim() : keyOf(rowOf(state.columns, values), columns);
				state.rows.set(key, values);
			}
		} catch {
			return undefined;
		}
		return state;
	}
	if (!Array.isArray(s.seen) || !s.seen.every((k) => typeof k === 'string')) return undefined;
	state.seen = new Set<string>(s.seen);
	return state;
}

/** Where one poll's pages come from and how they are read; `failed` words the error of a page that failed. */
export interface ExportSource {
	fetchPage(request: PageRequest): Promise<PageAnswer<unknown>>;
	paging: PagingOptions;
	/** CSV exports: one reading for the whole export; JSON exports: undefined. */
	csv: CsvPages | undefined;
	redactBytes(bytes: Buffer): Buffer;
	failed(error: unknown, request: PageRequest | undefined, rowsRead: number): Error;
	/** Throws when a row is not what was asked for (an expiries row outside the window); `before`: rows read before these. */
	check?(rows: Row[], before: number): void;
}

/**
 * Every page of the export, in order, to `add` (or the first page only, for the editor's sample).
 * A page that fails to arrive or to be read, or paging that does not end (Max Pages, a repeated
 * cursor), throws `source.failed`'s error: the reading is then incomplete and must not be used.
 */
export async function readPages(source: ExportSource, add: (rows: Row[], header: string[] | undefined) => void, firstPageOnly = false): Promise<void> {
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
				const rows = pageRows(page.content, source.csv, source).map(asRow);
				source.check?.(rows, rowsRead);
				add(rows, source.csv?.header);
				rowsRead += rows.length;
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
	await readPages(source, (rows, header) => reading.add(rows, header));
	const { changes, state } = reading.finish();
	return { changes, stored: storeState(state) };
}

/** The editor's sample: the first rows of the export's first page as `added`. */
export async function sampleExport(options: PollOptions, source: ExportSource, count: number): Promise<Change[]> {
	const reading = new ExportReading(options.export, options.window, undefined, new Set(['added']), options.keyColumn ?? '');
	await readPages(source, (rows, header) => reading.add(rows, header), true);
	return reading.finish().changes.slice(0, count);
}
