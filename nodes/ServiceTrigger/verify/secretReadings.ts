/**
 * The keys of one reading of the credential: under Secret Encoding Detect every reading of each
 * secret until a genuine delivery verified under one, then that one only; under a set encoding that reading,
 * and the others as alternatives that only name the setting on a refusal (verdict.ts). What was
 * learned is held per process, by the secret's SHA-256. Pure: no n8n types.
 */
import { createHash } from 'node:crypto';

import { BoundedMemory } from '../boundedMemory';
import { SECRET_ENCODING_LABELS, secretKeys, secretReadings, type SecretEncoding, type SecretEncodingSetting } from './signingSecret';
import type { HeldKeys } from './verdict';

/** How each secret was read, learned from the deliveries that verified (Detect): at most 10,000 secrets, each by its SHA-256. */
export const learnedReadings = new BoundedMemory<SecretEncoding>(10_000, Number.MAX_SAFE_INTEGER);

/**
 * The keys of one read: under Detect every reading of each secret, the one learned first; under a
 * set encoding that reading, and the others as alternatives that only name the setting on a refusal.
 */
export class SecretReadings {
	private readonly keys: Buffer[] = [];
	private readonly alternatives: Array<{ setting: string; key: Buffer }> = [];
	private readonly learnedAs = new Map<Buffer, { secret: string; encoding: SecretEncoding }>();

	constructor(
		private readonly setting: SecretEncodingSetting,
		private readonly now: () => number,
	) {}

	get empty(): boolean {
		return this.keys.length === 0 && this.alternatives.length === 0;
	}

	/** Adds a secret's keys; the set encoding's problem when it cannot read the secret. */
	add(secret: string): string | undefined {
		const all = secretReadings(secret);
		if (this.setting !== 'auto') {
			let problem: string | undefined;
			try {
				const [set] = secretKeys(secret, this.setting);
				this.keys.push(set.key);
			} catch (error) {
				problem = (error as Error).message;
			}
			for (const { encoding, key } of all) if (encoding !== this.setting && !this.keys.some((kept) => kept.equals(key))) this.alternatives.push({ setting: SECRET_ENCODING_LABELS[encoding], key });
			return problem;
		}
		const digest = createHash('sha256').update(secret.trim()).digest('base64');
		const learned = learnedReadings.get(digest, this.now());
		// Once a genuine delivery verified under one reading, it is the only one: a forgery costs one HMAC, as with a set encoding.
		const known = learned === undefined ? [] : all.filter((r) => r.encoding === learned);
		for (const reading of known.length > 0 ? known : all) {
			this.keys.push(reading.key);
			this.learnedAs.set(reading.key, { secret: digest, encoding: reading.encoding });
		}
		return undefined;
	}

	held(): Pick<HeldKeys, 'keys' | 'alternatives' | 'learned'> {
		const keys = this.keys;
		return {
			keys,
			alternatives: this.alternatives.length > 0 ? this.alternatives : undefined,
			learned: (key) => {
				const reading = this.learnedAs.get(key);
				if (reading === undefined) return;
				learnedReadings.set(reading.secret, reading.encoding, this.now());
				// The only reading of this secret from now on, also in the keys remembered for the next minute (recentKeys.ts);
				// another secret's readings (a second endpoint's) stay.
				for (let at = keys.length - 1; at >= 0; at--) if (keys[at] !== key && this.learnedAs.get(keys[at])?.secret === reading.secret) keys.splice(at, 1);
				keys.splice(keys.indexOf(key), 1);
				keys.unshift(key);
			},
		};
	}
}
