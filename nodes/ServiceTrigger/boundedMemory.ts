/**
 * A process-wide memory bounded by size and by age: it holds at most `maxEntries` entries (writing
 * one more drops the one written longest ago), optionally at most `maxBytes` as `sizeOf` counts them
 * (the same way), and never gives back an entry `maxAgeMs` old or older by the caller's clock. Age is
 * checked on read and dropped by `prune`, so it needs no timer: a stale entry stays until pruned,
 * written over or pushed out. Pure: no n8n types, no clock, no timers.
 */
export class BoundedMemory<V> {
	/** A Map keeps insertion order: a write re-inserts, so the oldest written comes first. */
	private readonly entries = new Map<string, { value: V; at: number; bytes: number }>();
	private held = 0;
	/** Entries pushed out, pruned, dropped or cleared so far (not those written over or deleted). */
	dropped = 0;

	constructor(
		readonly maxEntries: number,
		readonly maxAgeMs: number,
		private readonly bytes?: { maxBytes: number; sizeOf: (value: V, key: string) => number },
	) {}

	/** The value written at `key` less than `maxAgeMs` before `nowMs`. */
	get(key: string, nowMs: number): V | undefined {
		const entry = this.entries.get(key);
		return entry !== undefined && nowMs - entry.at < this.maxAgeMs ? entry.value : undefined;
	}

	/** Writes `value` at `key` as of `nowMs`, returning the value it replaces (stale or not). */
	set(key: string, value: V, nowMs: number): V | undefined {
		const replaced = this.entries.get(key);
		if (replaced !== undefined) this.remove(key, replaced.bytes);
		const bytes = this.bytes?.sizeOf(value, key) ?? 0;
		this.entries.set(key, { value, at: nowMs, bytes });
		this.held += bytes;
		while (this.entries.size > this.maxEntries || (this.bytes !== undefined && this.held > this.bytes.maxBytes && this.entries.size > 0)) {
			this.dropOldest();
		}
		return replaced?.value;
	}

	delete(key: string): void {
		const entry = this.entries.get(key);
		if (entry !== undefined) this.remove(key, entry.bytes);
	}

	/** Drops the entry written longest ago, giving back the bytes it was counted at. */
	dropOldest(): number {
		const first = this.entries.entries().next();
		if (first.done === true) return 0;
		const [key, entry] = first.value;
		this.remove(key, entry.bytes);
		this.dropped++;
		return entry.bytes;
	}

	/** Drops the entries `maxAgeMs` old or older at `nowMs`, oldest first: stops at the first younger one. */
	prune(nowMs: number): void {
		for (const [key, entry] of this.entries) {
			if (nowMs - entry.at < this.maxAgeMs) return;
			this.remove(key, entry.bytes);
			this.dropped++;
		}
	}

	get size(): number {
		return this.entries.size;
	}

	/** What the entries held count, by `sizeOf` (0 without it). */
	get heldBytes(): number {
		return this.held;
	}

	clear(): void {
		this.dropped += this.entries.size;
		this.entries.clear();
		this.held = 0;
	}

	private remove(key: string, bytes: number): void {
		this.entries.delete(key);
		this.held -= bytes;
	}
}
