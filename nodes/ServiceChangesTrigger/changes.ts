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
	/** Followed exports: the header row the values are in. */
	columns: string[];
	/** Followed exports: the columns the rows are keyed by; null a fingerprint; undefined not told yet (no rows). */
	key: string[] | null | undefined;
	/** The Key Column setting it was read with ('' when detected); new-only exports' fingerprints depend on it. */
	keyColumn: string;
	/**
	 * Followed exports: the rows as stored (`StoredState.rows`, the JSON text of the list of value
	 * lists), and, read back, where each row's list starts in it by key (parsed only for a row that
	 * changed or is gone).
	 */
	text: string;
	rows: Map<string, number>;
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

/** Marks an earlier row met again in this reading (in place of where it starts). */
const MET = -1;

/** One page of an export: CSV as cell lists in the header row's order, JSON as rows. */
export type Page = { header: string[]; cells: string[][] } | { header?: undefined; rows: Row[] };

/**
 * One reading of an export against the state before it. Feed every page in order with `addPage`
 * (or rows with `add`); only when the export is complete, `finish` gives the changes (only the
 * kinds in `emit`) and the next state. Memory: the earlier state (the stored text and a Map entry
 * per row, which it uses up), the next state's text, the keys of rows new since then and the
 * changes kept; never the export's rows.
 */
export class ExportReading {
	private readonly next: ExportState;
	private readonly kept: Change[] = [];
	private readonly keeps: boolean;
	private columnsOfKey: string[] | undefined;
	/** The one key column's index, or -1 (several columns, or a fingerprint). */
	private keyAt = -1;
	private header: string[] | undefined;
	private rowCount = 0;
	private earlier: ExportState | undefined;
	private emit: ReadonlySet<ChangeKind>;
	/** The earlier state's columns by name, and whether they are this reading's, in the same order. */
	private earlierAt = new Map<string, number>();
	private sameColumns = false;
	/** Keys read in this reading that the earlier state does not have (earlier ones are marked MET in its Map). */
	private readonly fresh = new Set<string>();
	/** The next state's row texts: this page's, then each page's joined. */
	private pageTexts: string[] = [];
	private readonly texts: string[] = [];
	/**
	 * Every row so far is the earlier state's next one, unchanged: the next state's text is then
	 * the earlier text up to `inOrderEnd` (where the next row would start), kept without copying.
	 */
	private inOrder: boolean;
	private inOrderEnd = 1;

	constructor(
		name: ExportName,
		window: string | undefined,
		/** The state after the last complete reading (used up by this reading); undefined on the first poll (the baseline). */
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
		this.next = { export: name, window, columns: [], text: '[]', rows: new Map(), seen: new Set(), key: undefined, keyColumn: keyColumn.trim() };
		this.inOrder = earlier !== undefined;
	}

	/**
	 * The rows of one page. `header` is the CSV header row (the same on every page); JSON rows
	 * (decisions, statements) have none and are keyed row by row.
	 */
	add(rows: readonly Row[], header?: readonly string[]): void {
		if (this.keeps && this.header === undefined && rows.length > 0) this.begin(header ?? Object.keys(rows[0]), rows);
		for (const row of rows) {
			this.rowCount++;
			if (this.keeps) this.follow(this.header!.map((c) => row[c]), row);
			else this.collect(row);
		}
		this.endPage();
	}

	/** One page as read off the wire: a row object is built only for a row that is emitted. */
	addPage(page: Page): void {
		if (page.header === undefined) return this.add(page.rows);
		if (!this.keeps) return this.add(page.cells.map((cells) => rowOf(page.header, cells)), page.header);
		// The key may be told by the first page's values: its rows as objects, once.
		if (this.header === undefined && page.cells.length > 0) this.begin(page.header, page.cells.map((cells) => rowOf(page.header, cells)));
		for (const cells of page.cells) {
			this.rowCount++;
			this.follow(cells, undefined);
		}
		this.endPage();
	}

	/** The first page with rows: its header row, and the key read off it (by shape from its rows, if need be). */
	private begin(header: readonly string[], rows: readonly Row[]): void {
		this.header = [...header];
		this.next.columns = this.header;
		const earlierKey = this.earlier?.key;
		// Detected once, the key stays while its columns do: a first page whose values change cannot move it.
		const kept = this.next.keyColumn === '' && Array.isArray(earlierKey) && earlierKey.every((column) => this.header!.includes(column));
		this.columnsOfKey = kept ? [...earlierKey] : keyColumns(this.next.export, this.header, rows, this.keyColumn);
		this.keyAt = this.columnsOfKey?.length === 1 ? this.header.indexOf(this.columnsOfKey[0]) : -1;
		this.next.key = this.columnsOfKey ?? null;
		if (this.earlier !== undefined && earlierKey !== undefined && !sameKey(earlierKey, this.next.key)) {
			// Keyed by other columns (Key Column set or changed): the earlier rows keyed again, else a new baseline.
			const rekeyed = rekey(this.earlier, this.columnsOfKey);
			if (rekeyed === undefined) {
				this.emit = this.baseline;
				this.inOrder = false;
			}
			this.earlier = rekeyed;
		}
		const earlierColumns = this.earlier?.columns ?? [];
		this.earlierAt = new Map(earlierColumns.map((c, i) => [c, i]));
		this.sameColumns = earlierColumns.length === this.header.length && earlierColumns.every((c, i) => c === this.header![i]);
	}

	private endPage(): void {
		if (this.pageTexts.length === 0) return;
		this.texts.push(this.pageTexts.join(','));
		this.pageTexts = [];
	}

	/** One row's values in the header row's order; `given` is the row object when the caller has one. */
	private follow(values: readonly unknown[], given: Row | undefined): void {
		const header = this.header!;
		let row = given;
		const rowNow = () => (row ??= rowOf(header, values));
		const single = this.keyAt < 0 ? undefined : values[this.keyAt];
		// One key column (portfolio, invitations): its text, as keyOf reads it, without building the row.
		const key = typeof single === 'string' && single.trim() !== '' ? single.trim() : keyOf(rowNow(), this.columnsOfKey);
		const before = this.earlier?.rows.get(key);
		if (before === MET || (before === undefined && this.fresh.has(key))) {
			// Identical rows under a fingerprint key are one row; a key column listed twice is not.
			if (this.columnsOfKey === undefined) return;
			throw new ChangesError(
				`The ${this.next.export} export lists ${this.columnsOfKey.join(' and ')} ${JSON.stringify(key)} twice (row ${this.rowCount}): it probably changed while it was read page by page, so this reading is not used`,
			);
		}
		if (before === undefined) {
			this.leaveOrder();
			this.pageTexts.push(JSON.stringify(values));
			this.fresh.add(key);
			if (this.emit.has('added')) this.kept.push({ change: 'added', key, row: rowNow() });
			return;
		}
		const earlier = this.earlier!;
		earlier.rows.set(key, MET);
		// The common case, the same columns and values: the same text, compared where it is stored.
		const end = this.sameColumns ? sameRowText(earlier.text, before, values) : -1;
		if (end >= 0) {
			if (this.inOrder && before === this.inOrderEnd) {
				this.inOrderEnd = end + 1;
				return;
			}
			this.leaveOrder();
			this.pageTexts.push(earlier.text.slice(before, end));
			return;
		}
		this.leaveOrder();
		this.pageTexts.push(JSON.stringify(values));
		if (!this.emit.has('changed')) return;
		const previous = this.previousOf(rowNow(), storedValues(earlier.text, before));
		if (previous !== undefined) this.kept.push({ change: 'changed', key, row: rowNow(), previous });
	}

	/** A row that is not the earlier state's next one unchanged: the rows so far become text of their own. */
	private leaveOrder(): void {
		if (!this.inOrder) return;
		this.inOrder = false;
		if (this.inOrderEnd > 1) this.texts.push(this.earlier!.text.slice(1, this.inOrderEnd - 1));
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
		this.endPage();
		if (this.keeps && this.earlier !== undefined && this.emit.has('removed')) {
			for (const [key, start] of this.earlier.rows) {
				if (start !== MET) this.kept.push({ change: 'removed', key, row: rowOf(this.earlier.columns, storedValues(this.earlier.text, start)) });
			}
		}
		if (!this.keeps) return { changes: this.kept, state: this.next };
		// Every earlier row again, unchanged and in order (the common poll): the earlier text as it is.
		if (this.inOrder && this.inOrderEnd === this.earlier!.text.length) this.next.text = this.earlier!.text;
		else {
			this.leaveOrder();
			this.next.text = `[${this.texts.join(',')}]`;
		}
		return { changes: this.kept, state: this.next };
	}
}

/** The state's rows keyed by `columns`; undefined when it lacks one of them or two rows share a key. */
function rekey(state: ExportState, columns: string[] | undefined): ExportState | undefined {
	if (columns !== undefined && !columns.every((column) => state.columns.includes(column))) return undefined;
	const rows = new Map<string, number>();
	try {
		for (const start of state.rows.values()) {
			const key = keyOf(rowOf(state.columns, storedValues(state.text, start)), columns);
			if (rows.has(key) && columns !== undefined) return undefined;
			rows.set(key, start);
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
		// `text` is the same text as JSON.stringify of the list of value lists.
		return { ...common, columns: state.columns, ...(state.key === undefined ? {} : { key: state.key }), rows: state.text };
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
	const state: ExportState = { export: name, window, columns: [], text: '[]', rows: new Map(), seen: new Set(), key: undefined, keyColumn: setting };
	if (keepsRows(name)) {
		const text = s.rows;
		if (!Array.isArray(s.columns) || typeof text !== 'string' || !s.columns.every((c) => typeof c === 'string')) return undefined;
		state.columns = [...s.columns];
		const storedKey = s.key;
		if (storedKey !== undefined && storedKey !== null && (!Array.isArray(storedKey) || !storedKey.every((c) => typeof c === 'string' && state.columns.includes(c)))) {
			return undefined;
		}
		try {
			// No rows (an empty export may have no header row): no key columns to look for. A state stored
			// before the key was kept with it: its key by name, as it was read then.
			const empty = text.trim() === '[]';
			const keyColumnsOf = empty ? undefined : storedKey !== undefined ? (storedKey ?? undefined) : keyColumns(name, state.columns);
			const at = keyColumnsOf?.length === 1 ? state.columns.indexOf(keyColumnsOf[0]) : -1;
			const add = (from: string, start: number, end: number, keyCell: string | undefined) => {
				// One key column holding plain text: the key as keyOf reads it, without parsing the row.
				const plain = keyCell?.trim();
				const key = plain !== undefined && plain !== '' ? plain : keyOf(rowOf(state.columns, JSON.parse(from.slice(start, end)) as unknown[]), keyColumnsOf);
				state.rows.set(key, start);
			};
			state.text = text;
			if (!eachStoredRow(text, state.columns.length, at, (start, end, keyCell) => add(text, start, end, keyCell))) {
				// Not as this node writes it (nested values, spaces): read as JSON and written again, or not at all.
				state.rows.clear();
				const rows = JSON.parse(text) as unknown;
				if (!Array.isArray(rows) || !rows.every((values) => Array.isArray(values) && values.length === state.columns.length)) return undefined;
				const texts = (rows as unknown[]).map((values) => JSON.stringify(values));
				state.text = `[${texts.join(',')}]`;
				let start = 1;
				for (const row of texts) {
					add(state.text, start, start + row.length, undefined);
					start += row.length + 1;
				}
			}
			state.key = state.rows.size === 0 ? undefined : (keyColumnsOf ?? null);
		} catch {
			return undefined;
		}
		return state;
	}
	if (!Array.isArray(s.seen) || !s.seen.every((k) => typeof k === 'string')) return undefined;
	state.seen = new Set<string>(s.seen);
	return state;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN = 91;
const CLOSE = 93;

/**
 * The stored rows text (`[[values], ...]`, as JSON.stringify writes it) row by row, without parsing
 * it into lists: `row` is the text of one value list (a slice of `text`), `keyCell` the text of its
 * value at `at` when that is a string without escapes. A row whose values are not all plain strings
 * or null is checked with JSON.parse. False when the text is not written so (the caller then parses
 * it whole); throws when a row does not parse.
 */
function eachStoredRow(text: string, width: number, at: number, onRow: (start: number, end: number, keyCell: string | undefined) => void): boolean {
	const n = text.length;
	if (n < 2 || text.charCodeAt(0) !== OPEN || text.charCodeAt(n - 1) !== CLOSE) return false;
	if (n === 2) return true;
	let i = 1;
	for (;;) {
		if (text.charCodeAt(i) !== OPEN) return false;
		const start = i;
		let cells = 0;
		let cellStart = i + 1;
		let plain = true;
		let keyCell: string | undefined;
		i++;
		for (;;) {
			if (i >= n) return false;
			const c = text.charCodeAt(i);
			if (c === QUOTE) {
				// A string cell: to its closing quote, skipping escapes.
				const from = i;
				let escaped = false;
				for (i++; i < n; i++) {
					const d = text.charCodeAt(i);
					if (d === BACKSLASH) {
						escaped = true;
						i++;
					} else if (d === QUOTE) break;
				}
				if (i >= n) return false;
				i++;
				const next = text.charCodeAt(i);
				if (from !== cellStart || (next !== COMMA && next !== CLOSE)) plain = false;
				else if (cells === at && !escaped) keyCell = text.slice(from + 1, i - 1);
				continue;
			}
			if (c === COMMA || c === CLOSE) {
				if (c === CLOSE && cells === 0 && i === start + 1) {
					i++;
					break;
				}
				const cell = i - cellStart;
				if (text.charCodeAt(cellStart) !== QUOTE && !(cell === 4 && text.startsWith('null', cellStart))) plain = false;
				cells++;
				cellStart = i + 1;
				i++;
				if (c === CLOSE) break;
				continue;
			}
			// A nested list or object: not as this node writes rows.
			if (c === OPEN || c === 123) return false;
			i++;
		}
		const row = text.slice(start, i);
		if (!plain) {
			// A number or true/false among the values: JSON.parse says whether the row reads.
			if (!checked(row, width)) return false;
			onRow(start, i, undefined);
		} else {
			if (cells !== width) return false;
			onRow(start, i, keyCell);
		}
		if (i === n - 1) return true;
		if (text.charCodeAt(i) !== COMMA) return false;
		i++;
	}
}

/** Where the value list starting at `start` in a stored text ends (just after its closing bracket). */
function storedRowEnd(text: string, start: number): number {
	let depth = 0;
	for (let i = start; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c === QUOTE) {
			for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
		} else if (c === OPEN || c === 123) depth++;
		else if ((c === CLOSE || c === 125) && --depth === 0) return i + 1;
	}
	return text.length;
}

/** The values of the stored row starting at `start`. */
function storedValues(text: string, start: number): unknown[] {
	return JSON.parse(text.slice(start, storedRowEnd(text, start))) as unknown[];
}

/**
 * Where the stored row starting at `start` ends when its text is JSON.stringify(values), else -1;
 * plain text values are compared in place, without writing the row's text.
 */
function sameRowText(text: string, start: number, values: readonly unknown[]): number {
	let i = start;
	if (text.charCodeAt(i++) !== OPEN) return -1;
	for (let v = 0; v < values.length; v++) {
		const value = values[v];
		if (v > 0 && text.charCodeAt(i++) !== COMMA) return -1;
		if (typeof value !== 'string') return sameText(text, start, values);
		if (text.charCodeAt(i++) !== QUOTE) return -1;
		for (let k = 0; k < value.length; k++) {
			const c = value.charCodeAt(k);
			// A character JSON escapes (or a surrogate, which it may): compare the whole row's text.
			if (c === QUOTE || c === BACKSLASH || c < 32 || (c >= 0xd800 && c <= 0xdfff)) return sameText(text, start, values);
			if (text.charCodeAt(i++) !== c) return -1;
		}
		if (text.charCodeAt(i++) !== QUOTE) return -1;
	}
	return text.charCodeAt(i) === CLOSE ? i + 1 : -1;
}

function sameText(text: string, start: number, values: readonly unknown[]): number {
	const row = JSON.stringify(values);
	return text.startsWith(row, start) ? start + row.length : -1;
}

/** A value list JSON.parse reads, of `width` values. */
function checked(row: string, width: number): boolean {
	const values = JSON.parse(row) as unknown;
	return Array.isArray(values) && values.length === width;
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
					: { cells: csv.cells(source.redactBytes(page.content as Buffer)), header: csv.header ?? [] };
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
	await readPages(source, (page) => reading.addPage(page));
	const { changes, state } = reading.finish();
	return { changes, stored: storeState(state) };
}

/** The editor's sample: the first rows of the export's first page as `added`. */
export async function sampleExport(options: PollOptions, source: ExportSource, count: number): Promise<Change[]> {
	const reading = new ExportReading(options.export, options.window, undefined, new Set(['added']), options.keyColumn ?? '');
	await readPages(source, (page) => reading.addPage(page), true);
	return reading.finish().changes.slice(0, count);
}
