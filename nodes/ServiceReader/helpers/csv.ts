/**
 * CSV handling for the Service's CSV exports. Pure: no n8n types. The spec shows neither the
 * delimiter nor whether later pages repeat the header row (docs/service-choices.md), so:
 * - the delimiter is read off the first page's header row (`detectDelimiter`), or set;
 * - a later page's first record is the header again when it equals the first page's header row,
 *   else a data row (`CsvHeaderRepeat` pins either way).
 * `CsvPages` turns pages into row objects keyed by the header row (csv-parse). `CsvPageFilter`
 * passes one page through unchanged, byte for byte, except that it drops a repeated header row and
 * a later page's byte order mark, can remove the formula guard, and stops after a number of rows.
 * It works chunk by chunk so a file can be streamed page by page without holding a page in memory.
 */
import { parse } from 'csv-parse/sync';

/**
 * First characters that make a spreadsheet read a text cell as a formula. The Service puts a
 * quote (') before text cells starting with one of them (spec section 2, rule 2).
 */
export const FORMULA_STARTS: ReadonlySet<string> = new Set(['=', '+', '-', '@', '\t', '\r']);

const GUARD = "'";
const BOM = '\uFEFF';

export type CsvDelimiter = ',' | ';' | '\t' | '|';
/** `auto`: read off the first page's header row. */
export type CsvDelimiterSetting = 'auto' | CsvDelimiter;
/** Whether later pages start with the header row: `auto` compares their first record with it. */
export type CsvHeaderRepeat = 'auto' | 'every' | 'first';

const DELIMITER_NAMES: Record<CsvDelimiter, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };
const CANDIDATES = Object.keys(DELIMITER_NAMES) as CsvDelimiter[];
/** A header row longer than this is not a header row: refused rather than buffered. */
const MAX_HEADER_CHARS = 1024 * 1024;
const SET_DELIMITER = "set CSV Delimiter under Advanced Settings in the Service API credential";

/** A CSV page the nodes cannot read (e.g. a quoted cell that never closes). */
export class CsvFormatError extends Error {}

/** Removes the Service's formula guard: one leading quote when a formula character follows it. */
export function stripFormulaGuard(value: string): string {
	return value.length > 1 && value[0] === GUARD && FORMULA_STARTS.has(value[1]) ? value.slice(1) : value;
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

/**
 * The pages of one export as row objects: header row as keys, values as text (CSV has no types).
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

	rows(input: string | Buffer): Array<Record<string, string>> {
		const text = (typeof input === 'string' ? input : input.toString('utf8')).replace(/^\uFEFF/, '');
		if (this.delimiter === undefined) {
			const body = text.replace(/^[\r\n]+/, '');
			const end = firstRecordEnd(body);
			const headerRow = end < 0 ? body : body.slice(0, end);
			if (headerRow === '') return [];
			this.delimiter = detectDelimiter(headerRow);
			this.detected = true;
		}
		// csv-parse's own error (e.g. an unclosed quote) names the line.
		const records = parse(text, { delimiter: this.delimiter, skip_empty_lines: true, relax_column_count: true }) as string[][];
		if (records.length === 0) return [];
		if (this.header === undefined) this.header = records.shift()!;
		else if (isRepeatedHeader(records[0], this.header, this.reading.headerRepeat)) records.shift();
		const header = this.header;
		const strip = this.reading.stripFormulaGuard;
		return records.map((cells, index) => {
			if (cells.length !== header.length) throw this.lengthError(index + 1, cells.length);
			const row: Record<string, string> = {};
			for (let i = 0; i < header.length; i++) row[header[i]] = strip ? stripFormulaGuard(cells[i]) : cells[i];
			return row;
		});
	}

	private lengthError(row: number, cells: number): CsvFormatError {
		const hint = this.detected
			? ` The delimiter was read off the header row as ${DELIMITER_NAMES[this.delimiter!]}: if that is wrong, ${SET_DELIMITER}.`
			: '';
		return new CsvFormatError(`Row ${row} of the page has ${cells} cells where the header row has ${this.header!.length}.${hint}`);
	}
}

/** One CSV page as row objects (a page that is a CSV file on its own). */
export function parseCsvRows(input: string | Buffer, options: Partial<CsvReading> = {}): Array<Record<string, string>> {
	return new CsvPages({ delimiter: options.delimiter ?? ',', headerRepeat: 'auto', stripFormulaGuard: options.stripFormulaGuard }).rows(input);
}

export interface CsvPageFilterOptions {
	/** Unknown (`auto`) only on the first page: read off its header row before anything is passed on. */
	delimiter: CsvDelimiterSetting;
	/** The first page's header row cells; absent on the first page itself. */
	header?: readonly string[];
	headerRepeat: CsvHeaderRepeat;
	stripFormulaGuard: boolean;
	/** Pass on at most this many data rows; `done` turns true once they are out. */
	maxRows?: number;
	/** The first page's line end, for a last row that has none. */
	lineEnd?: string;
}

/**
 * Streams one CSV page through, tracking quotes so that record and cell boundaries are exact even
 * when a quoted cell holds delimiters, quotes or line breaks, or a chunk ends in the middle of one.
 * Everything not removed on purpose comes out exactly as it came in. A later page's first record
 * is held back (one record) until it is known to be the header row again or a data row.
 */
export class CsvPageFilter {
	/** The header row's cells (first page), once its record has ended. */
	headerCells: string[] | undefined;
	delimiter: CsvDelimiter | undefined;
	/** Data rows passed on so far. */
	rows = 0;
	/** True once `maxRows` rows are out: the rest of the page is ignored. */
	done = false;

	private readonly firstPage: boolean;
	/** The first record is the header (first page) or may be (later page, unless First Page Only). */
	private headerPending: boolean;
	private recordIndex = 0;
	private inQuotes = false;
	private atCellStart = true;
	private atQuotedStart = false;
	private recordHasContent = false;
	private bomChecked = false;
	private carry = '';
	/** Text before the delimiter is known (first page, Detect). */
	private unread = '';
	/** The first record's text as it would be passed on. */
	private held = '';
	/** The line end of the page's first record: the file's. */
	lineEnd: string;
	private out = '';

	constructor(private readonly options: CsvPageFilterOptions) {
		this.firstPage = options.header === undefined;
		this.headerPending = this.firstPage || options.headerRepeat !== 'first';
		this.lineEnd = options.lineEnd ?? '\r\n';
		if (options.delimiter !== 'auto') this.delimiter = options.delimiter;
		else if (!this.firstPage) throw new Error('A later page needs the delimiter of the first page');
	}

	/** Feeds the next piece of the page; returns what to pass on. */
	push(text: string): string {
		if (this.delimiter === undefined) this.detect(text, false);
		else this.process(this.carry + text, false);
		return this.take();
	}

	/**
	 * Ends the page; returns the last piece to pass on. A last row without a line end gets one, so
	 * the next page's rows do not run into it.
	 */
	end(text = ''): string {
		if (this.delimiter === undefined) this.detect(text, true);
		else this.process(this.carry + text, true);
		if (!this.done) {
			if (this.inQuotes) {
				throw new CsvFormatError(`A quoted cell in row ${this.recordIndex} is not closed at the end of the page`);
			}
			if (this.recordHasContent) this.endRecord(this.lineEnd);
		}
		return this.take();
	}

	/** Collects the first page's text until its header row has ended, then reads the delimiter off it. */
	private detect(text: string, final: boolean): void {
		this.unread += text;
		const body = this.unread.replace(/^\uFEFF?[\r\n]*/, '');
		const end = firstRecordEnd(body);
		if (end < 0 && !final) {
			if (body.length > MAX_HEADER_CHARS) throw new CsvFormatError('The first line of the page is longer than 1 MiB, so it is not a header row');
			return;
		}
		// A page without a header row has no cells to split: any delimiter reads it the same.
		this.delimiter = body === '' ? ',' : detectDelimiter(end < 0 ? body : body.slice(0, end));
		const unread = this.unread;
		this.unread = '';
		this.process(unread, final);
	}

	private take(): string {
		const out = this.out;
		this.out = '';
		return out;
	}

	private emit(text: string): void {
		if (this.recordIndex === 0 && this.headerPending) this.held += text;
		else this.out += text;
	}

	private endRecord(lineEnd: string): void {
		if (!this.recordHasContent) {
			// A blank line is not a row; it is kept as it came, except before a later page's first record.
			if (!(this.recordIndex === 0 && this.headerPending && !this.firstPage)) this.out += lineEnd;
		} else if (this.recordIndex === 0 && this.headerPending) {
			this.lineEnd = lineEnd;
			const cells = this.cellsOf(this.held);
			this.recordIndex = 1;
			if (this.firstPage) {
				this.headerCells = cells;
				this.out += this.held + lineEnd;
			} else if (!isRepeatedHeader(cells, this.options.header!, this.options.headerRepeat)) {
				this.out += this.held + lineEnd;
				this.countRow();
			}
			this.held = '';
		} else {
			if (this.recordIndex === 0) this.lineEnd = lineEnd;
			this.out += lineEnd;
			this.recordIndex++;
			this.countRow();
		}
		this.atCellStart = true;
		this.recordHasContent = false;
	}

	private countRow(): void {
		this.rows++;
		if (this.options.maxRows !== undefined && this.rows >= this.options.maxRows) this.done = true;
	}

	private cellsOf(record: string): string[] {
		const [cells] = parse(record, { delimiter: this.delimiter, relax_column_count: true }) as string[][];
		return cells ?? [];
	}

	private process(text: string, final: boolean): void {
		this.carry = '';
		const strip = this.options.stripFormulaGuard;
		const delimiter = this.delimiter;
		for (let i = 0; i < text.length && !this.done; i++) {
			const ch = text[i];
			const hasNext = i + 1 < text.length;
			// Some characters mean different things depending on the next one: wait for it.
			const needNext = () => {
				if (hasNext || final) return false;
				this.carry = text.slice(i);
				return true;
			};
			if (!this.bomChecked) {
				this.bomChecked = true;
				if (ch === BOM) {
					// One file, one byte order mark: the first page's.
					if (this.firstPage) this.out += ch;
					continue;
				}
			}
			if (this.inQuotes) {
				if (ch === '"') {
					if (needNext()) return;
					if (text[i + 1] === '"') {
						this.emit('""');
						i++;
					} else {
						this.inQuotes = false;
						this.emit('"');
					}
					this.atQuotedStart = false;
					continue;
				}
				if (this.atQuotedStart && strip && ch === GUARD) {
					if (needNext()) return;
					this.atQuotedStart = false;
					if (hasNext && FORMULA_STARTS.has(text[i + 1])) continue;
					this.emit(ch);
					continue;
				}
				this.atQuotedStart = false;
				this.emit(ch);
				continue;
			}
			if (ch === '\n') {
				this.endRecord('\n');
				continue;
			}
			if (ch === '\r') {
				if (needNext()) return;
				if (text[i + 1] === '\n') {
					this.endRecord('\r\n');
					i++;
				} else {
					this.endRecord('\r');
				}
				continue;
			}
			this.recordHasContent = true;
			if (ch === delimiter) {
				this.atCellStart = true;
				this.emit(ch);
				continue;
			}
			if (this.atCellStart && ch === '"') {
				this.atCellStart = false;
				this.inQuotes = true;
				this.atQuotedStart = true;
				this.emit(ch);
				continue;
			}
			if (this.atCellStart && strip && ch === GUARD) {
				if (needNext()) return;
				this.atCellStart = false;
				// In an unquoted cell a line break after the quote ends the row: the quote is the whole cell.
				const next = hasNext ? text[i + 1] : '';
				if (next !== '\r' && next !== delimiter && FORMULA_STARTS.has(next)) continue;
				this.emit(ch);
				continue;
			}
			this.atCellStart = false;
			this.emit(ch);
		}
	}
}
