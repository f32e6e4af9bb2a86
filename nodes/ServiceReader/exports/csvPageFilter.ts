/**
 * One page of a CSV export streamed into the export's file. Pure: no n8n types. The file mode feeds it
 * bytes as latin1 text (one character per byte, `bytesAsText`), so nothing is decoded and re-encoded
 * whatever the charset (any ASCII-compatible one: UTF-8, windows-1252, ISO-8859-x); delimiters, quotes
 * and line ends are ASCII, and the header row and the byte order mark are found on the bytes. The page
 * passes through unchanged, byte for byte, except that a repeated header row and a later page's byte order
 * mark are dropped, the formula guard can be removed, and it stops after a number of rows. It works
 * chunk by chunk so a file can be streamed page by page without holding a page in memory.
 */
import { parse } from 'csv-parse/sync';

import type { CsvDelimiter, CsvDelimiterSetting, CsvHeaderRepeat } from '../../shared/csv';
import { CsvFormatError, detectDelimiter, firstRecordEnd, FORMULA_GUARD, FORMULA_STARTS, isRepeatedHeader } from '../../shared/csv';

/** UTF-8's byte order mark as text; `BOM_BYTES` the same as latin1 text of its bytes (EF BB BF). */
const BOM = '\uFEFF';
export const BOM_BYTES = '\u00EF\u00BB\u00BF';
/** A header row longer than this is not a header row: refused rather than buffered. */
const MAX_HEADER_CHARS = 1024 * 1024;

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
	/** Called with each data row's cells and the header row (the expiries window check); only then are rows split into cells. */
	onRow?: (cells: string[], header: readonly string[]) => void;
	/** The byte order mark as the text fed holds it: `BOM_BYTES` for bytes read as latin1 (default: U+FEFF). */
	bom?: string;
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
	private readonly bom: string;
	/** Text before the delimiter is known (first page, Detect). */
	private unread = '';
	/** The first record's text as it would be passed on. */
	private held = '';
	/** The line end of the page's first record: the file's. */
	lineEnd: string;
	private out = '';
	/** The current record's text, kept only for `onRow`. */
	private recordText = '';

	constructor(private readonly options: CsvPageFilterOptions) {
		this.firstPage = options.header === undefined;
		this.headerPending = this.firstPage || options.headerRepeat !== 'first';
		this.lineEnd = options.lineEnd ?? '\r\n';
		this.bom = options.bom ?? BOM;
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
		let from = this.unread.startsWith(this.bom) ? this.bom.length : 0;
		while (from < this.unread.length && (this.unread[from] === '\r' || this.unread[from] === '\n')) from++;
		const body = this.unread.slice(from);
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
		if (this.options.onRow) this.recordText += text;
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
		this.recordText = '';
	}

	private countRow(): void {
		if (this.options.onRow) this.options.onRow(this.cellsOf(this.recordText), this.options.header ?? this.headerCells ?? []);
		this.rows++;
		if (this.options.maxRows !== undefined && this.rows >= this.options.maxRows) this.done = true;
	}

	private cellsOf(record: string): string[] {
		const [cells] = parse(record, { delimiter: this.delimiter, relax_column_count: true }) as string[][];
		return cells ?? [];
	}

	private process(input: string, final: boolean): void {
		this.carry = '';
		let text = input;
		if (!this.bomChecked) {
			// A byte order mark of several bytes may arrive split across chunks: wait for all of it.
			if (!final && text.length < this.bom.length && this.bom.startsWith(text)) {
				this.carry = text;
				return;
			}
			this.bomChecked = true;
			if (text.startsWith(this.bom)) {
				// One file, one byte order mark: the first page's.
				if (this.firstPage) this.out += this.bom;
				text = text.slice(this.bom.length);
			}
		}
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
				if (this.atQuotedStart && strip && ch === FORMULA_GUARD) {
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
			if (this.atCellStart && strip && ch === FORMULA_GUARD) {
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
