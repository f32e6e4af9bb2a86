/**
 * Which rows are one row across readings: the export's names and kinds of change, the key per export
 * or the Key Column the user set (the portfolio by its KE column, by name, else by the first page's
 * values: shared/keColumn.ts; invitations by their invitation id column, expiries by their kind and
 * reference columns, else a fingerprint of the whole row; decisions and statements by their id, else a
 * fingerprint). Pure: no n8n types (docs/changes-trigger.md).
 */
import { createHash } from 'node:crypto';

import { columnNamed } from '../shared/csv';
import { columnWords, findKeColumn, type RowSource } from '../shared/keColumn';

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

/** The export's answer cannot be diffed safely (no key column, a key listed twice, a blank key). */
export class ChangesError extends Error {}

/** sha256, first 12 bytes, base64: 16 characters. */
export function fingerprint(value: unknown): string {
	return createHash('sha256').update(canonical(value)).digest('base64').slice(0, 16);
}

/** JSON with object keys sorted, so the same row is the same text whatever its key order. */
export function canonical(value: unknown): string {
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
export function keyColumns(name: ExportName, header: readonly string[], rows: RowSource = [], keyColumn = ''): string[] | undefined {
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

/** A row from its header row and values, as a plain object with a field per column. */
export function rowOf(columns: readonly string[], values: readonly unknown[]): Row {
	const row: Row = {};
	columns.forEach((c, i) => Object.defineProperty(row, c, { value: values[i], enumerable: true, writable: true, configurable: true }));
	return row;
}
