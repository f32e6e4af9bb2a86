/**
 * Reading the Service's CSV: exports, and an import's per-row answer. Pure: no n8n types. The spec
 * shows neither the delimiter nor whether later pages repeat the header row
 * (docs/service-choices.md), so:
 * - the delimiter is read off the first page's header row (`detectDelimiter`), or set;
 * - a later page's first record is the header again when it equals the first page's header row,
 *   else a data row (`CsvHeaderRepeat` pins either way).
 * `CsvPages` reads pages record by record (`CsvPage.each`), never a page of parsed rows. The file export
 * streams pages through byte for byte instead (`exports/csvPageFilter.ts`), with the same rules.
 */
import { parse } from 'csv-parse/sync';

/**
 * First characters that make a spreadsheet read a text cell as a formula. The Service puts a
 * quote (') before text cells starting with one of them (spec section 2, rule 2).
 */
export const FORMULA_STARTS: ReadonlySet<string> = new Set(['=', '+', '-', '@', '\t', '\r']);

/** The quote the Service puts before such a cell. */
export const FORMULA_GUARD = "'";

export type CsvDelimiter = ',' | ';' | '\t' | '|';
/** `auto`: read off the first page's header row. */
export type CsvDelimiterSetting = 'auto' | CsvDelimiter;
/** Whether later pages start with the header row: `auto` compares their first record with it. */
export type CsvHeaderRepeat = 'auto' | 'every' | 'first';

const DELIMITER_NAMES: Record<CsvDelimiter, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };
const CANDIDATES = Object.keys(DELIMITER_NAMES) as CsvDelimiter[];
const SET_DELIMITER = "set CSV Delimiter under Advanced Settings in the Service API credential";

/** A CSV page the nodes cannot read (e.g. a quoted cell that never closes). */
export class CsvFormatError extends Error {}

/** Removes the Service's formula guard: one leading quote when a formula character follows it. */
export function stripFormulaGuard(value: string): string {
	return value.length > 1 && value[0] === FORMULA_GUARD && FORMULA_STARTS.has(value[1]) ? value.slice(1) : value;
}

/** Where the first record of `text` ends (its line end), or -1 when it has not ended yet. */
export function firstRecordEnd(text: string): number {
	let quoted = false;
	for (let i = 0; i < text.length; i++) {
		const ch = text[i];
		// Inside a well-formed record a quote toggles, a doubled quote toggles twice.
		if (ch === '"') quoted = !quoted;
		else if (!quoted && (ch === '\n' || ch === '\r')) return i;
	}
	return -1;
}

/** The delimiter of a header row: the one candidate that occurs most outside quotes, or why none can be told. */
export function detectDelimiter(headerRow: string): CsvDelimiter {
	const counts = new Map<CsvDelimiter, number>(CANDIDATES.map((c) => [c, 0]));
	let quoted = false;
	for (const ch of headerRow) {
		if (ch === '"') quoted = !quoted;
		else if (!quoted && counts.has(ch as CsvDelimiter)) counts.set(ch as CsvDelimiter, counts.get(ch as CsvDelimiter)! + 1);
	}
	const ranked = [...counts].sort((a, b) => b[1] - a[1]);
	const shown = JSON.stringify(headerRow.length > 80 ? `${headerRow.slice(0, 80)}…` : headerRow);
	if (ranked[0][1] === 0) {
		throw new CsvFormatError(`The header row ${shown} has no comma, semicolon, tab or pipe between column names, so the CSV delimiter cannot be told: ${SET_DELIMITER}`);
	}
	if (ranked[1][1] === ranked[0][1]) {
		throw new CsvFormatError(
			`The header row ${shown} has as many ${DELIMITER_NAMES[ranked[0][0]]}s as ${DELIMITER_NAMES[ranked[1][0]]}s, so the CSV delimiter cannot be told: ${SET_DELIMITER}`,
		);
	}
	return ranked[0][0];
}

export interface CsvReading {
	delimiter: CsvDelimiterSetting;
	headerRepeat: CsvHeaderRepeat;
	stripFormulaGuard?: boolean;
}

const sameCells = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((cell, i) => cell === b[i]);
const sameSet = (a: readonly string[], b: readonly string[]) => sameCells([...a].sort(), [...b].sort());

/**
 * Whether a later page's first record is the header row again (then it is dropped), per
 * CsvHeaderRepeat; throws when the page contradicts the setting or lists the columns reordered.
 */
export function isRepeatedHeader(first: readonly string[], header: readonly string[], repeat: CsvHeaderRepeat): boolean {
	if (repeat === 'first') return false;
	if (sameCells(first, header)) return true;
	if (repeat === 'every') {
		throw new CsvFormatError(
			'Its first row does not repeat the header row of the first page, but CSV Header Row on Later Pages is set to Every Page: set it to Detect or First Page Only under Advanced Settings in the Service API credential',
		);
	}
	if (first.length > 1 && sameSet(first, header)) {
		throw new CsvFormatError('Its header row lists the columns of the first page in another order, so its rows cannot be read with the same header');
	}
	return false;
}

/** What a page's consumer is handed: each data row's cells in the header row's order; `false` stops the reading. */
export type CsvVisit = (cells: string[]) => boolean | void;

/** Thrown through csv-parse's `on_record` to stop it once the consumer has what it wants. */
const STOP = new Error('stop');

/**
 * The pages of one export, read lazily: `page` keeps a page's text and reads its records one at a
 * time, so a consumer holds the rows it keeps, never a page of parsed rows (docs/token-and-limits.md).
 * Handles a byte order mark, CRLF or LF line ends, quoted delimiters, quotes ("") and line breaks.
 * Feed the pages in order; the first one gives the header row (and the delimiter, when detected).
 */
export class CsvPages {
	header: string[] | undefined;
	delimiter: CsvDelimiter | undefined;
	private detected = false;

	constructor(private readonly reading: CsvReading) {
		if (reading.delimiter !== 'auto') this.delimiter = reading.delimiter;
	}

	/** One page, its header row (or repeated header) read at once and its data rows as `each` is called. */
	page(input: string | Buffer): CsvPage {
		let text = typeof input === 'string' ? input : input.toString('utf8');
		if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
		if (this.delimiter === undefined) {
			const body = text.replace(/^[\r\n]+/, '');
			const end = firstRecordEnd(body);
			const headerRow = end < 0 ? body : body.slice(0, end);
			if (headerRow === '') return new CsvPage(this, '', this.reading);
			this.delimiter = detectDelimiter(headerRow);
			this.detected = true;
		}
		return new CsvPage(this, text, this.reading);
	}

	/** A page's data rows as row objects, all held: for pages that are small by nature (an import's answer, the KE picker's one page). */
	rows(input: string | Buffer): Array<Record<string, string>> {
		const page = this.page(input);
		const rows: Array<Record<string, string>> = [];
		page.each((cells) => void rows.push(this.row(cells)));
		return rows;
	}

	/**
	 * One data row as an object keyed by the header row, values as text (CSV has no types), each its
	 * own copy: a row kept must not keep its page's text alive (a cut of 13 characters or more would).
	 */
	row(cells: readonly string[]): Record<string, string> {
		const header = this.header!;
		// fromEntries defines own properties: a column named `__proto__` keeps its value (an assignment would not).
		if (header.includes('__proto__')) return Object.fromEntries(header.map((name, i) => [name, ownText(cells[i])])) as Record<string, string>;
		// Else assignment makes the same own fields in the same order, without an array per cell (bench item 1).
		const row: Record<string, string> = {};
		for (let i = 0; i < header.length; i++) row[header[i]] = ownText(cells[i]);
		return row;
	}

	/** @internal The words for a data row whose cell count is not the header row's. */
	lengthError(row: number, cells: number): CsvFormatError {
		const hint = this.detected
			? ` The delimiter was read off the header row as ${DELIMITER_NAMES[this.delimiter!]}: if that is wrong, ${SET_DELIMITER}.`
			: '';
		return new CsvFormatError(`Row ${row} of the page has ${cells} cells where the header row has ${this.header!.length}.${hint}`);
	}
}

/**
 * One page's text, read record by record as `each` asks (again from the start on each call: the KE
 * found by shape reads the first page twice). Its first record is read at once: the header row on
 * the export's first page, else the header again or a data row (CsvHeaderRepeat).
 */
export class CsvPage {
	/** Whether the page's first record is not a data row (the header row, or it repeated). */
	private skipFirst = false;
	/** Data rows handed on by the pass that went furthest. */
	rowsRead = 0;

	constructor(
		private readonly pages: CsvPages,
		private readonly text: string,
		private readonly reading: CsvReading,
	) {
		if (text === '') return;
		this.records((cells) => {
			if (pages.header === undefined) {
				pages.header = headerRow(cells);
				this.skipFirst = true;
			} else this.skipFirst = isRepeatedHeader(cells, pages.header, reading.headerRepeat);
			return false;
		});
	}

	/** The header row, once any page had one. */
	get header(): string[] | undefined {
		return this.pages.header;
	}

	/** Each data row in order, its cells checked against the header row and guard-stripped; stops when `visit` returns false. */
	each(visit: CsvVisit): void {
		// No record at all (empty lines only): no header row, no rows.
		if (this.text === '' || this.pages.header === undefined) return;
		const width = this.pages.header.length;
		const strip = this.reading.stripFormulaGuard;
		let first = true;
		let row = 0;
		this.records((cells) => {
			if (first) {
				first = false;
				if (this.skipFirst) return true;
			}
			row++;
			if (row > this.rowsRead) this.rowsRead = row;
			if (cells.length !== width) throw this.pages.lengthError(row, cells.length);
			if (strip) for (let i = 0; i < width; i++) cells[i] = stripFormulaGuard(cells[i]);
			return visit(cells);
		});
	}

	/** Every record of the text to `take` until it returns false: split directly, else by csv-parse from where that was unsure. */
	private records(take: CsvVisit): void {
		const delimiter = this.pages.delimiter!;
		const taken = splitEach(this.text, delimiter, take);
		if (taken < 0) return;
		// csv-parse reads the page again, passing over the records already taken; its own error (e.g. an unclosed quote) names the line.
		let seen = 0;
		const on_record = (cells: string[]) => {
			if (seen++ >= taken && take(cells) === false) throw STOP;
			return null;
		};
		let failure: unknown;
		try {
			parse(this.text, { delimiter, skip_empty_lines: true, relax_column_count: true, on_record });
		} catch (error) {
			failure = error;
		}
		// The page's own error (csv-parse's words, or a row's) as thrown; STOP only ended the reading.
		if (failure !== undefined && failure !== STOP) throw failure as Error;
	}
}

/** A copy of `text` that does not point into a larger string (V8 keeps a cut of 13 or more characters as a view of its source). */
export function ownText(text: string): string {
	// The joined string is flattened into a new one; the cut is a view of that copy, one character longer.
	return text.length < 13 ? text : ` ${text}`.substring(1);
}

/**
 * A page's records as csv-parse reads them (RFC 4180 quoting, empty lines skipped, one kind of line
 * end: CRLF, LF or CR throughout), in one pass without its per-character machinery; undefined for any
 * page it is not sure of (a stray quote, mixed line ends, a lone quoted empty cell), which
 * csv-parse then reads and, where it must, refuses with its own words.
 */
export function splitPlain(text: string, delimiter: string): string[][] | undefined {
	const records: string[][] = [];
	return splitEach(text, delimiter, (cells) => void records.push(cells)) < 0 ? records : undefined;
}

/**
 * `splitPlain` one record at a time: each to `take` until it returns false. -1 once the text was read
 * (or `take` stopped); else the number of records taken before the first one it is not sure of, the
 * same as csv-parse's first records (a record is taken only once it ended).
 */
export function splitEach(text: string, delimiter: string, take: CsvVisit): number {
	const d = delimiter.charCodeAt(0);
	const n = text.length;
	let lineEnd: number | undefined;
	let taken = 0;
	let i = 0;
	while (i < n) {
		const cells: string[] = [];
		let quoted = false;
		for (;;) {
			quoted = text.charCodeAt(i) === QUOTE_CODE;
			if (quoted) {
				let from = i + 1;
				let cell = '';
				for (;;) {
					const q = text.indexOf('"', from);
					if (q < 0) return taken;
					if (text.charCodeAt(q + 1) !== QUOTE_CODE) {
						cells.push(cell + text.slice(from, q));
						i = q + 1;
						break;
					}
					cell += text.slice(from, q + 1);
					from = q + 2;
				}
			} else {
				let j = i;
				for (; j < n; j++) {
					const c = text.charCodeAt(j);
					if (c === d || c === LF || c === CR) break;
					if (c === QUOTE_CODE) return taken;
				}
				cells.push(text.slice(i, j));
				i = j;
			}
			if (i >= n) break;
			const c = text.charCodeAt(i);
			if (c === d) {
				i++;
				continue;
			}
			// The first line end outside quotes is the page's, as csv-parse finds it: CRLF, else LF, else CR.
			const end = c === CR ? (text.charCodeAt(i + 1) === LF ? CRLF : CR) : c === LF ? LF : 0;
			if (end === 0 || (lineEnd !== undefined && end !== lineEnd)) return taken;
			lineEnd = end;
			i += end === CRLF ? 2 : 1;
			break;
		}
		if (cells.length === 1 && cells[0] === '') {
			if (quoted) return taken;
			continue;
		}
		taken++;
		if (take(cells) === false) return -1;
	}
	return -1;
}

const QUOTE_CODE = 34;
const LF = 10;
const CR = 13;
/** Not a character: CR then LF, as a line end. */
const CRLF = -2;

/**
 * The header row, refused when it names a column twice: a row keyed by column name would keep one
 * of the two values and drop the other without a word (docs/service-choices.md).
 */
export function headerRow(cells: string[]): string[] {
	const seen = new Map<string, number>();
	for (let i = 0; i < cells.length; i++) {
		const first = seen.get(cells[i]);
		if (first !== undefined) {
			throw new CsvFormatError(
				`Its header row names the column ${JSON.stringify(cells[i])} twice (columns ${first + 1} and ${i + 1}), so an item keyed by column name would lose one of its values: ask the Service to name its columns apart, or set Output to File to get the CSV as sent`,
			);
		}
		seen.set(cells[i], i);
	}
	return cells;
}

/** One CSV page as row objects (a page that is a CSV file on its own). */
export function parseCsvRows(input: string | Buffer, options: Partial<CsvReading> = {}): Array<Record<string, string>> {
	return new CsvPages({ delimiter: options.delimiter ?? ',', headerRepeat: 'auto', stripFormulaGuard: options.stripFormulaGuard }).rows(input);
}

/** The names the portfolio export's company-name column goes by, matched case-insensitively (its KE column: keColumn.ts). */
export const PORTFOLIO_COLUMNS = { name: ['company_name', 'name', 'company'] } as const;

/** The first of `candidates` the header row has, as the header row spells it. */
export function columnNamed(header: readonly string[], candidates: readonly string[]): string | undefined {
	for (const candidate of candidates) {
		const found = header.find((column) => column.trim().toLowerCase() === candidate);
		if (found !== undefined) return found;
	}
	return undefined;
}
