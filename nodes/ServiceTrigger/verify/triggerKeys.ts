/**
 * The trigger's keys, as verdict.ts asks for them: those read from its credential less than a
 * minute ago (recentKeys.ts), or else the credential's Webhook Signing Secret when set (endpoints
 * created outside n8n), else the secrets this node sealed into static data at activation, unsealed
 * with the access token. Nothing is read until the verdict asks.
 */
import type { IWebhookFunctions } from 'n8n-workflow';

import type { ServiceSettings } from '../../shared/transport/settings';
import { readServiceSettings } from '../../shared/transport/settings';
import type { StoredEndpoint } from '../staticData';
import { storedEndpoints } from '../staticData';
import { recentKeys } from './recentKeys';
import { unsealSecret } from './secretSeal';
import { decodeSigningSecret } from './signingSecret';
import type { HeldKeys, KeyProblem, KeySource } from './verdict';

const WEBHOOK_NAME = 'default';

type KeysRead = HeldKeys | { problem: KeyProblem; detail?: string };

/** `trigger` is the trigger's key (redelivery.ts `triggerKey`), under which its keys are remembered. */
export function triggerKeys(context: IWebhookFunctions, trigger: string): KeySource {
	let stamp: string | undefined;
	// What the stored endpoints are, read once per delivery: their sealed secrets (a re-activation changes them).
	const stampNow = () =>
		(stamp ??= Object.values(storedEndpoints(context.getWorkflowStaticData('node')))
			.map((endpoint) => endpoint.sealedSecret)
			.join(' '));
	return {
		remembered: (nowMs) => recentKeys.fresh(trigger, stampNow(), nowMs),
		read: async (clock) => {
			const keyStamp = stampNow();
			const credentials = await context.getCredentials('serviceApi');
			const settings = readServiceSettings(credentials);
			if (settings.problem !== undefined) return { problem: 'credential', detail: settings.problem };
			const token = typeof credentials.accessToken === 'string' ? credentials.accessToken : '';
			// getWebhookResourceUrl (newer n8n) names the URL actually served, test or production.
			const servedUrl = typeof context.getWebhookResourceUrl === 'function' ? context.getWebhookResourceUrl(WEBHOOK_NAME) : undefined;
			const read = signingKeys(settings.settings, token, storedEndpoints(context.getWorkflowStaticData('node')), servedUrl);
			// Kept whatever this delivery turns out to be: they are the credential's keys, not the sender's,
			// so a flood of forgeries reads the credential once a minute, not once each.
			if (!('problem' in read)) recentKeys.remember(trigger, keyStamp, read, clock());
			return read;
		},
	};
}

/**
 * HMAC keys to verify with: the credential's Webhook Signing Secret when set, else the sealed
 * secrets stored, preferring the entry for the URL the request arrived on (test and production
 * URLs have separate endpoints and secrets). Pure: no n8n types.
 */
function signingKeys(
	settings: ServiceSettings,
	token: string,
	endpoints: Record<string, StoredEndpoint>,
	servedUrl: string | undefined,
): KeysRead {
	const { signatureEncoding, signatureTimestampUnit: timestampUnit } = settings;
	if (settings.webhookSigningSecret) {
		try {
			const keys = [decodeSigningSecret(settings.webhookSigningSecret, settings.signingKeyEncoding)];
			return { keys, signatureEncoding, timestampUnit, source: 'credential' };
		} catch (error) {
			return { problem: 'secret', detail: (error as Error).message };
		}
	}
	const candidates =
		servedUrl !== undefined && endpoints[servedUrl] ? [[servedUrl, endpoints[servedUrl]] as const] : Object.entries(endpoints);
	if (candidates.length === 0) return { problem: 'no_endpoint' };
	const keys: Buffer[] = [];
	let sealedForOtherToken = 0;
	for (const [url, stored] of candidates) {
		const secret = unsealSecret(stored.sealedSecret, token, url);
		if (secret === undefined) {
			sealedForOtherToken++;
			continue;
		}
		try {
			keys.push(decodeSigningSecret(secret, settings.signingKeyEncoding));
		} catch {
			// Checked when the endpoint was created; only a later change of Secret Encoding gets here.
		}
	}
	if (keys.length > 0) return { keys, signatureEncoding, timestampUnit, source: 'stored' };
	return { problem: sealedForOtherToken > 0 ? 'token_changed' : 'secret' };
}
