/**
 * Reading the `Service-Signature` header (spec section 5.4; docs/service-choices.md): `t=<unix time>`
 * and one or more `v1=<signature>` parts, separated by `,`, `;` and/or whitespace; `t` in seconds or
 * milliseconds (told apart by size, or pinned by Signature Timestamp Unit). Pure: no n8n types, no
 * clock reads (the caller passes the time), never throws.
 */

/** Spec section 8: a timestamp more than this far from the receiver's clock is refused. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * A `t` at or above this is milliseconds: as seconds it would be after the year 5000, and every
 * millisecond time since March 1973 is above it, so no plausible date reads both ways.
 */
export const MILLISECONDS_FROM = 1e11;
/** A `t` at or above this is neither (microseconds or finer): refused, no setting makes it readable. */
const UNREADABLE_FROM = 1e14;

export type TimestampUnit = 'seconds' | 'milliseconds';
/** `auto`: told apart by size (MILLISECONDS_FROM). */
export type TimestampUnitSetting = 'auto' | TimestampUnit;

/** What the header alone shows is bad. */
export type HeaderProblem = 'no_header' | 'no_timestamp' | 'bad_timestamp' | 'stale' | 'future';

export interface SignatureHeaderParts {
	/** Every `t` value, as sent (more than one makes the header ambiguous). */
	timestamps: string[];
	/** Every `v1` value, as sent: several appear while the Service rotates a secret. */
	signatures: string[];
}

/** Counts the characters a read looks at (for the linear-cost property test); leave it out otherwise. */
export interface ScanSteps {
	count: number;
}

// What each UTF-16 code unit is to the reader: a separator (JavaScript's `\s`, `,`, `;`), a key
// character ([A-Za-z0-9_-]), a blank (space, tab: allowed around `=`, also separators). One table
// look-up a character keeps a 16 KiB header's read in tens of microseconds.
const SEPARATOR = 1;
const KEY = 2;
const BLANK = 4;
const CLASSES = (() => {
	const classes = new Uint8Array(0x10000);
	const whitespace = [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff];
	for (let code = 0x2000; code <= 0x200a; code++) whitespace.push(code);
	for (const code of [...whitespace, 0x2c, 0x3b]) classes[code] = SEPARATOR;
	for (const range of ['az', 'AZ', '09', '__', '--']) {
		for (let code = range.charCodeAt(0); code <= range.charCodeAt(1); code++) classes[code] = KEY;
	}
	classes[0x20] |= BLANK;
	classes[0x09] |= BLANK;
	return classes;
})();
const EQUALS = 0x3d;

/**
 * Splits the header into its `t` and `v1` parts, whatever the separator; unknown parts are ignored.
 * One pass, each character looked at a bounded number of times: a sender's header costs time in
 * proportion to its length (a backtracking regex cost the square of it; docs/token-and-limits.md).
 * A part is `key=value` after the start or a separator (`,`, `;`, whitespace), spaces and tabs allowed
 * around `=`; a value runs to the next separator, so base64 padding (`=`) stays in it; a value is never
 * itself `key=value`, so an empty part before a blank does not swallow the next part.
 */
export function parseSignatureHeader(value: string, steps?: ScanSteps): SignatureHeaderParts {
	const parts: SignatureHeaderParts = { timestamps: [], signatures: [] };
	const reader = new Reader(value);
	const end = value.length;
	let index = 0;
	while (index < end) {
		index = reader.skip(index, SEPARATOR);
		const part = reader.part(index);
		if (part) {
			if (part.key === 't') parts.timestamps.push(part.text);
			else if (part.key === 'v1') parts.signatures.push(part.text);
			index = part.next;
		} else {
			// Not a part: skip to the next separator, where the next one may begin.
			index = reader.skipNot(index, SEPARATOR);
		}
	}
	if (steps) steps.count += reader.looked;
	return parts;
}

/** The header's characters by class; `looked` counts every character looked at. */
class Reader {
	looked = 0;

	constructor(private readonly value: string) {}

	/** The class of the character at `index`; 0 past the end. */
	classAt(index: number): number {
		this.looked++;
		return index < this.value.length ? CLASSES[this.value.charCodeAt(index)] : 0;
	}

	/** The first index from `index` whose character is not of `kind`. */
	skip(index: number, kind: number): number {
		const { value } = this;
		const start = index;
		while (index < value.length && (CLASSES[value.charCodeAt(index)] & kind) !== 0) index++;
		this.looked += index - start + 1;
		return index;
	}

	/** The first index from `index` whose character is of `kind`, or the end. */
	skipNot(index: number, kind: number): number {
		const { value } = this;
		const start = index;
		while (index < value.length && (CLASSES[value.charCodeAt(index)] & kind) === 0) index++;
		this.looked += index - start + 1;
		return index;
	}

	isEquals(index: number): boolean {
		this.looked++;
		return index < this.value.length && this.value.charCodeAt(index) === EQUALS;
	}

	/** Where `key=value` begins at `start`: the key, the value and where reading goes on; none if it is not one. */
	part(start: number): { key: string; text: string; next: number } | undefined {
		let index = this.skip(start, KEY);
		if (index === start) return undefined;
		const key = this.value.slice(start, index);
		index = this.skip(index, BLANK);
		if (!this.isEquals(index)) return undefined;
		const afterEquals = index + 1;
		index = this.skip(afterEquals, BLANK);
		if (this.looksLikePart(index)) {
			// `k= v1=...`: the part is `k` with an empty value, ending before the last blank; none without a blank.
			return index === afterEquals ? undefined : { key, text: '', next: index - 1 };
		}
		const valueEnd = this.skipNot(index, SEPARATOR);
		return { key, text: this.value.slice(index, valueEnd), next: valueEnd };
	}

	/** Whether `key[blanks]=x` begins at `start`, x being neither `=` nor a separator. */
	private looksLikePart(start: number): boolean {
		let index = this.skip(start, KEY);
		if (index === start) return false;
		index = this.skip(index, BLANK);
		if (!this.isEquals(index)) return false;
		const next = index + 1;
		return next < this.value.length && !this.isEquals(next) && (this.classAt(next) & SEPARATOR) === 0;
	}
}

// Unix time as plain digits: no sign, exponent, fraction or hex, which Number() would accept.
const TIMESTAMP = /^\d{1,16}$/;

/** A header whose `t` is one fresh timestamp: what the signature check works on. */
export interface FreshSignatureHeader {
	parts: SignatureHeaderParts;
	/** Unix seconds (fractional when `t` came in milliseconds). */
	timestamp: number;
	/** The unit `t` was read in. */
	unit: TimestampUnit;
}

/**
 * Reads the header once. What it alone shows is bad (missing, unreadable or stale `t`) is known
 * before any secret is read or unsealed: a garbage or replayed delivery then costs microseconds.
 */
export function readSignatureHeader(
	value: string | string[] | undefined,
	nowSeconds: number,
	toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): { problem: HeaderProblem } | FreshSignatureHeader {
	const header = Array.isArray(value) ? value.join(',') : value;
	if (typeof header !== 'string' || header.trim() === '') return { problem: 'no_header' };
	const parts = parseSignatureHeader(header);
	const { timestamps } = parts;
	if (timestamps.length === 0) return { problem: 'no_timestamp' };
	// Two timestamps leave open which one was signed: refuse rather than guess.
	if (timestamps.length > 1 || !TIMESTAMP.test(timestamps[0])) return { problem: 'bad_timestamp' };
	const sent = Number(timestamps[0]);
	if (sent >= UNREADABLE_FROM) return { problem: 'bad_timestamp' };
	const unit: TimestampUnit = sent >= MILLISECONDS_FROM ? 'milliseconds' : 'seconds';
	const timestamp = unit === 'milliseconds' ? sent / 1000 : sent;
	if (timestamp < nowSeconds - toleranceSeconds) return { problem: 'stale' };
	if (timestamp > nowSeconds + toleranceSeconds) return { problem: 'future' };
	return { parts, timestamp, unit };
}
