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
