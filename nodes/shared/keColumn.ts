/**
 * The portfolio's KE column. The spec shows KE as a portfolio row's identifier but not its column's
 * name (docs/service-choices.md): found by name, then by shape; more than one candidate is refused,
 * never one picked. The KE picker, Add Company Details and the changes trigger all read it here, so
 * they agree. Pure: no n8n types.
 */
import { CsvFormatError } from './csv';
import { MAX_ID_LENGTH, SAFE_SEGMENT_PATTERN } from './validation';

/** The portfolio's KE column cannot be told (none, or more than one candidate). */
export class KeColumnError extends CsvFormatError {}

/** Names the spec gives the KE elsewhere: a company "appears as ids.organisation in event bodies". */
const SPEC_NAMES: readonly string[] = ['organisation', 'organization', 'organisationid', 'organizationid'];
const SAFE_SEGMENT = new RegExp(`^${SAFE_SEGMENT_PATTERN}$`);

/** A column name's words, lower case: split at `_`, `-`, spaces and a lower-to-upper case step (`keNumber`). */
export function columnWords(column: string): string[] {
	const words: string[] = [];
	let word = '';
	for (let i = 0; i < column.length; i++) {
		const ch = column[i];
		if (ch === '_' || ch === '-' || ch.trim() === '') {
			if (word !== '') words.push(word);
			word = '';
			continue;
		}
		const upper = ch !== ch.toLowerCase();
		const previous = column[i - 1] ?? '';
		if (upper && word !== '' && previous === previous.toLowerCase() && previous !== previous.toUpperCase()) {
			words.push(word);
			word = '';
		}
		word += ch.toLowerCase();
	}
	if (word !== '') words.push(word);
	return words;
}

/** The columns named like the KE, best first: `ke` itself (any case, `_`/`-`/space ignored), then a word `ke` (`company_ke`, `KE Number`), then the spec's `organisation`. */
function byName(header: readonly string[]): { column: string; ambiguous?: string[] } | undefined {
	const plain = (column: string) => columnWords(column).join('');
	const ranks: Array<(column: string) => boolean> = [
		(column) => plain(column) === 'ke',
		(column) => columnWords(column).includes('ke'),
		(column) => SPEC_NAMES.includes(plain(column)),
	];
	for (const matches of ranks) {
		const found = header.filter(matches);
		if (found.length === 1) return { column: found[0] };
		if (found.length > 1) return { column: found[0], ambiguous: found };
	}
	return undefined;
}

/**
 * Rows to tell the KE column by: a list, or a reading that hands them one at a time (a page read lazily,
 * csv.ts) and stops when the visitor returns false, so no page of rows is held to look at them.
 */
export type RowSource = ReadonlyArray<Record<string, unknown>> | ((visit: (row: Record<string, unknown>) => boolean) => void);

/** The columns whose every value could be a KE (an identifier the Reader puts in a request path), no two the same: one pass. */
function identifierColumns(header: readonly string[], rows: RowSource): string[] {
	let open = header.map((column) => ({ column, seen: new Set<string>() }));
	let any = false;
	const visit = (row: Record<string, unknown>) => {
		any = true;
		open = open.filter(({ column, seen }) => {
			const value = row[column];
			if (typeof value !== 'string' && typeof value !== 'number') return false;
			const text = String(value).trim();
			if (text.length === 0 || text.length > MAX_ID_LENGTH || !SAFE_SEGMENT.test(text) || seen.has(text)) return false;
			seen.add(text);
			return true;
		});
		// No column left: the rest of the page cannot change the answer.
		return open.length > 0;
	};
	if (typeof rows === 'function') rows(visit);
	else for (const row of rows) if (!visit(row)) break;
	return any ? open.map(({ column }) => column) : [];
}

const quoted = (columns: readonly string[]) => columns.map((c) => JSON.stringify(c)).join(', ');

/**
 * The portfolio's KE column: by name (`columnWords`), else by shape on `rows` (the first page's):
 * the one column whose values are all non-empty, distinct, and usable as a KE in a request path.
 * Otherwise why not, naming the columns (none, or more than one); the caller adds what the user can
 * do (a setting, By KE).
 */
export function findKeColumn(header: readonly string[], rows: RowSource): { column: string } | { problem: string } {
	const named = byName(header);
	if (named?.ambiguous !== undefined) {
		return { problem: `The portfolio has several columns named like a KE (${quoted(named.ambiguous)}), so which one holds the KE cannot be told` };
	}
	if (named !== undefined) return { column: named.column };
	const shaped = identifierColumns(header, rows);
	if (shaped.length === 1) return { column: shaped[0] };
	if (shaped.length > 1) {
		return {
			problem: `The portfolio has no column named ke, and ${shaped.length} columns whose values on the first page could each be the KE (${quoted(shaped)}), so which one holds it cannot be told`,
		};
	}
	return {
		problem: `The portfolio has no column named ke, nor one whose values on the first page are all distinct identifiers, so its companies cannot be told apart: its columns are ${quoted(header)}`,
	};
}

/** `findKeColumn`'s column, or its problem thrown as a KeColumnError. */
export function keColumnOf(header: readonly string[], rows: RowSource): string {
	const found = findKeColumn(header, rows);
	if ('problem' in found) throw new KeColumnError(found.problem);
	return found.column;
}
