/**
 * JSON as the Service sent it, numbers included: a number token JSON.parse would not write back
 * exactly (an integer outside ±(2^53−1), or any number whose double does not give back its digits,
 * such as 1.8446744073709551084e19 or 1e400) becomes a string of the very text sent; every other
 * value is what JSON.parse gives (docs/service-choices.md: Numbers beyond 2^53). Node 20 has no
 * source text in JSON.parse's reviver, hence one linear scan before it.
 */

/**
 * A number's exponent of 3 digits or more (a double may over- or underflow there), ended as a number is
 * (so hex text such as a UUID's 4e123a rarely matches). Linear: the digits and what ends them are disjoint.
 */
const LONG_EXPONENT = /\d[eE][+-]?\d{3,}(?:[,}\]\s]|$)/;
/** Fewer significant digits always survive a double (DBL_DIG is 15). */
const RUN = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

/** JSON.parse, but a number it would round comes back as a string of its exact text. Throws as JSON.parse does. */
export function parseExactJson(text: string): unknown {
	// Ordinary answers pay a look at every 16th character and one regex test.
	if (!hasLongRun(text) && !LONG_EXPONENT.test(text)) return JSON.parse(text);
	const tokens = longTokens(text);
	if (tokens === undefined) return JSON.parse(text);
	// Parsed as sent, its rounded numbers put back in text order: no second copy of the page for JSON.parse to read.
	if (tokens !== UNSURE) {
		const restored = restoreInOrder(JSON.parse(text), tokens);
		if (restored !== UNSURE) return restored;
	}
	const rewritten = inexactNumbersAsStrings(text);
	try {
		return JSON.parse(rewritten);
	} catch {
		// Not JSON: JSON.parse's own error, about the text as sent.
		return JSON.parse(text);
	}
}

/** The value's place cannot be told from the parsed document alone: the text is rewritten instead. */
const UNSURE = Symbol('unsure');
/** Deeper documents are rewritten (a walk that deep would need its own stack). */
const MAX_DEPTH = 2000;

/** In text order, the doubles of the tokens that write back in 16 characters or more, and the text of those JSON.parse rounds. */
interface LongTokens {
	values: number[];
	texts: Array<string | undefined>;
}

/**
 * The long number tokens outside strings; undefined when JSON.parse rounds none. UNSURE when one it rounds reads as a
 * double that writes back in under 16 characters (0.10000000000000001 as 0.1): a token this scan skips (under 16
 * characters, no exponent) may read as that double too, so the parsed document cannot tell them apart.
 */
function longTokens(text: string): LongTokens | typeof UNSURE | undefined {
	const tokens: LongTokens = { values: [], texts: [] };
	let rounded = false;
	let unsure = false;
	eachLongNumber(text, (token) => {
		const value = Number(token);
		const exact = keepsExact(token);
		rounded ||= !exact;
		if (String(value).length < RUN) unsure ||= !exact;
		else {
			tokens.values.push(value);
			// A copy: a slice of the page would keep the whole page alive in the item that holds it.
			tokens.texts.push(exact ? undefined : Buffer.from(token, 'latin1').toString('latin1'));
		}
	});
	if (!rounded) return undefined;
	return unsure ? UNSURE : tokens;
}

/**
 * `root` with each long token's number, met in text order, replaced by its text where JSON.parse rounded it. Only
 * long tokens read as doubles that long, so the n-th such number is the n-th token, unless JSON.parse moved one
 * (integer-like keys come first in an object) or dropped one (a repeated key): then UNSURE.
 */
function restoreInOrder(root: unknown, tokens: LongTokens): unknown {
	const { values, texts } = tokens;
	let next = 0;
	const swap = (value: number): unknown => (next < values.length && value === values[next] ? (texts[next++] ?? value) : value);
	const walk = (node: object, depth: number): boolean => {
		if (depth > MAX_DEPTH) return false;
		if (Array.isArray(node)) {
			for (let i = 0; i < node.length; i++) {
				const value: unknown = node[i];
				if (typeof value === 'number') node[i] = swap(value);
				else if (value !== null && typeof value === 'object' && !walk(value, depth + 1)) return false;
			}
			return true;
		}
		const record = node as Record<string, unknown>;
		const keys = Object.keys(record);
		if (keys.length > 0 && isDigit(keys[0].charCodeAt(0))) return false;
		for (const key of keys) {
			const value = record[key];
			if (typeof value === 'number') {
				const swapped = swap(value);
				// Defined, not assigned: a member named __proto__ (JSON.parse makes it an own member) stays a member.
				if (swapped !== value) Object.defineProperty(record, key, { value: swapped, writable: true, enumerable: true, configurable: true });
			} else if (value !== null && typeof value === 'object' && !walk(value, depth + 1)) return false;
		}
		return true;
	};
	const result = typeof root === 'number' ? swap(root) : root;
	if (root !== null && typeof root === 'object' && !walk(root, 0)) return UNSURE;
	return next === values.length ? result : UNSURE;
}

/**
 * Whether the text has a run of 16 digits or dots anywhere (strings included: a cheap over-estimate).
 * Any such run holds one of every 16th character; from one, at most 16 more are read.
 */
export function hasLongRun(text: string): boolean {
	for (let k = RUN - 1; k < text.length; k += RUN) {
		if (!isRunChar(text.charCodeAt(k))) continue;
		let end = k + 1;
		while (end < text.length && end - k < RUN && isRunChar(text.charCodeAt(end))) end++;
		if (end - k >= RUN) return true;
		// The run ends at `end`: it is long only if it starts at or before end − 16, so that character first.
		let start = end - RUN;
		if (start < 0 || !isRunChar(text.charCodeAt(start))) continue;
		while (start < k && isRunChar(text.charCodeAt(start))) start++;
		if (start === k) return true;
	}
	return false;
}

function isRunChar(c: number): boolean {
	return (c >= ZERO && c <= NINE) || c === DOT;
}

/** Calls `visit` with each number token outside strings that a double may not give back: 16 characters or more, or an exponent. */
function eachLongNumber(text: string, visit: (token: string, start: number, end: number) => void): void {
	let i = 0;
	const end = text.length;
	while (i < end) {
		const c = text.charCodeAt(i);
		if (c === QUOTE) {
			i = stringEnd(text, i + 1);
		} else if (c === MINUS || (c >= ZERO && c <= NINE)) {
			let j = i + 1;
			let exponent = false;
			for (let d = text.charCodeAt(j); j < end && isNumberChar(d); d = text.charCodeAt(++j)) exponent ||= d === LOWER_E || d === UPPER_E;
			// Short tokens without an exponent are exact: most numbers are never sliced.
			if (j - i >= RUN || exponent) visit(text.slice(i, j), i, j);
			i = j;
		} else {
			i++;
		}
	}
}

/** The text with every number token that JSON.parse would not keep exact written as a JSON string. */
export function inexactNumbersAsStrings(text: string): string {
	let out = '';
	let copied = 0;
	eachLongNumber(text, (token, start, end) => {
		if (keepsExact(token)) return;
		out += `${text.slice(copied, start)}"${token}"`;
		copied = end;
	});
	return copied === 0 ? text : out + text.slice(copied);
}

/** The index after the closing quote of the string whose content starts at `from` (the text's end if none). */
function stringEnd(text: string, from: number): number {
	let at = from;
	for (;;) {
		// indexOf is native; a quote is escaped when an odd run of backslashes precedes it (runs between quotes are disjoint: linear).
		const quote = text.indexOf('"', at);
		if (quote < 0) return text.length;
		let before = quote;
		while (before > from && text.charCodeAt(before - 1) === BACKSLASH) before--;
		if ((quote - before) % 2 === 0) return quote + 1;
		at = quote + 1;
	}
}

function isNumberChar(c: number): boolean {
	return (c >= ZERO && c <= NINE) || c === DOT || c === LOWER_E || c === UPPER_E || c === PLUS || c === MINUS;
}

/** The parts of a JSON number token, or undefined when it is not one (then JSON.parse is left to refuse it). */
function numberParts(token: string): { negative: boolean; int: string; frac: string; exp: string } | undefined {
	let i = 0;
	const negative = token.charCodeAt(0) === MINUS;
	if (negative) i++;
	const intStart = i;
	while (i < token.length && isDigit(token.charCodeAt(i))) i++;
	const int = token.slice(intStart, i);
	if (int === '' || (int.length > 1 && int.charCodeAt(0) === ZERO)) return undefined;
	let frac = '';
	if (token.charCodeAt(i) === DOT) {
		const fracStart = ++i;
		while (i < token.length && isDigit(token.charCodeAt(i))) i++;
		frac = token.slice(fracStart, i);
		if (frac === '') return undefined;
	}
	let exp = '';
	const e = token.charCodeAt(i);
	if (e === LOWER_E || e === UPPER_E) {
		const expStart = ++i;
		if (token.charCodeAt(i) === PLUS || token.charCodeAt(i) === MINUS) i++;
		const digitsStart = i;
		while (i < token.length && isDigit(token.charCodeAt(i))) i++;
		if (i === digitsStart) return undefined;
		exp = token.slice(expStart, i);
	}
	return i === token.length ? { negative, int, frac, exp } : undefined;
}

function isDigit(c: number): boolean {
	return c >= ZERO && c <= NINE;
}

/** Whether JSON.parse keeps this number token exact (a token that is not a JSON number counts as kept). */
export function keepsExact(token: string): boolean {
	const parts = numberParts(token);
	if (parts === undefined) return true;
	// An integer shorter than 2^53's digits is exact; a longer one only when its double gives back its digits (2^53 does, 2^53 + 1 does not).
	if (parts.frac === '' && parts.exp === '' && parts.int.length < MAX_SAFE_DIGITS.length) return true;
	// Fifteen significant digits always survive a double, unless the exponent over- or underflows it.
	if (parts.exp === '' && parts.int.length + parts.frac.length <= 15) return true;
	const value = Number(token);
	if (!Number.isFinite(value)) return false;
	return decimalOf(parts.negative, parts.int + parts.frac, parts.int.length + Number(parts.exp || '0')) === decimalOfNumber(value);
}

/** A decimal as significant digits and where the point goes: "0" for zero, whatever its sign. */
function decimalOf(negative: boolean, digits: string, point: number): string {
	let first = 0;
	while (first < digits.length && digits.charCodeAt(first) === ZERO) first++;
	let last = digits.length;
	while (last > first && digits.charCodeAt(last - 1) === ZERO) last--;
	if (first === last) return '0';
	return `${negative ? '-' : ''}${digits.slice(first, last)}e${point - first}`;
}

/** The shortest decimal that reads back as this double, in the form of `decimalOf`. */
function decimalOfNumber(value: number): string {
	const text = String(Math.abs(value));
	const e = text.indexOf('e');
	const mantissa = e < 0 ? text : text.slice(0, e);
	const exp = e < 0 ? 0 : Number(text.slice(e + 1));
	const dot = mantissa.indexOf('.');
	const int = dot < 0 ? mantissa : mantissa.slice(0, dot);
	const frac = dot < 0 ? '' : mantissa.slice(dot + 1);
	return decimalOf(value < 0, int + frac, int.length + exp);
}
