/**
 * The state kept between polls: in static data as compact JSON (the rows as one JSON text), read back
 * as the text and a Map from each key to where its row starts, without parsing the rows
 * (docs/changes-trigger.md has bytes per row). Pure: no n8n types.
 */
import type { ExportName } from './keys';
import { keepsRows, keyColumns, keyOf, rowOf } from './keys';

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

/** Marks an earlier row met again in this reading (in place of where it starts). */
export const MET = -1;

/** The state's rows keyed by `columns`; undefined when it lacks one of them or two rows share a key. */
export function rekey(state: ExportState, columns: string[] | undefined): ExportState | undefined {
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
 * The UTF-8 bytes of everything a stored state keeps (Max State Size): its rows' text as it is, and every
 * other field (header row, key columns, fingerprints, window) as static data's JSON writes it.
 */
export function storedBytes(stored: StoredState): number {
	return Buffer.byteLength(stored.rows ?? '') + Buffer.byteLength(JSON.stringify({ ...stored, rows: undefined }));
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
export function storedValues(text: string, start: number): unknown[] {
	return JSON.parse(text.slice(start, storedRowEnd(text, start))) as unknown[];
}

/**
 * Where the stored row starting at `start` ends when its text is JSON.stringify(values), else -1;
 * plain text values are compared in place, without writing the row's text.
 */
export function sameRowText(text: string, start: number, values: readonly unknown[]): number {
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
