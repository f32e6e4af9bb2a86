/**
 * Where the access token is in text or bytes, in any form that decodes to it: as typed, URL-encoded
 * (any case of hex, some or every byte, `%uXXXX`, `+` for a space), JSON-escaped (`\u0061`, `\/`),
 * HTML entities (`&#x2F;`, `&#47;`, `&sol;`, any case, with or without `;`), and any mixture of these
 * character by character. One scan per decoding, each linear: a unit is decoded where it starts and the
 * decoded bytes are matched (KMP) as they come, each byte remembering where in the input its unit was.
 * Pure: no n8n types, no regular expressions. The decoders are in tokenDecoding.ts, the scan in tokenScan.ts.
 */
import type { PreparedDecoding, Source } from './tokenDecoding';
import { AMPERSAND, BACKSLASH, decodings, introduces, PERCENT, PLUS, prepareDecoding, SLASH, UNDERSCORE } from './tokenDecoding';
import type { Prepared } from './tokenScan';
import { prepare, scan } from './tokenScan';

export interface MatchOptions {
	/** `/` and `\` count as `_` on both sides: a file name made safe by replacing them. */
	foldSlashes?: boolean;
}

/**
 * Finds every place that decodes to the token, as [start, end) ranges of the input, sorted and merged.
 * A decoding whose escape character does not occur in the input is the input itself: skipped.
 */
export class TokenMatch {
	private readonly pattern: Prepared;
	private readonly folded: Prepared;
	private readonly decodings: PreparedDecoding[];
	private readonly tokenBytes: Buffer;
	/** No form of the token is shorter than this many characters (a character is at most 3 bytes, 4 for two). */
	private readonly shortest: number;
	/** ASCII characters a form of the token may hold: its own, and every escape's syntax. */
	private readonly inForm: Uint8Array;

	constructor(private readonly token: string) {
		this.tokenBytes = Buffer.from(token, 'utf8');
		const bytes = new Uint8Array(this.tokenBytes);
		this.pattern = prepare(bytes);
		this.folded = prepare(bytes.map((byte) => (byte === SLASH || byte === BACKSLASH ? UNDERSCORE : byte)));
		this.decodings = decodings(token).map(prepareDecoding);
		this.shortest = Math.ceil(bytes.length / 3);
		this.inForm = IN_ANY_FORM.slice();
		for (const byte of bytes) if (byte < 0x80) this.inForm[byte] = 1;
	}

	rangesInText(text: string, options: MatchOptions = NO_OPTIONS): Array<[number, number]> {
		if (text.length < this.shortest) return NONE;
		let present = 0;
		for (let i = 0; i < ESCAPES.length; i++) if (text.includes(ESCAPE_TEXT[i])) present |= 1 << i;
		// Most text: no escape character, so only the token as typed can be there.
		if (present === 0 && !options.foldSlashes) return occurrences(text, this.token);
		// An escape with no run of characters a form may hold around it as long as the shortest form (a cell like "Smith & Sons"): as typed only.
		if (!options.foldSlashes && !this.escapeRunLongEnough(text, present)) return occurrences(text, this.token);
		const source: Source = { length: text.length, code: (i) => text.charCodeAt(i), indexOf: (code, from) => text.indexOf(String.fromCharCode(code), from), text: true };
		return this.ranges(source, present, options, () => occurrences(text, this.token));
	}

	rangesInBytes(bytes: Buffer, options: MatchOptions = {}): Array<[number, number]> {
		if (bytes.length < this.shortest) return [];
		let present = 0;
		for (let i = 0; i < ESCAPES.length; i++) if (bytes.includes(ESCAPES[i])) present |= 1 << i;
		if (present === 0 && !options.foldSlashes) return occurrences(bytes, this.tokenBytes);
		const source: Source = { length: bytes.length, code: (i) => bytes[i], indexOf: (code, from) => bytes.indexOf(code, from), text: false };
		return this.ranges(source, present, options, () => occurrences(bytes, this.tokenBytes));
	}

	/** `escapeRunInAnyText`'s answer; on ASCII text, only the runs around escape characters are walked (a page of plain rows: 3x faster). */
	escapeRunLongEnough(text: string, present: number): boolean {
		// Text past ASCII (a surrogate counts as an escape): every character looked at.
		if (Buffer.byteLength(text, 'utf8') !== text.length) return this.escapeRunInAnyText(text);
		// ASCII only: from each escape character out to the ends of its run, each run walked once.
		const allowed = this.inForm;
		const next = ESCAPE_TEXT.map((char, i) => ((present & (1 << i)) === 0 ? -1 : text.indexOf(char)));
		let walked = 0;
		for (;;) {
			let at = -1;
			let which = -1;
			for (let i = 0; i < next.length; i++) if (next[i] >= 0 && (at < 0 || next[i] < at)) [at, which] = [next[i], i];
			if (at < 0) return false;
			if (at >= walked) {
				let start = at;
				while (start > walked && allowed[text.charCodeAt(start - 1)] === 1) start--;
				let end = at + 1;
				while (end < text.length && allowed[text.charCodeAt(end)] === 1) end++;
				if (end - start >= this.shortest) return true;
				walked = end;
			}
			next[which] = text.indexOf(ESCAPE_TEXT[which], Math.max(at + 1, walked));
		}
	}

	/**
	 * Whether some run of characters a form of the token can be made of (the token's own, letters, digits,
	 * escape syntax, anything past ASCII) holds an escape character and is at least `shortest` long:
	 * a match other than as typed lies inside such a run and holds an escape.
	 */
	escapeRunInAnyText(text: string): boolean {
		const allowed = this.inForm;
		let run = 0;
		let escaped = false;
		for (let i = 0; i < text.length; i++) {
			const code = text.charCodeAt(i);
			if (code >= 0x80 || allowed[code] === 1) {
				run++;
				// A lone surrogate reads as U+FFFD, which the token as typed would not show either.
				if ((code < 0x80 && IS_ESCAPE[code] === 1) || (code >= 0xd800 && code <= 0xdfff)) escaped = true;
				if (escaped && run >= this.shortest) return true;
			} else {
				run = 0;
				escaped = false;
			}
		}
		return false;
	}

	/** `present`: a bit for each of ESCAPES the input holds. */
	private ranges(source: Source, present: number, options: MatchOptions, native: () => Array<[number, number]>): Array<[number, number]> {
		const prepared = options.foldSlashes ? this.folded : this.pattern;
		const found: Array<[number, number]> = [];
		for (const entry of this.decodings) {
			const { decoding } = entry;
			const raw = !decoding.url && !decoding.json && !decoding.html && !decoding.plus;
			// The token as typed is found by the runtime's own search.
			if (raw && !options.foldSlashes) {
				for (const range of native()) found.push(range);
				continue;
			}
			if (!raw && !introduces(decoding, (code) => (present & (1 << ESCAPES.indexOf(code))) !== 0)) continue;
			for (const range of scan(source, prepared, entry, options.foldSlashes === true)) found.push(range);
		}
		return found.length === 0 ? found : merged(found);
	}
}

const ESCAPES = [PERCENT, BACKSLASH, AMPERSAND, PLUS];
const ESCAPE_TEXT = ESCAPES.map((code) => String.fromCharCode(code));
const IS_ESCAPE = new Uint8Array(128);
for (const code of ESCAPES) IS_ESCAPE[code] = 1;
/** Letters and digits (hex, `u`, `x`, entity names) and the escapes' own punctuation. */
const IN_ANY_FORM = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
	const lower = code | 0x20;
	if ((code >= 0x30 && code <= 0x39) || (lower >= 0x61 && lower <= 0x7a)) IN_ANY_FORM[code] = 1;
}
for (const char of '%\\&+#;/"\'') IN_ANY_FORM[char.charCodeAt(0)] = 1;
const NO_OPTIONS: MatchOptions = {};
/** No place: shared, never changed. */
const NONE = Object.freeze([]) as unknown as Array<[number, number]>;

/** Every place `needle` starts, overlapping ones too, as ranges. */
function occurrences(haystack: string | Buffer, needle: string | Buffer): Array<[number, number]> {
	let at = haystack.indexOf(needle as never);
	if (at < 0) return NONE;
	const out: Array<[number, number]> = [];
	for (; at >= 0; at = haystack.indexOf(needle as never, at + 1)) out.push([at, at + needle.length]);
	return out;
}

function merged(ranges: Array<[number, number]>): Array<[number, number]> {
	ranges.sort((a, b) => a[0] - b[0]);
	const out: Array<[number, number]> = [];
	for (const [start, end] of ranges) {
		const last = out[out.length - 1];
		if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
		else out.push([start, end]);
	}
	return out;
}
