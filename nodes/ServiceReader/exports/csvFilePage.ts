/**
 * One CSV page into the export's file, in its own encoding (docs/service-choices.md): the bytes of every
 * record kept are the bytes sent. The page's byte order mark and Excel's `sep=` line are read first: the
 * first page's are written at the start of the file (Excel reads `sep=` there), a later page's are
 * dropped. An ASCII-safe charset (UTF-8, windows-1252, ISO-8859-x…) passes through `CsvPageFilter` as
 * bytes; UTF-16 is read through it as WTF-8 and written back in its byte order. Pure: no n8n types.
 */
import { CsvFormatError } from '../../shared/csv';
import type { SepLine } from '../../shared/csvText';
import { applySepLine, charsetOf, encodingOf, pageEncoding, sepLineOf } from '../../shared/csvText';
import type { CsvPageFilterOptions } from './csvPageFilter';
import { CsvPageFilter } from './csvPageFilter';
import { Utf16ToWtf8, Wtf8ToUtf16 } from './utf16Units';

/** Characters enough to read a `sep=X` line and its line end. */
const SEP_PROBE = 16;

/** Encodings whose multi-byte characters may hold ASCII bytes (a `|`, a quote): their bytes cannot be read as ASCII. */
const ASCII_UNSAFE: ReadonlySet<string> = new Set(['shift_jis', 'big5', 'gbk', 'gb18030', 'iso-2022-jp', 'replacement']);

export interface CsvFilePageOptions extends CsvPageFilterOptions {
	contentType: string | undefined;
	/** The export's first page's encoding; absent on the first page itself. */
	fileEncoding?: string;
}

export class CsvFilePage {
	/** The page's encoding (WHATWG's name), once its first bytes are in. */
	encoding: string | undefined;
	/** The page's `sep=` line: `undefined` until told, `null` when it has none. */
	sep: SepLine | undefined;
	private filter: CsvPageFilter | undefined;
	private readonly named: string | undefined;
	private raw: Buffer = Buffer.alloc(0);
	private ascii: Buffer = Buffer.alloc(0);
	private bom: Buffer = Buffer.alloc(0);
	private units: Utf16ToWtf8 | undefined;
	private back: Wtf8ToUtf16 | undefined;

	constructor(private readonly options: CsvFilePageOptions) {
		const label = charsetOf(options.contentType);
		this.named = label === undefined ? undefined : encodingOf(label);
	}

	get done(): boolean {
		return this.filter?.done ?? false;
	}
	get rows(): number {
		return this.filter?.rows ?? 0;
	}
	get headerCells(): string[] | undefined {
		return this.filter?.headerCells;
	}
	get delimiter() {
		return this.filter?.delimiter;
	}
	get lineEnd(): string {
		return this.filter?.lineEnd ?? this.options.lineEnd ?? '\r\n';
	}

	push(bytes: Buffer): Buffer[] {
		return this.read(bytes, false);
	}

	end(): Buffer[] {
		return this.read(Buffer.alloc(0), true);
	}

	private read(bytes: Buffer, final: boolean): Buffer[] {
		const out: Buffer[] = [];
		if (this.encoding === undefined) {
			// Copied (under 64 bytes) only when kept for the next chunk; a chunk is read where it lies.
			const raw = this.raw.length === 0 ? bytes : Buffer.concat([this.raw, bytes]);
			const found = pageEncoding(raw, final, this.named, this.options.fileEncoding);
			if (found === undefined) {
				this.raw = Buffer.concat([raw]);
				return out;
			}
			this.setEncoding(found.encoding);
			this.bom = Buffer.concat([raw.subarray(0, found.bomLength)]);
			bytes = raw.subarray(this.bom.length);
			this.raw = Buffer.alloc(0);
		}
		const ascii = this.units ? this.units.push(bytes, final) : bytes;
		if (this.filter === undefined) {
			const held = this.ascii.length === 0 ? ascii : Buffer.concat([this.ascii, ascii]);
			// The first line's few characters tell it (a longer prefix changes nothing): not the whole chunk as text.
			const sep = sepLineOf(held.toString('latin1', 0, Math.min(held.length, SEP_PROBE)), final || held.length > SEP_PROBE);
			if (sep === undefined) {
				this.ascii = Buffer.concat([held]);
				return out;
			}
			this.start(sep, out);
			const rest = held.subarray(sep?.line.length ?? 0);
			this.ascii = Buffer.alloc(0);
			this.pass(this.filter!.push(rest), out);
		} else this.pass(this.filter.push(ascii), out);
		if (final && !this.filter!.done) this.pass(this.filter!.end(), out);
		return out;
	}

	private setEncoding(encoding: string): void {
		const file = this.options.fileEncoding;
		if (file !== undefined && encoding !== file) {
			throw new CsvFormatError(`This page is in ${encoding} where the first page was in ${file}: one file cannot hold both as sent. Set Output to Items to get the rows`);
		}
		if (ASCII_UNSAFE.has(encoding)) {
			throw new CsvFormatError(`The page is in ${encoding}, whose characters may hold bytes that read as delimiters or quotes, so the file export cannot keep it as sent: set Output to Items to get the rows`);
		}
		this.encoding = encoding;
		if (encoding === 'utf-16le' || encoding === 'utf-16be') {
			this.units = new Utf16ToWtf8(encoding === 'utf-16be');
			this.back = new Wtf8ToUtf16(encoding === 'utf-16be');
		}
	}

	/** The sep= line read: it gives the filter its delimiter; the first page's mark and line open the file. */
	private start(sep: SepLine, out: Buffer[]): void {
		this.sep = sep;
		const holder = { delimiter: this.options.delimiter === 'auto' ? undefined : this.options.delimiter };
		applySepLine(holder, sep);
		this.filter = new CsvPageFilter({ ...this.options, delimiter: holder.delimiter ?? 'auto' });
		if (this.options.header !== undefined) return;
		if (this.bom.length > 0) out.push(Buffer.from(this.bom));
		if (sep) out.push(this.back ? this.back.push(Buffer.from(sep.line, 'latin1')) : Buffer.from(sep.line, 'latin1'));
	}

	private pass(pieces: Buffer[], out: Buffer[]): void {
		for (const piece of pieces) {
			const bytes = this.back ? this.back.push(piece) : piece;
			if (bytes.length > 0) out.push(bytes);
		}
	}
}
