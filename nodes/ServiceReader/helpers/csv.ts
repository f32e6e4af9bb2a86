/**
 * CSV handling for the Service's CSV exports. Pure: no n8n types.
 *
 * - `parseCsvRows` turns one page into row objects keyed by the header row (csv-parse).
 * - `CsvPageFilter` passes one page through unchanged, byte for byte, except that it can drop the
 *   header row (pages after the first, so a file built from several pages has it once), remove the
 *   formula guard, and stop after a number of rows. It works chunk by chunk so a file can be
 *   streamed page by page without holding a page in memory.
 */
import { parse } from 'csv-parse/sync';

/**
 * First characters that make a spreadsheet read a text cell as a formula. The Service puts a
 * quote (') before text cells starting with one of them (spec section 2, rule 2).
 */
export const FORMULA_STARTS: ReadonlySet<string> = new Set(['=', '+', '-', '@', '\t', '\r']);

const GUARD = "'";
const BOM = '\uFEFF';

/** A CSV page the nodes cannot read (e.g. a quoted cell that never closes). */
export class CsvFormatError extends Error {}

/** Removes the Service's formula guard: one leading quote when a formula character follows it. */
export function stripFormulaGuard(value: string): string {
	return value.length > 1 && value[0] === GUARD && FORMULA_STARTS.has(value[1]) ? value.slice(1) : value;
}

export interface CsvRowsOptions {
	stripFormulaGuard?: boolean;
}

/**
 * One CSV page as row objects: header row as keys, values as text (CSV has no types). Handles a
 * byte order mark, CRLF or LF line ends, quoted commas, quotes ("") and line breaks.
 */
export function parseCsvRows(input: string | Buffer, options: CsvRowsOptions = {}): Array<Record<string, string>> {
	// csv-parse's own error (e.g. an unclosed quote, a row with more cells than the header) names the line.
	const rows = parse(input, { bom: true, columns: true, skip_empty_lines: true }) as Array<Record<string, string>>;
	if (!options.stripFormulaGuard) return rows;
	for (const row of rows) {
		for (const key of Object.keys(row)) row[key] = stripFormulaGuard(row[key]);
	}
	return rows;
}

export interface CsvPageFilterOptions {
	/** Leave out the header row (and a byte order mark): for every page after the first. */
	dropHeader: boolean;
	stripFormulaGuard: boolean;
	/** Pass on at most this many data rows; `done` turns true once they are out. */
	maxRows?: number;
}

/**
 * Streams one CSV page through, tracking quotes so that record and cell boundaries are exact even
 * when a quoted cell holds commas, quotes or line breaks, or a chunk ends in the middle of one.
 * Everything not removed on purpose comes out exactly as it came in.
 */
export class CsvPageFilter {
	/** The header row's text as received (no byte order mark, no line end). */
	header = '';
	/** Data rows passed on so far. */
	rows = 0;
	/** True once `maxRows` rows are out: the rest of the page is ignored. */
	done = false;

	private recordIndex = 0;
	private inQuotes = false;
	private atCellStart = true;
	private atQuotedStart = false;
	private recordHasContent = false;
	private bomChecked = false;
	private carry = '';
	private lineEnd = '\r\n';
	private out = '';

	constructor(private readonly options: CsvPageFilterOptions) {}

	/** Feeds the next piece of the page; returns what to pass on. */
	push(text: string): string {
		this.process(this.carry + text, false);
		return this.take();
	}

	/**
	 * Ends the page; returns the last piece to pass on. A last row without a line end gets one, so
	 * the next page's rows do not run into it.
	 */
	end(text = ''): string {
		this.process(this.carry + text, true);
		if (!this.done) {
			if (this.inQuotes) {
				throw new CsvFormatError(
					`A quoted cell in row ${this.recordIndex} is not closed at the end of the page`,
				);
			}
			if (this.recordHasContent) this.endRecord(this.lineEnd);
		}
		return this.take();
	}

	private take(): string {
		const out = this.out;
		this.out = '';
		return out;
	}

	private get inDroppedHeader(): boolean {
		return this.recordIndex === 0 && this.options.dropHeader;
	}

	private emit(text: string): void {
		if (this.recordIndex === 0) this.header += text;
		if (!this.inDroppedHeader) this.out += text;
	}

	private endRecord(lineEnd: string): void {
		if (this.recordIndex === 0 && this.recordHasContent) {
			this.lineEnd = lineEnd;
			if (!this.options.dropHeader) this.out += lineEnd;
			this.recordIndex = 1;
		} else if (this.recordHasContent) {
			this.out += lineEnd;
			this.rows++;
			this.recordIndex++;
			if (this.options.maxRows !== undefined && this.rows >= this.options.maxRows) this.done = true;
		} else if (!this.inDroppedHeader) {
			// A blank line is not a row; it is kept as it came.
			this.out += lineEnd;
		}
		this.atCellStart = true;
		this.recordHasContent = false;
	}

	private process(text: string, final: boolean): void {
		this.carry = '';
		const strip = this.options.stripFormulaGuard;
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
					if (!this.options.dropHeader) this.out += ch;
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
			if (ch === ',') {
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
				if (next !== '\r' && FORMULA_STARTS.has(next)) continue;
				this.emit(ch);
				continue;
			}
			this.atCellStart = false;
			this.emit(ch);
		}
	}
}
