/**
 * A process-wide memory bounded by size and by age: it holds at most `maxEntries` entries (writing
 * one more drops the one written longest ago), and never gives back an entry `maxAgeMs` old or older
 * by the caller's clock. Age is checked on read, so it needs no timer: a stale entry stays until
 * written over or pushed out. Pure: no n8n types, no clock, no timers.
 */
export class BoundedMemory<V> {
	/** A Map keeps insertion order: a write re-inserts, so the oldest written comes first. */
	private readonly entries = new Map<string, { value: V; at: number }>();

	constructor(
		readonly maxEntries: number,
		readonly maxAgeMs: number,
	) {}

	/** The value written at `key` less than `maxAgeMs` before `nowMs`. */
	get(key: string, nowMs: number): V | undefined {
		const entry = this.entries.get(key);
		return entry !== undefined && nowMs - entry.at < this.maxAgeMs ? entry.value : undefined;
	}

	/** Writes `value` at `key` as of `nowMs`, returning the value it replaces (stale or not). */
	set(key: string, value: V, nowMs: number): V | undefined {
		const replaced = this.entries.get(key);
		this.entries.delete(key);
		this.entries.set(key, { value, at: nowMs });
		if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
		return replaced?.value;
	}

	get size(): number {
		return this.entries.size;
	}

	clear(): void {
		this.entries.clear();
	}
}
