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

// One `key=value` part: after the start or a separator (`,`, `;`, whitespace), spaces allowed around `=`.
// A value runs to the next separator, so base64 padding (`=`) stays in it; a value is never itself
// `key=value`, so an empty part before a whitespace separator does not swallow the next part.
const PART = /(?:^|[,;\s])[,;\s]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*(?![A-Za-z0-9_-]+[ \t]*=[^=,;\s])([^,;\s]*)/g;

/** Splits the header into its `t` and `v1` parts, whatever the separator; unknown parts are ignored. */
export function parseSignatureHeader(value: string): SignatureHeaderParts {
	const parts: SignatureHeaderParts = { timestamps: [], signatures: [] };
	for (const [, key, text] of value.matchAll(PART)) {
		if (key === 't') parts.timestamps.push(text);
		else if (key === 'v1') parts.signatures.push(text);
	}
	return parts;
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
