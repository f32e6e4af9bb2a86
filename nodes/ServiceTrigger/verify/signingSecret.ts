/**
 * Turns a webhook signing secret into the HMAC key bytes. The spec leaves the secret's encoding
 * "not shown"; docs/service-choices.md takes `whsec_` + base64, and the credential's
 * Secret Encoding setting covers Services that differ. Pure: no n8n types.
 */

export type SecretEncoding = 'base64' | 'hex' | 'raw';

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
