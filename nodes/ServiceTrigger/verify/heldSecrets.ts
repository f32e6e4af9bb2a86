/**
 * The signing secrets this n8n process created or unsealed, by their sealed form. A sealed secret
 * opens only with the access token it was sealed with, so after the token is rotated in the
 * credential the trigger could verify nothing; with the secret still held here it seals it again
 * under the new token instead, and no delivery is refused. Gone with the process (after a restart that
 * followed a rotation, renewal.ts registers a new endpoint). Pure: no n8n types, no clock.
 */
import { BoundedMemory } from '../boundedMemory';
import type { StoredEndpoint } from '../lifecycle/staticData';
import { storeEndpoint } from '../lifecycle/staticData';
import { sealSecret } from './secretSeal';

/** Renewed by every use: a secret unused for 30 days is dropped. */
export const HELD_SECRET_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

// At most 1000 endpoints' secrets, each kept 30 days from its last use.
export const heldSecrets = new BoundedMemory<string>(1000, HELD_SECRET_MAX_AGE_MS);

/** Stores the endpoint of `url` with its secret sealed under `token`, and holds the secret for the next token. */
export function storeSealed(
	staticData: Record<string, unknown>,
	url: string,
	entry: Omit<StoredEndpoint, 'sealedSecret'>,
	secret: string,
	token: string,
	nowMs: number,
): void {
	const sealedSecret = sealSecret(secret, token, url);
	heldSecrets.set(sealedSecret, secret, nowMs);
	storeEndpoint(staticData, url, { ...entry, sealedSecret });
}

/**
 * Triggers that recently asked the Service to send a delivery again so that n8n would save a secret
 * sealed again (delivery.ts): at most once an hour each, so a save n8n loses costs one retry, not a loop.
 */
export const resealRetries = new BoundedMemory<true>(1000, 60 * 60 * 1000);
