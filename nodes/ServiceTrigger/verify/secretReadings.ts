/**
 * The keys of one reading of the credential: under Secret Encoding Detect every reading of each
 * secret, the one learned from an earlier genuine delivery first; under a set encoding that reading,
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
		for (const reading of learned === undefined ? all : [...all.filter((r) => r.encoding === learned), ...all.filter((r) => r.encoding !== learned)]) {
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
				// First from now on, also in the keys remembered for the next minute (recentKeys.ts).
				keys.splice(keys.indexOf(key), 1);
				keys.unshift(key);
			},
		};
	}
}
