/**
 * The keys a trigger verified its last accepted delivery with, kept for a minute, used only to
 * refuse: a delivery that matches none of them is refused without reading the credential or
 * unsealing anything (a flood of forgeries then costs an HMAC each). A match is never trusted on
 * its own: acceptance always verifies again with keys from the current credential. After the
 * secret changes, deliveries signed with the new one can be refused for up to a minute; the
 * Service retries them. Pure: no n8n types, no clock.
 */
import type { SignatureEncoding } from './webhookSignature';

export const RECENT_KEYS_MS = 60_000;

interface Entry {
	keys: Buffer[];
	signatureEncoding: SignatureEncoding;
	at: number;
}

export class RecentKeys {
	private readonly entries = new Map<string, Entry>();

	constructor(
		private readonly maxAgeMs = RECENT_KEYS_MS,
		private readonly maxEntries = 1000,
	) {}

	/** `stamp` identifies what the keys came from (the stored sealed secrets): a new activation misses. */
	remember(trigger: string, stamp: string, keys: Buffer[], signatureEncoding: SignatureEncoding, nowMs: number): void {
		const key = `${trigger}\u0000${stamp}`;
		this.entries.delete(key);
		this.entries.set(key, { keys, signatureEncoding, at: nowMs });
		if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
	}

	fresh(trigger: string, stamp: string, nowMs: number): Omit<Entry, 'at'> | undefined {
		const entry = this.entries.get(`${trigger}\u0000${stamp}`);
		return entry && nowMs - entry.at < this.maxAgeMs ? entry : undefined;
	}

	forgetAll(): void {
		this.entries.clear();
	}
}

/** One per n8n process. */
export const recentKeys = new RecentKeys();
