/**
 * A CSV page's bytes as text, before any row is read: the charset (a byte order mark, else the
 * Content-Type's `charset`, else UTF-16 told by its NUL bytes, else the export's first page's, else
 * UTF-8), the byte order mark dropped, and Excel's `sep=;` first line
 * taken as the delimiter, never as a header or data row (docs/service-choices.md). Pure: no n8n types.
 * A byte order mark wins over the Content-Type's charset, as WHATWG's decode algorithm says; the
 * contradiction is kept in `bomContradicts` (Check Settings reports it).
 */
import type { CsvDelimiter } from './csv';
import { CsvFormatError } from './csv';

/** The byte order marks: the encoding each one names. */
const BOMS: ReadonlyArray<{ bytes: readonly number[]; charset: string }> = [
	{ bytes: [0xef, 0xbb, 0xbf], charset: 'utf-8' },
	{ bytes: [0xff, 0xfe], charset: 'utf-16le' },
	{ bytes: [0xfe, 0xff], charset: 'utf-16be' },
];
const SEP_DELIMITERS: ReadonlySet<string> = new Set([',', ';', '\t', '|']);
/** `sep=` and one character: the longest first line that can be Excel's delimiter hint. */
const SEP_LENGTH = 5;

/** The `charset` parameter of a Content-Type, lower-cased and unquoted; undefined when none. Split by hand: no regex on Service text. */
export function charsetOf(contentType: string | undefined): string | undefined {
	if (!contentType) return undefined;
	for (const part of contentType.split(';').slice(1)) {
		const eq = part.indexOf('=');
		if (eq < 0 || part.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
		let value = part.slice(eq + 1).trim();
		if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
		return value === '' ? undefined : value.toLowerCase();
	}
	return undefined;
}

/** The encoding WHATWG gives a charset label (e.g. `latin1` → `windows-1252`), or a refusal naming it. */
export function encodingOf(label: string): string {
	let encoding: string | undefined;
	try {
		encoding = new TextDecoder(label).encoding;
	} catch {
		// A label TextDecoder does not know: refused below, naming it.
	}
	if (encoding === undefined) {
		throw new CsvFormatError(
			`Its Content-Type names the charset ${JSON.stringify(label)}, which the nodes cannot decode: ask the Service for UTF-8 (or another charset WHATWG's Encoding standard knows)`,
		);
	}
	return encoding;
}

/** The encoding a byte order mark at the start of `bytes` names, with its length; `undefined` when `bytes` may still become one. */
export function bomOf(bytes: Uint8Array, final: boolean): { charset: string; length: number } | null | undefined {
	for (const bom of BOMS) {
		const n = Math.min(bom.bytes.length, bytes.length);
		let same = true;
		for (let i = 0; i < n; i++) if (bytes[i] !== bom.bytes[i]) same = false;
		if (!same) continue;
		if (n === bom.bytes.length) return { charset: bom.charset, length: n };
		if (!final) return undefined;
	}
	return null;
}

/** Bytes looked at for UTF-16 without a byte order mark. */
const SNIFF_BYTES = 64;

/**
 * UTF-16 sent without a byte order mark or charset, told by its NUL bytes (CSV text in an ASCII-based
 * charset has none): most code units of the first bytes an ASCII character with a zero high byte.
 */
export function utf16Sniffed(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null {
	const units = Math.min(bytes.length, SNIFF_BYTES) >> 1;
	if (units < 2) return null;
	let le = 0;
	let be = 0;
	for (let i = 0; i < units; i++) {
		const [a, b] = [bytes[2 * i], bytes[2 * i + 1]];
		if (b === 0 && a !== 0) le++;
		else if (a === 0 && b !== 0) be++;
	}
	return le * 4 >= units * 3 ? 'utf-16le' : be * 4 >= units * 3 ? 'utf-16be' : null;
}

/**
 * The encoding of a page from its first bytes: a byte order mark, else the charset named, else UTF-16 told
 * by its NUL bytes, else `fallback` (the export's first page's), else UTF-8; undefined while more bytes must come.
 */
export function pageEncoding(head: Uint8Array, final: boolean, named: string | undefined, fallback: string | undefined): { encoding: string; bomLength: number } | undefined {
	const bom = bomOf(head, final);
	if (bom === undefined) return undefined;
	if (bom) return { encoding: bom.charset, bomLength: bom.length };
	if (named === 'utf-16le' || named === 'utf-16be') return { encoding: named, bomLength: 0 };
	if (head.length < SNIFF_BYTES && !final) return undefined;
	const sniffed = utf16Sniffed(head);
	if (named === undefined) return { encoding: sniffed ?? fallback ?? 'utf-8', bomLength: 0 };
	// Read as named, such a page would be cells full of NUL characters: said rather than read wrong.
	if (sniffed) throw new CsvFormatError(`Its Content-Type names the charset ${named}, but its bytes are ${sniffed.toUpperCase()} (a NUL byte beside each character) without a byte order mark: ask the Service to name the charset it sends`);
	return { encoding: named, bomLength: 0 };
}

/** What a page's first line says, once read: Excel's delimiter hint, or nothing. */
export type SepLine = { delimiter: CsvDelimiter; line: string } | null;

/**
 * Whether `text` (the page's text after its byte order mark) starts with a `sep=X` line: the line
 * (with its line end) and its delimiter, `null` when it does not, `undefined` when more text must come.
 */
export function sepLineOf(text: string, final: boolean): SepLine | undefined {
	const prefix = text.slice(0, 4).toLowerCase();
	if (!'sep='.startsWith(prefix)) return null;
	if (text.length < SEP_LENGTH + 1 && !final) return undefined;
	if (prefix !== 'sep=' || text.length < SEP_LENGTH) return null;
	const next = text.charAt(SEP_LENGTH);
	if (next !== '' && next !== '\r' && next !== '\n') return null;
	let end = SEP_LENGTH;
	if (next === '\r' && text.charAt(end + 1) === '' && !final) return undefined;
	if (next === '\r') end += text.charAt(end + 1) === '\n' ? 2 : 1;
	else if (next === '\n') end += 1;
	const delimiter = text.charAt(4);
	if (!SEP_DELIMITERS.has(delimiter)) {
		throw new CsvFormatError(
			`Its first line ${JSON.stringify(text.slice(0, SEP_LENGTH))} names the delimiter ${JSON.stringify(delimiter)}, which the nodes do not read (comma, semicolon, tab or pipe): set Output to File to get the CSV as sent`,
		);
	}
	return { delimiter: delimiter as CsvDelimiter, line: text.slice(0, end) };
}

/**
 * One page's bytes decoded as they arrive (a character split across chunks comes out whole):
 * `push` each chunk, then `end`. The text handed back has no byte order mark and no `sep=` line.
 */
export class CsvTextDecoder {
	/** The encoding the page is read in (WHATWG's name, e.g. `utf-16le`), once its first bytes are in. */
	encoding: string | undefined;
	/** The byte order mark's bytes, when the page starts with one. */
	bom: Buffer | undefined;
	/** The charset the Content-Type named, as WHATWG names it. */
	readonly namedEncoding: string | undefined;
	/** The page's `sep=` line: `undefined` until told, `null` when it has none. */
	sep: SepLine | undefined;
	private decoder: InstanceType<typeof TextDecoder> | undefined;
	private head: Buffer = Buffer.alloc(0);
	private text = '';

	/** `fallback`: the encoding of a page that names none (no byte order mark, no charset): the export's first page's. */
	constructor(
		contentType: string | undefined,
		private readonly fallback?: string,
	) {
		const label = charsetOf(contentType);
		this.namedEncoding = label === undefined ? undefined : encodingOf(label);
	}

	/** Whether a byte order mark names another encoding than the Content-Type's charset (the mark wins). */
	get bomContradicts(): boolean {
		return this.bom !== undefined && this.namedEncoding !== undefined && this.namedEncoding !== this.encoding;
	}

	push(chunk: Uint8Array): string {
		return this.read(chunk, false);
	}

	end(): string {
		return this.read(new Uint8Array(0), true);
	}

	private read(chunk: Uint8Array, final: boolean): string {
		if (this.decoder === undefined) {
			// Copied (under 64 bytes) only when kept for the next chunk; a chunk is decoded where it lies.
			const head = this.head.length === 0 ? chunk : Buffer.concat([this.head, chunk]);
			const found = pageEncoding(head, final, this.namedEncoding, this.fallback);
			if (found === undefined) {
				this.head = Buffer.concat([head]);
				return '';
			}
			this.encoding = found.encoding;
			if (found.bomLength > 0) this.bom = Buffer.concat([head.subarray(0, found.bomLength)]);
			// The mark is dropped here, so the decoder must not look for one of its own.
			this.decoder = new TextDecoder(this.encoding, { ignoreBOM: true });
			chunk = head.subarray(found.bomLength);
			this.head = Buffer.alloc(0);
		}
		const text = this.decoder.decode(chunk, { stream: !final });
		if (this.sep !== undefined) return text;
		this.text += text;
		const sep = sepLineOf(this.text, final);
		if (sep === undefined) return '';
		this.sep = sep;
		const rest = sep === null ? this.text : this.text.slice(sep.line.length);
		this.text = '';
		return rest;
	}
}

/** A whole page's text (no byte order mark, no `sep=` line) and what its first bytes said. */
export function csvPageText(bytes: Uint8Array, contentType: string | undefined, fallback?: string): { text: string; decoder: CsvTextDecoder } {
	const decoder = new CsvTextDecoder(contentType, fallback);
	const text = decoder.push(bytes) + decoder.end();
	return { text, decoder };
}

/** Holder of an export's delimiter, as `CsvPages` is: set when unknown, checked otherwise. */
export interface DelimiterHolder {
	delimiter: CsvDelimiter | undefined;
}

const NAMES: Record<CsvDelimiter, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };

/**
 * A page's `sep=` line applied to the export's reading: it gives the delimiter when none is known yet,
 * and a delimiter that contradicts it (the CSV Delimiter setting, or an earlier page's) is refused.
 */
export function applySepLine(reading: DelimiterHolder, sep: SepLine | undefined): void {
	if (!sep) return;
	if (reading.delimiter === undefined) reading.delimiter = sep.delimiter;
	else if (reading.delimiter !== sep.delimiter) {
		throw new CsvFormatError(
			`Its first line ${JSON.stringify(sep.line.trimEnd())} says the delimiter is a ${NAMES[sep.delimiter]}, but the export is read with a ${NAMES[reading.delimiter]}: set CSV Delimiter under Advanced Settings in the Service API credential to Detect or ${NAMES[sep.delimiter]}`,
		);
	}
}

/** The encoding of each export's first page (keyed by its reading), for a later page that names none. */
const firstEncodings = new WeakMap<DelimiterHolder, string>();

/**
 * A page as text for the row readers (`CsvPages`): decoded (a page naming no charset in the encoding of the
 * export's first page), the `sep=` line applied to `reading`.
 */
export function csvPageRead(bytes: Uint8Array, contentType: string | undefined, reading: DelimiterHolder): string {
	const { text, decoder } = csvPageText(bytes, contentType, firstEncodings.get(reading));
	if (!firstEncodings.has(reading) && decoder.encoding !== undefined) firstEncodings.set(reading, decoder.encoding);
	applySepLine(reading, decoder.sep);
	return text;
}
