/**
 * The keys a trigger last read from its credential (and the sealed secrets it unsealed with it),
 * kept for a minute from that read, whether the delivery they were read for was genuine or not:
 * - a delivery that matches none of them is refused without reading the credential or unsealing
 *   anything (a flood of forgeries then costs an HMAC each); after the secret changes, deliveries
 *   signed with the new one can be refused for up to a minute, and the Service retries them;
 * - a delivery that matches keys unsealed from this activation's stored endpoints is accepted
 *   without reading the credential again: those secrets change only with a new activation, which
 *   changes the stamp. Keys from the credential's Webhook Signing Secret are never trusted this
 *   way, so a secret changed there takes effect at once.
 * Only a credential read renews the minute: while deliveries come, it is read about once a minute.
 * The access token's redactors read with them are kept alike: an accepted delivery's item is cleared of
 * the token read at most a minute ago, without reading the credential again (docs/performance.md: each
 * read costs n8n an expression isolate).
 * Pure: no n8n types, no clock.
 */
import { BoundedMemory } from '../boundedMemory';
import type { TokenRedactors } from '../../shared/redaction';
import type { HeldKeys } from './verdict';

export const RECENT_KEYS_MS = 60_000;

/** Keys as read, with the redactors of the access token read beside them. */
export interface RememberedKeys extends HeldKeys {
	redactors?: TokenRedactors;
}

interface Entry extends RememberedKeys {
	at: number;
}

export class RecentKeys {
	private readonly entries: BoundedMemory<Entry>;

	constructor(maxAgeMs = RECENT_KEYS_MS, maxEntries = 1000) {
		// At most 1000 trigger and endpoint states, each kept a minute from its credential read.
		this.entries = new BoundedMemory<Entry>(maxEntries, maxAgeMs);
	}

	/** `stamp` identifies what the keys came from (the stored sealed secrets): a new activation misses. */
	remember(trigger: string, stamp: string, keys: Omit<Entry, 'at'>, nowMs: number): void {
		this.entries.set(`${trigger}\u0000${stamp}`, { ...keys, at: nowMs }, nowMs);
	}

	fresh(trigger: string, stamp: string, nowMs: number): Omit<Entry, 'at'> | undefined {
		return this.entries.get(`${trigger}\u0000${stamp}`, nowMs);
	}

	forgetAll(): void {
		this.entries.clear();
	}
}

/** One per n8n process. */
export const recentKeys = new RecentKeys();
