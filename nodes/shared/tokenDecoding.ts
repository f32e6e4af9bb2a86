/**
 * The decodings the token is looked for under (tokenMatch.ts): URL (`%XX`, `%uXXXX`, `+`), JSON (`\u0061`,
 * `\/`), HTML entities, and one unit of any of them decoded where it starts. Pure, no regular expressions.
 */

/** What the scan reads: a string's UTF-16 code units or a Buffer's bytes. */
export interface Source {
	readonly length: number;
	code(index: number): number;
	/** Where `code` next occurs from `from` on, or -1 (the runtime's own search). */
	indexOf(code: number, from: number): number;
	/** Strings: a raw character is UTF-8 encoded; bytes pass as they are. */
	readonly text: boolean;
}

/** `lenient`: only `\u` and `\/` are escapes (`\\`, `\t`... are not), as a decoder that looks for those alone reads it. */
export type Decoding = { url: boolean; json: boolean; html: boolean; plus: boolean; lenient?: boolean };

/** A decoding with its escape characters, made once per token. */
export interface PreparedDecoding {
	decoding: Decoding;
	introducers: number[];
	isIntroducer: Uint8Array;
}

export function prepareDecoding(decoding: Decoding): PreparedDecoding {
	const introducers = [decoding.url && PERCENT, decoding.json && BACKSLASH, decoding.html && AMPERSAND, decoding.plus && PLUS].filter(
		(code): code is number => typeof code === 'number',
	);
	const isIntroducer = new Uint8Array(128);
	for (const code of introducers) isIntroducer[code] = 1;
	return { decoding, introducers, isIntroducer };
}

export const PERCENT = 0x25;
export const BACKSLASH = 0x5c;
export const AMPERSAND = 0x26;
export const PLUS = 0x2b;
const SEMICOLON = 0x3b;
const HASH = 0x23;
export const UNDERSCORE = 0x5f;
export const SLASH = 0x2f;
export const REPLACEMENT = 0xfffd;

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
export interface Unit {
	byte: number;
	codePoint: number;
	length: number;
}

export function decodeAt(source: Source, at: number, decoding: Decoding, unit: Unit): boolean {
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


/** The decodings tried, each alone and all mixed: alone, a form one decoder reads is read as it would be. */
export function decodings(token: string): Decoding[] {
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

export function introduces(decoding: Decoding, has: (code: number) => boolean): boolean {
	return (decoding.url && has(PERCENT)) || (decoding.json && has(BACKSLASH)) || (decoding.html && has(AMPERSAND)) || (decoding.plus && has(PLUS));
}
