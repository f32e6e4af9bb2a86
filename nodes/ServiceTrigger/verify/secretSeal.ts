/**
 * Seals the one-time webhook signing secret before it goes into workflow static data, which n8n
 * stores unencrypted. n8n offers a node no way to write into its credential, so the key is derived
 * from a value the credential does protect: the access token. AES-256-GCM with a key from
 * HKDF-SHA256 (random salt per seal); the webhook URL is bound in as associated data so a sealed
 * value cannot be moved to another endpoint's entry. Pure: no n8n types.
 */
import { sealText, unsealText } from '../../shared/seal';

const INFO = 'n8n-nodes-service-reader/webhook-signing-secret/v1';

/** `s1.<salt>.<iv>.<tag>.<ciphertext>`, each part base64url (../../shared/seal.ts). */
export function sealSecret(secret: string, accessToken: string, boundTo: string): string {
	if (accessToken === '') throw new Error('Cannot seal the signing secret: the credential has no access token.');
	return sealText(secret, accessToken, boundTo, INFO);
}

/**
 * The secret, or undefined when `sealed` is not something this module sealed with this access
 * token for this URL (token changed, value edited or moved). Never throws.
 */
export function unsealSecret(sealed: unknown, accessToken: string, boundTo: string): string | undefined {
	return unsealText(sealed, accessToken, boundTo, INFO);
}
