/**
 * Where the access token is in text or bytes, in any form that decodes to it: as typed, URL-encoded
 * (any case of hex, some or every byte, `%uXXXX`, `+` for a space), JSON-escaped (`\u0061`, `\/`),
 * HTML entities (`&#x2F;`, `&#47;`, `&sol;`, any case, with or without `;`), and any mixture of these
 * character by character. One scan per decoding, each linear: a unit is decoded where it starts and the
 * decoded bytes are matched (KMP) as they come, each byte remembering where in the input its unit was.
 * Pure: no n8n types, no regular expressions.
 */

/** What the scan reads: a string's UTF-16 code units or a Buffer's bytes. */
interface Source {
	readonly length: number;
	code(index: number): number;
	/** Where `code` next occurs from `from` on, or -1 (the runtime's own search). */
	indexOf(code: number, from: number): number;
	/** Strings: a raw character is UTF-8 encoded; bytes pass as they are. */
	readonly text: boolean;
}

export interface MatchOptions {
	/** `/` and `\` count as `_` on both sides: a file name made safe by replacing them. */
	foldSlashes?: boolean;
}

/** `lenient`: only `\u` and `\/` are escapes (`\\`, `\t`... are not), as a decoder that looks for those alone reads it. */
type Decoding = { url: boolean; json: boolean; html: boolean; plus: boolean; lenient?: boolean };

/** A decoding with its escape characters, made once per token. */
interface PreparedDecoding {
	decoding: Decoding;
	introducers: number[];
	isIntroducer: Uint8Array;
}

function prepareDecoding(decoding: Decoding): PreparedDecoding {
	const introducers = [decoding.url && PERCENT, decoding.json && BACKSLASH, decoding.html && AMPERSAND, decoding.plus && PLUS].filter(
		(code): code is number => typeof code === 'number',
	);
	const isIntroducer = new Uint8Array(128);
	for (const code of introducers) isIntroducer[code] = 1;
	return { decoding, introducers, isIntroducer };
}

const PERCENT = 0x25;
const BACKSLASH = 0x5c;
const AMPERSAND = 0x26;
const PLUS = 0x2b;
const SEMICOLON = 0x3b;
const HASH = 0x23;
const UNDERSCORE = 0x5f;
const SLASH = 0x2f;
const REPLACEMENT = 0xfffd;

/** HTML named references that stand for a character a token may hold (any case is accepted). */
const NAMED = new Map<string, number>([
	['excl', 0x21], ['quot', 0x22], ['num', 0x23], ['dollar', 0x24], ['percnt', 0x25], ['amp', 0x26], ['apos', 0x27],
	['lpar', 0x28], ['rpar', 0x29], ['ast', 0x2a], ['midast', 0x2a], ['plus', 0x2b], ['comma', 0x2c], ['period', 0x2e],
	['sol', 0x2f], ['colon', 0x3a], ['semi', 0x3b], ['lt', 0x3c], ['equals', 0x3d], ['gt', 0x3e], ['quest', 0x3f],
	['commat', 0x40], ['lsqb', 0x5b], ['lbrack', 0x5b], ['bsol', 0x5c], ['rsqb', 0x5d], ['rbrack', 0x5d], ['hat', 0x5e],
	['lowbar', 0x5f], ['underbar', 0x5f], ['grave', 0x60], ['diacriticalgrave', 0x60], ['lcub', 0x7b], ['lbrace', 0x7b],
	['verbar', 0x7c], ['vert', 0x7c], ['verticalline', 0x7c], ['rcub', 0x7d], ['rbrace', 0x7d], ['tab', 0x09],
	['newline', 0x0a], ['nbsp', 0xa0],
]);
/** Names browsers also read without the `;`. */
const LEGACY = new Set(['amp', 'lt', 'gt', 'quot', 'nbsp']);
const LONGEST_NAME = 16;

const JSON_SIMPLE = new Map<number, number>([
	[0x2f, 0x2f], [0x5c, 0x5c], [0x22, 0x22], [0x27, 0x27], [0x62, 0x08], [0x66, 0x0c], [0x6e, 0x0a], [0x72, 0x0d], [0x74, 0x09],
]);

function hexValue(code: number): number {
	if (code >= 0x30 && code <= 0x39) return code - 0x30;
	const lower = code | 0x20;
	if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
	return -1;
}

function hexRun(source: Source, at: number, digits: number): number {
	if (at + digits > source.length) return -1;
	let value = 0;
	for (let i = 0; i < digits; i++) {
		const digit = hexValue(source.code(at + i));
		if (digit < 0) return -1;
		value = value * 16 + digit;
	}
	return value;
}

/** One decoded unit: a byte (`%XX`) or a code point, and how many input positions it took. */
interface Unit {
	byte: number;
	codePoint: number;
	length: number;
}

function decodeAt(source: Source, at: number, decoding: Decoding, unit: Unit): boolean {
	const code = source.code(at);
	unit.byte = -1;
	unit.codePoint = -1;
	if (decoding.url && code === PERCENT) {
		const byte = hexRun(source, at + 1, 2);
		if (byte >= 0) {
			unit.byte = byte;
			unit.length = 3;
			return true;
		}
		if (at + 1 < source.length && (source.code(at + 1) | 0x20) === 0x75) {
			const value = hexRun(source, at + 2, 4);
			if (value >= 0) return codeUnitEscape(source, at, value, 6, PERCENT, unit);
		}
		return false;
	}
	if (decoding.plus && code === PLUS) {
		unit.codePoint = 0x20;
		unit.length = 1;
		return true;
	}
	if (decoding.json && code === BACKSLASH && at + 1 < source.length) {
		const next = source.code(at + 1);
		if ((next | 0x20) === 0x75) {
			const value = hexRun(source, at + 2, 4);
			if (value >= 0) return codeUnitEscape(source, at, value, 6, BACKSLASH, unit);
			return false;
		}
		const simple = JSON_SIMPLE.get(next);
		if (simple === undefined || (decoding.lenient === true && next !== SLASH)) return false;
		unit.codePoint = simple;
		unit.length = 2;
		return true;
	}
	if (decoding.html && code === AMPERSAND) return entityAt(source, at, unit);
	return false;
}

/** `\uXXXX` or `%uXXXX`: a surrogate pair written as two escapes is one character. */
function codeUnitEscape(source: Source, at: number, value: number, length: number, lead: number, unit: Unit): boolean {
	unit.length = length;
	if (value >= 0xd800 && value <= 0xdbff) {
		const after = at + length;
		if (
			after + length <= source.length &&
			source.code(after) === lead &&
			(source.code(after + 1) | 0x20) === 0x75
		) {
			const low = hexRun(source, after + 2, 4);
			if (low >= 0xdc00 && low <= 0xdfff) {
				unit.codePoint = 0x10000 + ((value - 0xd800) << 10) + (low - 0xdc00);
				unit.length = 2 * length;
				return true;
			}
		}
		unit.codePoint = REPLACEMENT;
		return true;
	}
	unit.codePoint = value >= 0xdc00 && value <= 0xdfff ? REPLACEMENT : value;
	return true;
}

function entityAt(source: Source, at: number, unit: Unit): boolean {
	let i = at + 1;
	if (i >= source.length) return false;
	if (source.code(i) === HASH) {
		i++;
		const hex = i < source.length && (source.code(i) | 0x20) === 0x78;
		if (hex) i++;
		const digitsFrom = i;
		let value = 0;
		for (; i < source.length; i++) {
			const digit = hex ? hexValue(source.code(i)) : source.code(i) - 0x30;
			if (digit < 0 || digit > (hex ? 15 : 9)) break;
			// Past the last code point it stays there: the reference stands for U+FFFD, however long.
			value = Math.min(value * (hex ? 16 : 10) + digit, 0x110000);
		}
		if (i === digitsFrom) return false;
		if (i < source.length && source.code(i) === SEMICOLON) i++;
		unit.codePoint = value === 0 || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff) ? REPLACEMENT : value;
		unit.length = i - at;
		return true;
	}
	let name = '';
	for (; i < source.length && i - at <= LONGEST_NAME + 1; i++) {
		const code = source.code(i) | 0x20;
		if (!((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39 && name !== ''))) break;
		name += String.fromCharCode(code);
	}
	const codePoint = NAMED.get(name);
	if (codePoint === undefined) return false;
	const closed = i < source.length && source.code(i) === SEMICOLON;
	if (!closed && !LEGACY.has(name)) return false;
	unit.codePoint = codePoint;
	unit.length = i - at + (closed ? 1 : 0);
	return true;
}

/** KMP over the token's bytes, fed decoded bytes that each remember their unit's place in the input. */
/** The token's bytes (as typed or folded), made once: KMP's failure table and which bytes it holds. */
interface Prepared {
	pattern: Uint8Array;
	failure: Int32Array;
	holds: Uint8Array;
}

function prepare(pattern: Uint8Array): Prepared {
	const failure = new Int32Array(pattern.length);
	for (let i = 1, k = 0; i < pattern.length; i++) {
		while (k > 0 && pattern[i] !== pattern[k]) k = failure[k - 1];
		if (pattern[i] === pattern[k]) k++;
		failure[i] = k;
	}
	const holds = new Uint8Array(256);
	for (const byte of pattern) holds[byte] = 1;
	return { pattern, failure, holds };
}

class Matcher {
	private readonly pattern: Uint8Array;
	private readonly failure: Int32Array;
	/** Where each of the last bytes fed began, made on the first byte (most scans feed none). */
	private starts: Int32Array | undefined;
	private state = 0;
	private fed = 0;
	readonly ranges: Array<[number, number]> = [];

	constructor(prepared: Prepared) {
		this.pattern = prepared.pattern;
		this.failure = prepared.failure;
	}

	/** Forgets a partial match: the scan jumps over text that cannot be part of one. */
	reset(): void {
		this.state = 0;
	}

	feed(byte: number, start: number, end: number): void {
		const { pattern, failure } = this;
		this.starts ??= new Int32Array(pattern.length);
		const starts = this.starts;
		starts[this.fed % pattern.length] = start;
		this.fed++;
		let k = this.state;
		while (k > 0 && byte !== pattern[k]) k = failure[k - 1];
		if (byte === pattern[k]) k++;
		if (k === pattern.length) {
			this.add(starts[this.fed % pattern.length], end);
			k = failure[k - 1];
		}
		this.state = k;
	}

	private add(start: number, end: number): void {
		const last = this.ranges[this.ranges.length - 1];
		if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
		else this.ranges.push([start, end]);
	}
}

function utf8(codePoint: number, emit: (byte: number) => void): void {
	if (codePoint < 0x80) emit(codePoint);
	else if (codePoint < 0x800) {
		emit(0xc0 | (codePoint >> 6));
		emit(0x80 | (codePoint & 0x3f));
	} else if (codePoint < 0x10000) {
		emit(0xe0 | (codePoint >> 12));
		emit(0x80 | ((codePoint >> 6) & 0x3f));
		emit(0x80 | (codePoint & 0x3f));
	} else {
		emit(0xf0 | (codePoint >> 18));
		emit(0x80 | ((codePoint >> 12) & 0x3f));
		emit(0x80 | ((codePoint >> 6) & 0x3f));
		emit(0x80 | (codePoint & 0x3f));
	}
}

/**
 * One decoding's scan. A match that is not the token as typed holds an escape, and spans at most as
 * many units as the token has bytes, each before the escape one character (two for a surrogate pair):
 * so text farther than that from every escape character is jumped over (found by the runtime's search),
 * and a long answer with few escapes costs little more than that search. The raw, folded scan (file
 * names) reads everything.
 */
function scan(source: Source, prepared: Prepared, { decoding, introducers, isIntroducer }: PreparedDecoding, foldSlashes: boolean): Array<[number, number]> {
	const { pattern } = prepared;
	const matcher = new Matcher(prepared);
	const unit: Unit = { byte: -1, codePoint: -1, length: 1 };
	const skipping = introducers.length > 0;
	const nextAt = introducers.map(() => -2);
	const margin = 2 * pattern.length + 2;
	let start = 0;
	let end = 0;
	// Bytes fed since the last escape: once the token's length, no match can still hold that escape.
	let sinceEscape = Number.POSITIVE_INFINITY;
	const emit = (byte: number) => {
		sinceEscape++;
		matcher.feed(foldSlashes && (byte === SLASH || byte === BACKSLASH) ? UNDERSCORE : byte, start, end);
	};
	const tokenBytes = prepared.holds;
	const fold = (byte: number) => (foldSlashes && (byte === SLASH || byte === BACKSLASH) ? UNDERSCORE : byte);
	let allIn = true;
	const check = (byte: number) => {
		if (tokenBytes[fold(byte)] === 0) allIn = false;
	};
	/** Whether every byte the unit decodes to is one of the token's: else no match can hold it. */
	const inToken = (decoded: Unit) => {
		allIn = true;
		if (decoded.byte >= 0) check(decoded.byte);
		else utf8(decoded.codePoint, check);
		return allIn;
	};
	const length = source.length;
	for (let at = 0; at < length; at = end) {
		if (skipping && sinceEscape >= pattern.length) {
			// `at` is where a unit starts, and so is each escape character up to the next one: what lies
			// between is characters as they are. An escape whose character is not in the token is passed over.
			let resume = -1;
			while (resume < 0) {
				let next = -1;
				for (let i = 0; i < introducers.length; i++) {
					if (nextAt[i] !== -1 && nextAt[i] < at) nextAt[i] = source.indexOf(introducers[i], at);
					if (nextAt[i] !== -1 && (next === -1 || nextAt[i] < next)) next = nextAt[i];
				}
				if (next === -1) return matcher.ranges;
				// Not an escape there, the character itself counts: the token may hold it.
				const decoded = decodeAt(source, next, decoding, unit);
				if (decoded ? inToken(unit) : tokenBytes[fold(source.code(next))] === 1) {
					resume = Math.max(at, next - margin);
					// Read on up to that escape without asking again (a character is at most 3 bytes here).
					sinceEscape = -3 * (next - resume) - 1;
				} else {
					at = next + (decoded ? unit.length : 1);
					matcher.reset();
				}
			}
			if (resume > at) matcher.reset();
			at = resume;
			if (at >= length) break;
		}
		start = at;
		const code = source.code(at);
		// Most characters: ASCII and no escape, fed as they are.
		if (code < 0x80 && isIntroducer[code] === 0) {
			end = at + 1;
			sinceEscape++;
			matcher.feed(foldSlashes && (code === SLASH || code === BACKSLASH) ? UNDERSCORE : code, start, end);
			continue;
		}
		if (decodeAt(source, at, decoding, unit)) {
			end = at + unit.length;
			if (inToken(unit)) sinceEscape = 0;
			if (unit.byte >= 0) emit(unit.byte);
			else utf8(unit.codePoint, emit);
			continue;
		}
		if (!source.text) {
			end = at + 1;
			emit(code);
			continue;
		}
		let codePoint = code;
		end = at + 1;
		if (code >= 0xd800 && code <= 0xdbff && at + 1 < length) {
			const low = source.code(at + 1);
			if (low >= 0xdc00 && low <= 0xdfff) {
				codePoint = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
				end = at + 2;
			}
		}
		utf8(codePoint >= 0xd800 && codePoint <= 0xdfff ? REPLACEMENT : codePoint, emit);
	}
	return matcher.ranges;
}

/** The decodings tried, each alone and all mixed: alone, a form one decoder reads is read as it would be. */
function decodings(token: string): Decoding[] {
	const none = { url: false, json: false, html: false, plus: false };
	const list: Decoding[] = [
		none,
		{ ...none, url: true },
		{ ...none, json: true },
		{ ...none, html: true },
		{ ...none, json: true, lenient: true },
		{ url: true, json: true, html: true, plus: false },
		{ url: true, json: true, html: true, plus: false, lenient: true },
	];
	// `+` is a space only in form encoding: tried only for a token that holds a space.
	if (token.includes(' ')) list.push({ ...none, url: true, plus: true }, { url: true, json: true, html: true, plus: true });
	return list;
}

function introduces(decoding: Decoding, has: (code: number) => boolean): boolean {
	return (decoding.url && has(PERCENT)) || (decoding.json && has(BACKSLASH)) || (decoding.html && has(AMPERSAND)) || (decoding.plus && has(PLUS));
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
		if (!options.foldSlashes && !this.escapeRunLongEnough(text)) return occurrences(text, this.token);
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

	/**
	 * Whether some run of characters a form of the token can be made of (the token's own, letters, digits,
	 * escape syntax, anything past ASCII) holds an escape character and is at least `shortest` long:
	 * a match other than as typed lies inside such a run and holds an escape.
	 */
	private escapeRunLongEnough(text: string): boolean {
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
