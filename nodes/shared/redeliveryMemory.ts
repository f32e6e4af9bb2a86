/**
 * Memory of the alert_ids already passed on, so a redelivery of the same alert starts nothing.
 * The Service retries a failed delivery for 24 hours (spec section 6), so an alert can come twice
 * within that window; the memory keeps each id a little longer than that and never more than a
 * fixed number of ids, because it lives in workflow static data that n8n rewrites on every change.
 *
 * In static data it is stored as one string, a line `<epoch ms> <alert_id>` per alert, oldest
 * first: n8n wraps every object and array in static data in a Proxy each time it loads it (several
 * times per delivery), and 1,000 wrapped pairs showed in a profile under load; a string is not wrapped.
 * Pure: no n8n types, no clock reads.
 */

/** `[alert_id, first passed on (epoch ms)]`, oldest first. An array keeps the order in JSON. */
export type SeenAlerts = Array<[string, number]>;

export interface MemoryLimits {
	maxEntries: number;
	maxAgeMs: number;
}

/** 24 h retry window plus an hour for clock skew and the last attempt's own delay. */
export const DEFAULT_MEMORY_LIMITS: MemoryLimits = { maxEntries: 1000, maxAgeMs: 25 * 60 * 60 * 1000 };

/**
 * The valid, unexpired entries of a stored value: the string `storedAlerts` writes, or a list of
 * pairs as these functions return. Static data may hold anything; what is not an entry is skipped.
 */
export function liveAlerts(stored: unknown, nowMs: number, limits: MemoryLimits = DEFAULT_MEMORY_LIMITS): SeenAlerts {
	const entries = typeof stored === 'string' ? parseStored(stored) : Array.isArray(stored) ? stored : [];
	const live = entries.filter(
		(entry): entry is [string, number] =>
			Array.isArray(entry) &&
			entry.length === 2 &&
			typeof entry[0] === 'string' &&
			typeof entry[1] === 'number' &&
			Number.isFinite(entry[1]) &&
			nowMs - entry[1] <= limits.maxAgeMs,
	);
	return live.slice(Math.max(live.length - limits.maxEntries, 0));
}

/** The stored form: one line `<epoch ms> <alert_id>` per entry, oldest first. */
export function storedAlerts(seen: SeenAlerts): string {
	return seen.map(([id, ms]) => `${ms} ${id}`).join('\n');
}

function parseStored(stored: string): unknown[] {
	if (stored === '') return [];
	return stored.split('\n').map((line) => {
		const space = line.indexOf(' ');
		return space > 0 ? [line.slice(space + 1), Number(line.slice(0, space))] : undefined;
	});
}

export function hasSeenAlert(seen: SeenAlerts, alertId: string): boolean {
	return seen.some(([id]) => id === alertId);
}

/**
 * The memory `seen` (live entries, as `liveAlerts` returns them) with `alertId` added unless
 * present, oldest entries dropped beyond the limit.
 */
export function rememberAlert(
	seen: SeenAlerts,
	alertId: string,
	nowMs: number,
	limits: MemoryLimits = DEFAULT_MEMORY_LIMITS,
): SeenAlerts {
	// An id with a line break could not be stored as a line; not remembering it errs towards a
	// second execution, never towards a lost alert.
	if (hasSeenAlert(seen, alertId) || alertId.includes('\n')) return seen;
	const next: SeenAlerts = [...seen, [alertId, nowMs]];
	return next.slice(Math.max(next.length - limits.maxEntries, 0));
}
