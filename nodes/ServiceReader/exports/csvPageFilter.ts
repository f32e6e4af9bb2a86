/**
 * One page of a CSV export streamed into the export's file, as bytes (Buffers): nothing is decoded, so
 * any ASCII-compatible charset comes out byte for byte (delimiters, quotes and line ends are ASCII).
 * Pure: no n8n types. The page passes on in slices of the chunks fed, unchanged except that a repeated
 * header row and a later page's byte order mark are dropped, the formula guard can be removed, and it
 * stops after a number of rows. What must be seen whole first (the first page's header row, a later
 * page's first record until it is known to be the header again or a data row, each row under an expiries
 * window) is held as bytes, at most `HELD_RECORD_BYTES` (docs/token-and-limits.md), counted in `peakHeldBytes`.
 */
import { parse } from 'csv-parse/sync';

import type { CsvDelimiter, CsvDelimiterSetting, CsvHeaderRepeat } from '../../shared/csv';
import { CsvFormatError, detectDelimiter, isRepeatedHeader } from '../../shared/csv';
import { BOM_BYTES, CR, firstRecordEndOf, GUARD, heldRecordTooLong, HELD_RECORD_BYTES, LF, LINE_ENDS, QUOTE, sized, STARTS } from './csvBytes';

export { BOM_BYTES, HELD_RECORD_BYTES } from './csvBytes';

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
	/** Called with each data row's cells and the header row (the expiries window check); only then are rows held and split into cells. */
	onRow?: (cells: string[], header: readonly string[]) => void;
	/** The most bytes of one record held (default `HELD_RECORD_BYTES`; tests set less). */
	maxHeldBytes?: number;
}

/**
 * Streams one CSV page through, tracking quotes so that record and cell boundaries are exact even
 * when a quoted cell holds delimiters, quotes or line breaks, or a chunk ends in the middle of one.
 * Everything not removed on purpose comes out exactly as it came in.
 */
export class CsvPageFilter {
	/** The header row's cells (first page), once its record has ended. */
	headerCells: string[] | undefined;
	delimiter: CsvDelimiter | undefined;
	/** Data rows passed on so far. */
	rows = 0;
	/** True once `maxRows` rows are out: the rest of the page is ignored. */
	done = false;
	/** The line end of the page's first record: the file's. */
	lineEnd: string;
	/**
	 * The most bytes held at once (a record's copy, the first page's bytes before its delimiter is known,
	 * carried bytes): at most `maxHeldBytes` + 2; on a first page whose delimiter is detected, at most
	 * 2 × `maxHeldBytes` + 3 + the largest chunk fed (its bytes up to the header row's end, and a row open there).
	 */
	peakHeldBytes = 0;

	private readonly firstPage: boolean;
	private readonly maxHeld: number;
	/** The first record is the header (first page) or may be (later page, unless First Page Only). */
	private headerPending: boolean;
	/** A later page's first record longer than this cannot be the header row again, however quoted. */
	private readonly repeatBound: number;
	private delimiterCode = -1;
	private recordIndex = 0;
	private inQuotes = false;
	private atCellStart = true;
	private atQuotedStart = false;
	private recordHasContent = false;
	private bomChecked = false;
	/** The last bytes of a chunk whose meaning depends on the next one (at most 3). */
	private carry: Buffer | undefined;
	/** The first page's bytes before the delimiter is known (Detect). */
	private unread: Buffer[] = [];
	private unreadBytes = 0;
	/** The current record's bytes, when it must be read whole (copies: the chunks are not retained). */
	private held: Buffer[] = [];
	private heldBytes = 0;
	/** Of those, the bytes copied (not slices of the unread bytes, counted there). */
	private heldCopies = 0;
	/** The unread bytes while they are read (Detect): slices of them need no copy. */
	private ownChunk: Buffer | undefined;
	private out: Buffer[] = [];
	/** The chunk being read, and where its next slice to pass on starts. */
	private chunk: Buffer = Buffer.alloc(0);
	private spanStart = 0;

	constructor(private readonly options: CsvPageFilterOptions) {
		this.firstPage = options.header === undefined;
		this.headerPending = this.firstPage || options.headerRepeat !== 'first';
		this.lineEnd = options.lineEnd ?? '\r\n';
		this.maxHeld = options.maxHeldBytes ?? HELD_RECORD_BYTES;
		// Each cell at worst quoted with every character a doubled quote, plus the delimiters.
		this.repeatBound = (options.header ?? []).reduce((sum, cell) => sum + 2 * cell.length + 3, 0);
		if (options.delimiter !== 'auto') this.setDelimiter(options.delimiter);
		else if (!this.firstPage) throw new Error('A later page needs the delimiter of the first page');
	}

	/** Feeds the next piece of the page; returns what to pass on (slices of `bytes`, or held bytes). */
	push(bytes: Buffer): Buffer[] {
		if (this.delimiter === undefined) this.detect(bytes, false);
		else this.process(this.withCarry(bytes), false);
		return this.take();
	}

	/** Ends the page; returns the last pieces to pass on. A last row without a line end gets one (the next page follows). */
	end(): Buffer[] {
		if (this.delimiter === undefined) this.detect(Buffer.alloc(0), true);
		else this.process(this.withCarry(Buffer.alloc(0)), true);
		if (!this.done) {
			if (this.inQuotes) {
				throw new CsvFormatError(`A quoted cell in row ${this.recordIndex} is not closed at the end of the page`);
			}
			if (this.recordHasContent) this.endRecord(LINE_ENDS[this.lineEnd]);
		}
		return this.take();
	}

	private setDelimiter(delimiter: CsvDelimiter): void {
		this.delimiter = delimiter;
		this.delimiterCode = delimiter.charCodeAt(0);
	}

	private withCarry(bytes: Buffer): Buffer {
		const carry = this.carry;
		this.carry = undefined;
		return carry === undefined ? bytes : Buffer.concat([carry, bytes]);
	}

	private count(): void {
		const now = this.heldCopies + this.unreadBytes + (this.carry?.length ?? 0);
		if (now > this.peakHeldBytes) this.peakHeldBytes = now;
	}

	/** Holds the first page's bytes until its header row has ended, then reads the delimiter off it. */
	private detect(bytes: Buffer, final: boolean): void {
		if (bytes.length > 0) {
			// Copied: a slice would keep the whole chunk it came from.
			this.unread.push(Buffer.from(bytes));
			this.unreadBytes += bytes.length;
			this.count();
		}
		const all = this.unread.length === 1 ? this.unread[0] : Buffer.concat(this.unread);
		let from = all.subarray(0, 3).equals(BOM_BYTES) ? 3 : 0;
		while (from < all.length && (all[from] === CR || all[from] === LF)) from++;
		const end = firstRecordEndOf(all, from);
		if (end < 0 && !final) {
			// Blank lines before the header row count too: they are held with it.
			if (all.length > this.maxHeld + 3) {
				throw new CsvFormatError(
					`Its first ${sized(this.maxHeld)} holds no whole header row (a single CSV record longer than that, the most the file export holds before writing it), so it is not a header row: check that the Base URL reaches the Service`,
				);
			}
			this.unread = [all];
			return;
		}
		// A page without a header row has no cells to split: any delimiter reads it the same.
		this.setDelimiter(from === all.length ? ',' : detectDelimiter(all.toString('latin1', from, end < 0 ? all.length : end)));
		this.unread = [];
		// Counted until it is read: the header row is held as slices of it.
		this.ownChunk = all;
		this.process(all, final);
		this.ownChunk = undefined;
		// A row still open (under a window) is copied out: its slices would keep all the unread bytes.
		if (this.heldBytes > this.heldCopies) {
			this.held = [Buffer.concat(this.held, this.heldBytes)];
			this.heldCopies = this.heldBytes;
			this.count();
		}
		this.unreadBytes = 0;
	}

	private take(): Buffer[] {
		const out = this.out;
		this.out = [];
		return out;
	}

	/** Whether the current record's bytes are held back until it is known to be a repeated header row. */
	private holdingBack(): boolean {
		return this.recordIndex === 0 && this.headerPending && !this.firstPage;
	}

	private keeping(): boolean {
		return (this.recordIndex === 0 && this.headerPending) || this.options.onRow !== undefined;
	}

	/** Passes on the chunk's bytes from the open slice up to `end` (held back or copied as needed). */
	private flush(end: number): void {
		if (end > this.spanStart) {
			const slice = this.chunk.subarray(this.spanStart, end);
			// Too long to be the header row again, however it is quoted: a data row (or the setting's error) now.
			if (this.holdingBack() && this.heldBytes + slice.length > this.repeatBound) this.decide();
			if (!this.holdingBack()) this.out.push(slice);
			if (this.keeping()) this.hold(slice);
		}
		this.spanStart = end;
	}

	/** Keeps a copy of `slice` (a slice would keep the whole chunk it came from), refusing a record past the cap. */
	private hold(slice: Buffer): void {
		if (this.heldBytes + slice.length > this.maxHeld) throw this.tooLong();
		const own = this.chunk === this.ownChunk;
		this.held.push(own ? slice : Buffer.from(slice));
		this.heldBytes += slice.length;
		if (!own) this.heldCopies += slice.length;
		this.count();
	}

	private tooLong(): CsvFormatError {
		const which = this.recordIndex === 0 && this.firstPage ? 'header' : this.holdingBack() ? 'first' : 'window';
		return heldRecordTooLong(which, this.maxHeld, this.rows + 1);
	}

	private release(): void {
		this.held = [];
		this.heldBytes = 0;
		this.heldCopies = 0;
	}

	private heldText(): string {
		return (this.held.length === 1 ? this.held[0] : Buffer.concat(this.held, this.heldBytes)).toString('latin1');
	}

	/** A later page's first record, known not to be the header row before it ends: passed on as a data row. */
	private decide(): void {
		const header = this.options.header!;
		// Under Every Page that is the setting's error (more cells than the header row never repeat it).
		if (this.options.headerRepeat === 'every') isRepeatedHeader([...header, ''], header, 'every');
		this.headerPending = false;
		for (const bytes of this.held) this.out.push(bytes);
		if (this.options.onRow === undefined) this.release();
	}

	/** Drops the byte at `at`: the slice before it is passed on, the next one starts after it. */
	private skip(at: number, length = 1): void {
		this.flush(at);
		this.spanStart = at + length;
	}

	/** Ends the record; `inSpan`: its line end passes on in the open slice, else it is written here when kept. */
	private endRecord(lineEnd: Buffer, inSpan = false): void {
		const write = () => {
			if (!inSpan) this.out.push(lineEnd);
		};
		if (!this.recordHasContent) {
			// A blank line is not a row; it is kept as it came, except before a later page's first record.
			if (!this.holdingBack()) write();
		} else if (this.recordIndex === 0 && this.headerPending) {
			this.lineEnd = lineEnd.toString('latin1');
			const cells = this.cellsOf(this.heldText());
			this.recordIndex = 1;
			if (this.firstPage) {
				this.headerCells = cells;
				write();
			} else if (!isRepeatedHeader(cells, this.options.header!, this.options.headerRepeat)) {
				for (const bytes of this.held) this.out.push(bytes);
				write();
				this.countRow();
			}
		} else {
			if (this.recordIndex === 0) this.lineEnd = lineEnd.toString('latin1');
			write();
			this.recordIndex++;
			this.countRow();
		}
		this.release();
		this.atCellStart = true;
		this.recordHasContent = false;
	}

	private countRow(): void {
		if (this.options.onRow) this.options.onRow(this.cellsOf(this.heldText()), this.options.header ?? this.headerCells ?? []);
		this.rows++;
		if (this.options.maxRows !== undefined && this.rows >= this.options.maxRows) this.done = true;
	}

	private cellsOf(record: string): string[] {
		const [cells] = parse(record, { delimiter: this.delimiter, relax_column_count: true }) as string[][];
		return cells ?? [];
	}

	/** Waits for the next chunk to tell what the bytes from `at` mean. */
	private wait(at: number): void {
		this.flush(at);
		this.carry = Buffer.from(this.chunk.subarray(at));
		this.spanStart = this.chunk.length;
		this.count();
	}

	private process(input: Buffer, final: boolean): void {
		this.chunk = input;
		this.spanStart = 0;
		let start = 0;
		if (!this.bomChecked) {
			// A byte order mark of several bytes may arrive split across chunks: wait for all of it.
			if (!final && input.length < 3 && BOM_BYTES.subarray(0, input.length).equals(input)) {
				this.carry = Buffer.from(input);
				this.count();
				return;
			}
			this.bomChecked = true;
			if (input.subarray(0, 3).equals(BOM_BYTES)) {
				// One file, one byte order mark: the first page's, and never part of the header row's text.
				if (this.firstPage) this.out.push(input.subarray(0, 3));
				start = 3;
				this.spanStart = 3;
			}
		}
		this.scan(input, start, final);
		if (!this.done) this.flush(input.length);
		this.chunk = Buffer.alloc(0);
	}

	private scan(text: Buffer, start: number, final: boolean): void {
		const strip = this.options.stripFormulaGuard;
		const delimiter = this.delimiterCode;
		const n = text.length;
		for (let i = start; i < n && !this.done; i++) {
			const ch = text[i];
			const hasNext = i + 1 < n;
			// Some bytes mean different things depending on the next one: wait for it.
			if (this.inQuotes) {
				if (ch === QUOTE) {
					if (!hasNext && !final) {
						this.wait(i);
						return;
					}
					if (text[i + 1] === QUOTE) i++;
					else this.inQuotes = false;
					this.atQuotedStart = false;
					continue;
				}
				if (this.atQuotedStart && strip && ch === GUARD) {
					if (!hasNext && !final) {
						this.wait(i);
						return;
					}
					this.atQuotedStart = false;
					if (hasNext && STARTS.has(text[i + 1])) this.skip(i);
					continue;
				}
				this.atQuotedStart = false;
				continue;
			}
			if (ch === LF) {
				this.lineAt(i, 1);
				continue;
			}
			if (ch === CR) {
				if (!hasNext && !final) {
					this.wait(i);
					return;
				}
				const length = text[i + 1] === LF ? 2 : 1;
				this.lineAt(i, length);
				i += length - 1;
				continue;
			}
			this.recordHasContent = true;
			if (ch === delimiter) {
				this.atCellStart = true;
				continue;
			}
			if (this.atCellStart && ch === QUOTE) {
				this.atCellStart = false;
				this.inQuotes = true;
				this.atQuotedStart = true;
				continue;
			}
			if (this.atCellStart && strip && ch === GUARD) {
				if (!hasNext && !final) {
					this.wait(i);
					return;
				}
				this.atCellStart = false;
				// In an unquoted cell a line break after the quote ends the row: the quote is the whole cell.
				const next = hasNext ? text[i + 1] : -1;
				if (next !== CR && next !== delimiter && STARTS.has(next)) this.skip(i);
				continue;
			}
			this.atCellStart = false;
		}
	}

	/** A line end of `length` bytes at `at`: the record before it ends there. */
	private lineAt(at: number, length: number): void {
		const lineEnd = length === 2 ? LINE_ENDS['\r\n'] : this.chunk[at] === LF ? LINE_ENDS['\n'] : LINE_ENDS['\r'];
		if (this.keeping()) {
			// The record is read whole: its bytes apart from its line end, which is written when it is kept.
			this.flush(at);
			this.spanStart = at + length;
			this.endRecord(lineEnd);
			return;
		}
		// Passing through: the line end stays in the open slice, so a page goes on in one slice per chunk.
		this.endRecord(lineEnd, true);
		if (this.done) this.flush(at + length);
	}
}
