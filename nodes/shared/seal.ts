/**
 * Text sealed under the access token: AES-256-GCM with a key from HKDF-SHA256 (random salt per seal,
 * `info` naming what is sealed), `boundTo` bound in as associated data so a sealed value cannot be moved
 * to another place. Used for the trigger's signing secret (static data, which n8n stores unencrypted)
 * and the KE picker's pagination token (which goes to the browser). Pure: no n8n types, node's crypto only.
 */
import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

const VERSION = 's1';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

// Keys go to node's crypto as KeyObjects: a Buffer key is much slower on Node 24 (docs/performance.md).
function keyFor(accessToken: string, salt: Buffer, info: string): KeyObject {
	const inputKey = createSecretKey(Buffer.from(accessToken, 'utf8'));
	return createSecretKey(Buffer.from(hkdfSync('sha256', inputKey, salt, info, 32)));
}

/** `s1.<salt>.<iv>.<tag>.<ciphertext>`, each part base64url. */
export function sealText(secret: string, accessToken: string, boundTo: string, info: string): string {
	if (accessToken === '') throw new Error('Cannot seal: the credential has no access token.');
	const salt = randomBytes(SALT_BYTES);
	const iv = randomBytes(IV_BYTES);
	const cipher = createCipheriv('aes-256-gcm', keyFor(accessToken, salt, info), iv);
	cipher.setAAD(Buffer.from(boundTo, 'utf8'));
	const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
	const tag = cipher.getAuthTag();
	return [VERSION, salt, iv, tag, ciphertext]
		.map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
		.join('.');
}

/**
 * The text, or undefined when `sealed` is not something this module sealed with this access
 * token, `info` and `boundTo` (token changed, value edited or moved). Never throws.
 */
export function unsealText(sealed: unknown, accessToken: string, boundTo: string, info: string): string | undefined {
	if (typeof sealed !== 'string' || accessToken === '') return undefined;
	const parts = sealed.split('.');
	if (parts.length !== 5 || parts[0] !== VERSION) return undefined;
	const [salt, iv, tag, ciphertext] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
	if (salt.length !== SALT_BYTES || iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return undefined;
	try {
		const decipher = createDecipheriv('aes-256-gcm', keyFor(accessToken, salt, info), iv);
		decipher.setAAD(Buffer.from(boundTo, 'utf8'));
		decipher.setAuthTag(tag);
		return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
	} catch {
		// GCM authentication failed: wrong token, wrong URL or altered data.
		return undefined;
	}
}
