/**
 * When to try a request again, and how long the Service asked to wait. Pure: no n8n types, no
 * clock reads. Headers are read by scanning characters, never by a backtracking regex.
 */

/** Statuses worth another attempt: rate limiting and server faults. */
export function isRetryableStatus(status: number): boolean {
	return status === 429 || (status >= 500 && status <= 599);
}

/**
 * Milliseconds to wait before attempt `attempt + 1` (attempt counts from 0).
 * A `Retry-After` header wins when present (seconds or an HTTP date), capped at `maxDelayMs`;
 * otherwise exponential backoff from `baseDelayMs`.
 */
export function retryDelayMs(
	attempt: number,
	retryAfter: string | undefined,
	nowMs: number,
	baseDelayMs = 500,
	maxDelayMs = 60_000,
): number {
	const fromHeader = parseRetryAfterMs(retryAfter, nowMs);
	const delay = fromHeader ?? baseDelayMs * 2 ** Math.min(attempt, 30);
	return Math.min(Math.max(delay, 0), maxDelayMs);
}

/** Any wait past a year is said as "more than a year": a number that large is no plan to come back. */
export const ABSURD_WAIT_MS = 365 * 24 * 3600 * 1000;
/** Digits past this count are beyond any real wait (10^12 s): read as an absurd wait, never as Infinity. */
const MAX_DIGITS = 12;
/** An HTTP-date is 29 characters (asctime 24, RFC 850 up to 33): longer text is not one. */
const MAX_DATE_CHARS = 64;

/** The whole text is ASCII digits. */
function allDigits(text: string): boolean {
	if (text === '') return false;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code < 48 || code > 57) return false;
	}
	return true;
}

/** Whole seconds as milliseconds; a number of more than 12 digits is an absurd wait (capped, finite). */
function secondsMs(digits: string): number {
	let start = 0;
	while (start < digits.length - 1 && digits[start] === '0') start++;
	if (digits.length - start > MAX_DIGITS) return Number.MAX_SAFE_INTEGER;
	return Math.min(Number(digits.slice(start)) * 1000, Number.MAX_SAFE_INTEGER);
}

/** `Retry-After` as milliseconds from now (delta-seconds or an HTTP-date), or undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined) return undefined;
	const text = value.trim();
	if (text === '') return undefined;
	if (allDigits(text)) return secondsMs(text);
	if (text.length > MAX_DATE_CHARS) return undefined;
	// An HTTP-date names a weekday or month: letters are needed, a bare "-5" or "1.5" is no date.
	let letters = false;
	for (let i = 0; i < text.length && !letters; i++) {
		const code = text.charCodeAt(i) | 32;
		letters = code >= 97 && code <= 122;
	}
	if (!letters) return undefined;
	const date = Date.parse(text);
	if (!Number.isFinite(date)) return undefined;
	return Math.min(Math.max(date - nowMs, 0), Number.MAX_SAFE_INTEGER);
}

/** Seconds from 10^9 (2001) on are a Unix time, not a wait: no Service asks to wait 31 years. */
const EPOCH_SECONDS_FROM = 1_000_000_000;

/** Seconds to wait, or from 10^9 on the Unix time (seconds) of the reset, as milliseconds from now. */
function resetMs(digits: string, nowMs: number): number {
	const ms = secondsMs(digits);
	return ms >= EPOCH_SECONDS_FROM * 1000 && ms < Number.MAX_SAFE_INTEGER ? Math.max(ms - nowMs, 0) : ms;
}

/** One member of a structured-field list (RFC 8941): its item as text and its parameters, in order. */
export interface FieldMember {
	item: string;
	params: Map<string, string>;
}

/**
 * A structured-field list or dictionary (`"default";r=0;t=30, "daily";r=5;t=600`, or the older
 * `limit=100, remaining=0, reset=30`) read in one pass: commas inside quoted strings kept, a
 * dictionary member's `key=value` read as the item `key` with the parameter `key` set to its value.
 * Lenient: what it cannot read is left out, nothing throws.
 */
export function parseFieldMembers(text: string): FieldMember[] {
	const members: FieldMember[] = [];
	let i = 0;
	const n = text.length;
	const skipSpaces = () => {
		while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
	};
	// A bare value: up to the next `;` or `,`; a quoted one: to its closing quote, `\` escapes kept out.
	const value = (): string => {
		if (text[i] === '"') {
			i++;
			let out = '';
			while (i < n && text[i] !== '"') {
				if (text[i] === '\\' && i + 1 < n) i++;
				out += text[i];
				i++;
			}
			i++;
			return out;
		}
		const start = i;
		while (i < n && text[i] !== ';' && text[i] !== ',') i++;
		return text.slice(start, i).trim();
	};
	const key = (): string => {
		const start = i;
		while (i < n && text[i] !== '=' && text[i] !== ';' && text[i] !== ',') i++;
		return text.slice(start, i).trim().toLowerCase();
	};
	while (i < n) {
		skipSpaces();
		const params = new Map<string, string>();
		let item: string;
		if (text[i] === '"') item = value();
		else {
			item = key();
			if (text[i] === '=') {
				i++;
				params.set(item, value());
			}
		}
		while (i < n && text[i] !== ',') {
			if (text[i] === ';') {
				i++;
				skipSpaces();
				const name = key();
				if (text[i] === '=') {
					i++;
					params.set(name, value());
				} else params.set(name, '?1');
			} else i++;
		}
		i++;
		members.push({ item, params });
	}
	return members;
}

/** A parameter holding whole seconds (`t=30`), as digits, or undefined. */
function digitsOf(params: Map<string, string>, name: string): string | undefined {
	const got = params.get(name)?.trim();
	return got !== undefined && allDigits(got) ? got : undefined;
}

/**
 * A rate-limit reset as milliseconds from now. `RateLimit-Reset` / `X-RateLimit-Reset`: seconds, or from
 * 10^9 on a Unix time. `RateLimit` (draft-ietf-httpapi-ratelimit-headers): the longest `t=` of the
 * policies with `r=0`; none when every policy has quota left; without `r=`, the longest `t=` or older `reset=`.
 */
export function parseRateLimitResetMs(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined) return undefined;
	const text = value.trim();
	if (text.length > 4096) return undefined;
	if (allDigits(text)) return resetMs(text, nowMs);
	let exhausted: number | undefined;
	let unsaid: number | undefined;
	let remainingSaid = false;
	for (const { params } of parseFieldMembers(text)) {
		const reset = digitsOf(params, 't') ?? digitsOf(params, 'reset');
		const remaining = digitsOf(params, 'r') ?? digitsOf(params, 'remaining');
		if (remaining !== undefined) remainingSaid = true;
		if (reset === undefined) continue;
		const ms = resetMs(reset, nowMs);
		if (remaining === undefined) unsaid = Math.max(unsaid ?? 0, ms);
		else if (Number(remaining) === 0) exhausted = Math.max(exhausted ?? 0, ms);
	}
	// Quota left in every policy that says so: this header asks for no wait (a 5xx keeps its backoff).
	return exhausted ?? (remainingSaid && unsaid === undefined ? undefined : unsaid);
}

/** `RateLimit-Policy` (`"default";q=100;w=60`): the longest window, in milliseconds, a wait that surely sees the quota renewed. */
export function parseRateLimitPolicyMs(value: string | undefined): number | undefined {
	if (value === undefined || value.length > 4096) return undefined;
	let longest: number | undefined;
	for (const { params } of parseFieldMembers(value)) {
		const window = digitsOf(params, 'w') ?? digitsOf(params, 'window');
		if (window !== undefined) longest = Math.max(longest ?? 0, secondsMs(window));
	}
	return longest;
}

/**
 * Which header asked for a wait, and how long: `Retry-After` first, then the rate-limit headers
 * (`RateLimit-Reset`, `X-RateLimit-Reset`, `RateLimit`), then, for a 429, the window of `RateLimit-Policy`.
 */
export function askedWait(header: (name: string) => string | undefined, nowMs: number, status = 429): { header: string; ms: number; value: string } | undefined {
	const retryAfter = header('retry-after');
	const fromRetryAfter = parseRetryAfterMs(retryAfter, nowMs);
	if (fromRetryAfter !== undefined) return { header: 'Retry-After', ms: fromRetryAfter, value: retryAfter! };
	for (const name of ['RateLimit-Reset', 'X-RateLimit-Reset', 'RateLimit']) {
		const value = header(name);
		const ms = parseRateLimitResetMs(value, nowMs);
		if (ms !== undefined) return { header: name, ms, value: value! };
	}
	// A policy's window says when a quota renews, not that it is spent: read for a 429 only.
	if (status !== 429) return undefined;
	const policy = header('RateLimit-Policy');
	const window = parseRateLimitPolicyMs(policy);
	if (window !== undefined) return { header: 'RateLimit-Policy', ms: window, value: policy! };
	return undefined;
}

/** A wait in words for an error: whole seconds, "more than a year" past one; never Infinity or NaN. */
export function waitWords(ms: number): string {
	if (!Number.isFinite(ms) || ms > ABSURD_WAIT_MS) return 'more than a year';
	const value = Math.ceil(ms / 1000);
	return `${value} second${value === 1 ? '' : 's'}`;
}
