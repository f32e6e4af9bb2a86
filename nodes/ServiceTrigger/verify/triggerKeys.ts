/**
 * The trigger's keys, as verdict.ts asks for them: those read from its credential less than a
 * minute ago (recentKeys.ts), or else the credential's Webhook Signing Secret when set (endpoints
 * created outside n8n), else the secrets this node sealed into static data at activation, unsealed
 * with the access token. Nothing is read until the verdict asks. The access token's redactors come
 * with the keys (`redactors`): read with them, or remembered with them, so an accepted delivery costs
 * no credential read of its own.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { TokenRedactors } from '../../shared/redaction';
import type { ServiceSettings } from '../../shared/transport/settings';
import { credentialName, credentialSecrets, secretRedactors } from '../../shared/transport/credentialKind';
import { readServiceSettings } from '../../shared/transport/settings';
import { credentialRedactors } from '../../shared/transport/tokenKeptOut';
import type { StoredEndpoint } from '../lifecycle/staticData';
import { storedEndpoints } from '../lifecycle/staticData';
import { heldSecrets, storeSealed } from './heldSecrets';
import { recentKeys } from './recentKeys';
import { unsealSecret } from './secretSeal';
import { SecretReadings } from './secretReadings';
import type { HeldKeys, KeyProblem, KeySource } from './verdict';

const WEBHOOK_NAME = 'default';

type KeysRead = (HeldKeys & { resealed: Array<[url: string, secret: string]> }) | { problem: KeyProblem; detail?: string };

/** Secrets this process holds by their sealed form (heldSecrets.ts), on the caller's clock. */
interface Held {
	recall(sealed: string): string | undefined;
	keep(sealed: string, secret: string): void;
	now(): number;
}

/** `trigger` is the trigger's key (redelivery.ts `triggerKey`), under which its keys are remembered. */
export function triggerKeys(
	context: IWebhookFunctions,
	trigger: string,
): KeySource & { readonly resealed: boolean; redactors(): Promise<TokenRedactors> } {
	let stamp: string | undefined;
	let resealed = false;
	// The token's redactors of the keys the verdict last took: remembered, or read now.
	let redactors: TokenRedactors | undefined;
	// What the stored endpoints are, read once per delivery: their sealed secrets (a re-activation changes them).
	const stampNow = () =>
		(stamp ??= Object.values(storedEndpoints(context.getWorkflowStaticData('node')))
			.map((endpoint) => endpoint.sealedSecret)
			.join(' '));
	return {
		remembered: (nowMs) => {
			const held = recentKeys.fresh(trigger, stampNow(), nowMs);
			redactors = held?.redactors;
			return held;
		},
		read: async (clock) => {
			const keyStamp = stampNow();
			const credentials = await context.getCredentials(credentialName(context));
			// What the secret is sealed under: the Access Token, or the OAuth2 Client Secret (credentialKind.ts).
			const token = credentialSecrets(credentials).sealKey;
			redactors = secretRedactors(credentials);
			const settings = readServiceSettings(credentials);
			if (settings.problem !== undefined) return { problem: 'credential', detail: settings.problem };
			// getWebhookResourceUrl (newer n8n) names the URL actually served, test or production.
			const servedUrl = typeof context.getWebhookResourceUrl === 'function' ? context.getWebhookResourceUrl(WEBHOOK_NAME) : undefined;
			const staticData = context.getWorkflowStaticData('node');
			const held: Held = {
				recall: (sealed) => heldSecrets.get(sealed, clock()),
				keep: (sealed, secret) => void heldSecrets.set(sealed, secret, clock()),
				now: clock,
			};
			const read = signingKeys(settings.settings, token, storedEndpoints(staticData), servedUrl, held);
			if ('problem' in read) return read;
			const { resealed: toReseal, ...keys } = read;
			for (const [url, secret] of toReseal) resealed = reseal(context, staticData, url, secret, token, clock()) || resealed;
			// Kept whatever this delivery turns out to be: they are the credential's keys, not the sender's,
			// so a flood of forgeries reads the credential once a minute, not once each.
			recentKeys.remember(trigger, keyStamp, { ...keys, redactors }, clock());
			return keys;
		},
		/** The access token's redactors: those of the keys' credential read, else read now. */
		redactors: async () => redactors ?? (await credentialRedactors.call(context)),
		/** Whether this delivery sealed a secret again (delivery.ts then has n8n save it). */
		get resealed() {
			return resealed;
		},
	};
}

/** Seals a secret held by this process again, under the credential's current access token. */
function reseal(context: IWebhookFunctions, staticData: IDataObject, url: string, secret: string, token: string, nowMs: number): boolean {
	const stored = storedEndpoints(staticData)[url];
	if (stored === undefined) return false;
	storeSealed(staticData, url, stored, secret, token, nowMs);
	const workflow = context.getWorkflow();
	context.logger.info(
		`Service Trigger "${context.getNode().name}" in workflow "${workflow.name ?? ''}" (${workflow.id ?? ''}): the access token changed; the endpoint's signing secret, still held by this n8n process, is now sealed with the new token.`,
	);
	return true;
}

/**
 * HMAC keys to verify with: the credential's Webhook Signing Secret when set, else the sealed
 * secrets stored, preferring the entry for the URL the request arrived on (test and production
 * URLs have separate endpoints and secrets). A secret sealed with an earlier access token is taken
 * from what this process still holds, and returned to be sealed again. Pure: no n8n types.
 */
function signingKeys(
	settings: ServiceSettings,
	token: string,
	endpoints: Record<string, StoredEndpoint>,
	servedUrl: string | undefined,
	held: Held,
): KeysRead {
	const { signatureEncoding, signatureTimestampUnit: timestampUnit } = settings;
	const readings = new SecretReadings(settings.signingKeyEncoding, held.now);
	if (settings.webhookSigningSecret) {
		const problem = readings.add(settings.webhookSigningSecret);
		if (problem !== undefined && readings.empty) return { problem: 'secret', detail: problem };
		return { ...readings.held(), signatureEncoding, timestampUnit, source: 'credential', resealed: [] };
	}
	const candidates =
		servedUrl !== undefined && endpoints[servedUrl] ? [[servedUrl, endpoints[servedUrl]] as const] : Object.entries(endpoints);
	if (candidates.length === 0) return { problem: 'no_endpoint' };
	const resealed: Array<[string, string]> = [];
	let sealedForOtherToken = 0;
	for (const [url, stored] of candidates) {
		const unsealed = unsealSecret(stored.sealedSecret, token, url);
		const secret = unsealed ?? held.recall(stored.sealedSecret);
		if (secret === undefined) {
			sealedForOtherToken++;
			continue;
		}
		if (unsealed === undefined) resealed.push([url, secret]);
		else held.keep(stored.sealedSecret, secret);
		// Checked when the endpoint was created; only a later change of Secret Encoding fails here (its other readings stay alternatives).
		readings.add(secret);
	}
	if (!readings.empty) return { ...readings.held(), signatureEncoding, timestampUnit, source: 'stored', resealed };
	return { problem: sealedForOtherToken > 0 ? 'token_changed' : 'secret' };
}
