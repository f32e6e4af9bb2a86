/**
 * Turns a webhook signing secret into HMAC key bytes. The spec leaves the secret's encoding "not
 * shown": with Secret Encoding on Detect (`auto`, the default) every reading the secret allows is a
 * candidate, and the one a genuine delivery verifies under is learned (triggerKeys.ts); a set
 * encoding gives one key. docs/trigger.md says why this does not help a forger. Pure: no n8n types.
 */

export type SecretEncoding = 'base64' | 'hex' | 'raw';
export type SecretEncodingSetting = 'auto' | SecretEncoding;

/** The setting's value as the credential dialog shows it, for words that say what to set. */
export const SECRET_ENCODING_LABELS: Record<SecretEncoding, string> = { base64: 'Base64 (Optional Whsec_ Prefix)', hex: 'Hex', raw: 'Raw Text' };

/** A secret that cannot be decoded. The message never contains the secret itself. */
export class SigningSecretError extends Error {}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

export function decodeSigningSecret(secret: string, encoding: SecretEncoding): Buffer {
	const text = secret.trim();
	if (text === '') throw new SigningSecretError('The webhook signing secret is empty.');
	if (encoding === 'raw') return Buffer.from(text, 'utf8');
	if (encoding === 'hex') {
		if (!HEX.test(text)) {
			throw new SigningSecretError(
				'The webhook signing secret is not hex text. Check the Secret Encoding setting in the Service API credential.',
			);
		}
		return Buffer.from(text, 'hex');
	}
	const body = text.startsWith('whsec_') ? text.slice('whsec_'.length) : text;
	// Node's base64 decoder skips characters it does not know, so check the alphabet first:
	// a secret pasted with a typo must fail here, not silently turn into another key.
	if (body === '' || !(BASE64.test(body) || BASE64URL.test(body))) {
		throw new SigningSecretError(
			'The webhook signing secret is not base64 text (optionally after "whsec_"). Check the Secret Encoding setting in the Service API credential.',
		);
	}
	const key = Buffer.from(body, 'base64');
	if (key.length === 0) throw new SigningSecretError('The webhook signing secret decodes to no key bytes.');
	return key;
}

/**
 * Every key the secret can be read as, most likely first, without repeats: `whsec_` or 64 hex
 * characters say which reading leads. At most three (hex, base64, the text itself).
 */
export function secretReadings(secret: string): Array<{ encoding: SecretEncoding; key: Buffer }> {
	const text = secret.trim();
	const order: SecretEncoding[] = text.startsWith('whsec_') ? ['base64', 'raw', 'hex'] : HEX.test(text) ? ['hex', 'base64', 'raw'] : ['base64', 'hex', 'raw'];
	const readings: Array<{ encoding: SecretEncoding; key: Buffer }> = [];
	for (const encoding of order) {
		try {
			const key = decodeSigningSecret(text, encoding);
			if (!readings.some((reading) => reading.key.equals(key))) readings.push({ encoding, key });
		} catch {
			// Not a reading this secret allows.
		}
	}
	return readings;
}

/** The keys to verify with under a setting: one for a set encoding (it may throw), every reading for Detect. */
export function secretKeys(secret: string, setting: SecretEncodingSetting): Array<{ encoding: SecretEncoding; key: Buffer }> {
	if (setting !== 'auto') return [{ encoding: setting, key: decodeSigningSecret(secret, setting) }];
	const readings = secretReadings(secret);
	if (readings.length === 0) throw new SigningSecretError('The webhook signing secret is empty.');
	return readings;
}
