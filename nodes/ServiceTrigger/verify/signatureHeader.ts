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

// JavaScript's `\s` (the separators, with `,` and `;`): any of them ends a part.
const WHITESPACE = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]);
const isSeparator = (code: number) => code === 0x2c || code === 0x3b || WHITESPACE.has(code) || (code >= 0x2000 && code <= 0x200a);
// A key: [A-Za-z0-9_-].
const isKeyChar = (code: number) =>
	(code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x5f || code === 0x2d;
const isBlank = (code: number) => code === 0x20 || code === 0x09;

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
	const end = value.length;
	let looked = 0;
	const at = (index: number) => {
		looked++;
		return index < end ? value.charCodeAt(index) : -1;
	};
	let index = 0;
	while (index < end) {
		while (index < end && isSeparator(at(index))) index++;
		const part = readPart(value, index, at);
		if (part) {
			if (part.key === 't') parts.timestamps.push(part.text);
			else if (part.key === 'v1') parts.signatures.push(part.text);
			index = part.next;
			continue;
		}
		// Not a part: skip to the next separator, where the next one may begin.
		while (index < end && !isSeparator(at(index))) index++;
	}
	if (steps) steps.count += looked;
	return parts;
}

/** Where `key=value` begins at `start`: the key, the value and where reading goes on; none if it is not one. */
function readPart(value: string, start: number, at: (index: number) => number): { key: string; text: string; next: number } | undefined {
	let index = start;
	while (isKeyChar(at(index))) index++;
	if (index === start) return undefined;
	const key = value.slice(start, index);
	while (isBlank(at(index))) index++;
	if (at(index) !== 0x3d) return undefined;
	const afterEquals = ++index;
	while (isBlank(at(index))) index++;
	if (looksLikePart(index, at)) {
		// `k= v1=...`: the part is `k` with an empty value, ending before the last blank; none without a blank.
		return index === afterEquals ? undefined : { key, text: '', next: index - 1 };
	}
	const valueStart = index;
	let code = at(index);
	while (code !== -1 && !isSeparator(code)) code = at(++index);
	return { key, text: value.slice(valueStart, index), next: index };
}

/** Whether `key[blanks]=x` begins at `start`, x being neither `=` nor a separator. */
function looksLikePart(start: number, at: (index: number) => number): boolean {
	let index = start;
	while (isKeyChar(at(index))) index++;
	if (index === start) return false;
	while (isBlank(at(index))) index++;
	if (at(index) !== 0x3d) return false;
	const next = at(index + 1);
	return next !== -1 && next !== 0x3d && !isSeparator(next);
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
