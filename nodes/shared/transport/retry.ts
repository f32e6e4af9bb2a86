/**
 * When to try a request again. Pure: no n8n types, no clock reads, so it is easy to test.
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
	const delay = fromHeader ?? baseDelayMs * 2 ** attempt;
	return Math.min(Math.max(delay, 0), maxDelayMs);
}

/** `Retry-After` as milliseconds from now, or undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined) return undefined;
	const text = value.trim();
	if (text === '') return undefined;
	if (/^\d+$/.test(text)) return Number(text) * 1000;
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(date - nowMs, 0);
}

/** Seconds from 10^9 (2001) on are a Unix time, not a wait: no Service asks to wait 31 years. */
const EPOCH_SECONDS_FROM = 1_000_000_000;

/**
 * A rate-limit reset (`RateLimit-Reset`, `X-RateLimit-Reset`, or `reset=` of `RateLimit`) as
 * milliseconds from now: seconds to wait, or, from 10^9 on, the Unix time (seconds) of the reset.
 */
export function parseRateLimitResetMs(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined) return undefined;
	const text = value.trim();
	// `reset=` of the older RateLimit drafts, `t=` of the newer (`"default";r=0;t=30`).
	const reset = /^\d{1,15}$/.test(text) ? text : /(?:^|[;,\s])(?:reset|t)=(\d{1,15})(?:$|[;,\s])/.exec(text)?.[1];
	if (reset === undefined) return undefined;
	const seconds = Number(reset);
	return seconds >= EPOCH_SECONDS_FROM ? Math.max(seconds * 1000 - nowMs, 0) : seconds * 1000;
}

/** Which header asked for a wait, and how long: `Retry-After` first, then the rate-limit headers. */
export function askedWait(header: (name: string) => string | undefined, nowMs: number): { header: string; ms: number; value: string } | undefined {
	const retryAfter = header('retry-after');
	const fromRetryAfter = parseRetryAfterMs(retryAfter, nowMs);
	if (fromRetryAfter !== undefined) return { header: 'Retry-After', ms: fromRetryAfter, value: retryAfter! };
	for (const name of ['RateLimit-Reset', 'X-RateLimit-Reset', 'RateLimit']) {
		const value = header(name);
		const ms = parseRateLimitResetMs(value, nowMs);
		if (ms !== undefined) return { header: name, ms, value: value! };
	}
	return undefined;
}
