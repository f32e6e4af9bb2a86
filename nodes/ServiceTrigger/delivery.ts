/**
 * One webhook delivery, as a checklist: refuse what the header alone shows is bad, verify the
 * signature on the raw bytes, read the event, filter by Events, claim the alert against
 * redeliveries, pass it on. Refusals get 401 with no reason; the reason goes to the n8n log only.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { ServiceSettings } from '../shared/transport/settings';
import { readServiceSettings } from '../shared/transport/settings';
import { readServiceEvent, shouldStartWorkflow } from './events';
import { processMemory, triggerKey } from './redelivery';
import { storedEndpoints } from './staticData';
import type { KeySource } from './verify/recentKeys';
import { recentKeys } from './verify/recentKeys';
import { refusalLog } from './verify/refusalLog';
import { unsealSecret } from './verify/secretSeal';
import { decodeSigningSecret } from './verify/signingSecret';
import type { FreshSignatureHeader, SignatureEncoding, SignatureVerdict, TimestampUnitSetting } from './verify/webhookSignature';
import { matchSignature, readSignatureHeader, refusalWords, unitProblem } from './verify/webhookSignature';

const WEBHOOK_NAME = 'default';

export async function handleDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const req = this.getRequestObject();
	// 1. What the header alone shows is bad is refused before the body, the credential or any secret is read.
	const header = readSignatureHeader(req.headers['service-signature'], Math.floor(Date.now() / 1000));
	if ('problem' in header) return answer.call(this, 401, refusalWords(header.problem), header.problem);

	// 2. The signature, on the exact bytes received. n8n normally fills rawBody before calling the
	// node; when it did not, read it now. The parsed req.body is never used: re-serialised JSON
	// would not be the bytes that were signed.
	if (!Buffer.isBuffer(req.rawBody) && typeof req.readRawBody === 'function') await req.readRawBody();
	const rawBody = Buffer.isBuffer(req.rawBody) ? req.rawBody : Buffer.alloc(0);
	const refusal = await verifySignature.call(this, header, rawBody);
	if (refusal) return refusal;

	// 3. From here on the body is the Service's own.
	const reading = readServiceEvent(rawBody);
	if ('problem' in reading) return answer.call(this, 400, `a correctly signed delivery could not be read: ${reading.problem}`, 'unreadable');
	const { item } = reading;

	// 4. Events.
	if (!shouldStartWorkflow(item.event_type, selectedEvents(this.getNodeParameter('events', [])))) {
		// Acknowledged (2xx) so the Service does not retry an event the user chose not to act on.
		return {};
	}

	// 5. Redeliveries: a copy of an alert this process is answering, or answered 2xx, starts nothing.
	if (this.getNodeParameter('ignoreRedeliveries', true) as boolean) {
		const trigger = triggerKey(this);
		const state = processMemory.claim(trigger, item.alert_id, Date.now());
		if (state === 'answered') {
			this.logger.info(
				`Service Trigger: alert ${item.alert_id} (${item.event_type}) was already passed on; this redelivery starts nothing.`,
			);
			return {};
		}
		if (state === 'in-flight') {
			// Not 2xx: if the first copy's execution cannot be stored, this alert must still come again.
			this.logger.info(
				`Service Trigger: alert ${item.alert_id} (${item.event_type}) arrived again while its first copy is being answered; asked the Service to retry.`,
			);
			this.getResponseObject().status(409).setHeader('Retry-After', '60').send('Conflict');
			return { noWebhookResponse: true };
		}
		// n8n answers once it has stored the execution: 2xx means passed on; anything else, or a
		// connection that closes first, releases the claim so that the Service's retry starts it.
		const res = this.getResponseObject();
		res.once('finish', () => processMemory.settle(trigger, item.alert_id, res.statusCode >= 200 && res.statusCode < 300, Date.now()));
		res.once('close', () => processMemory.settle(trigger, item.alert_id, false, Date.now()));
	}

	// 6. Passed on. n8n answers (response mode "On Received") only after it has stored the execution,
	// so a 2xx never stands for a delivery that was lost; the execution's first step records the alert_id.
	return { workflowData: [this.helpers.returnJsonArray([item as unknown as IDataObject])] };
}

/** Step 2: undefined when the signature verifies, else the refusal already answered. */
async function verifySignature(
	this: IWebhookFunctions,
	header: FreshSignatureHeader,
	rawBody: Buffer,
): Promise<IWebhookResponseData | undefined> {
	const trigger = triggerKey(this);
	const stamp = keysStamp(this.getWorkflowStaticData('node'));
	// The timestamp was judged on arrival (step 1), not after the credential was read.
	const check = (keys: Buffer[], signatureEncoding: SignatureEncoding, unit: TimestampUnitSetting = 'auto'): SignatureVerdict => {
		const wrongUnit = unitProblem(header, unit);
		return wrongUnit ? { ok: false, reason: wrongUnit } : matchSignature(header, rawBody, keys, signatureEncoding);
	};
	const recent = recentKeys.fresh(trigger, stamp, Date.now());
	if (recent) {
		// Keys read from the credential a moment ago: no match is refused, and a match with keys
		// of this activation's stored endpoints is accepted, both without reading it again.
		const quick = check(recent.keys, recent.signatureEncoding, recent.timestampUnit);
		if (!quick.ok) return answer.call(this, 401, refusalWords(quick.reason), quick.reason);
		if (recent.source === 'stored') return undefined;
	}
	const credentials = await this.getCredentials('serviceApi');
	const read = readServiceSettings(credentials);
	if (read.problem !== undefined) return answer.call(this, 401, `the Service API credential cannot be used: ${read.problem}`, 'credential');
	const { settings } = read;
	const token = typeof credentials.accessToken === 'string' ? credentials.accessToken : '';
	const { keys, source, problem } = signingKeys.call(this, settings, token);
	if (keys.length === 0) return answer.call(this, 401, problem.words, problem.key);
	// Kept whatever this delivery turns out to be: they are the credential's keys, not the sender's,
	// so a flood of forgeries reads the credential once a minute, not once each.
	const { signatureEncoding, signatureTimestampUnit: timestampUnit } = settings;
	recentKeys.remember(trigger, stamp, { keys, signatureEncoding, timestampUnit, source }, Date.now());

	const verdict = check(keys, signatureEncoding, timestampUnit);
	if (!verdict.ok) return answer.call(this, 401, refusalWords(verdict.reason), verdict.reason);
	return undefined;
}

/** What the stored endpoints are: their sealed secrets (a re-activation changes them). */
function keysStamp(staticData: Record<string, unknown>): string {
	return Object.values(storedEndpoints(staticData))
		.map((endpoint) => endpoint.sealedSecret)
		.join(' ');
}

/** The Events parameter as a list; an expression may give a comma-separated string instead. */
function selectedEvents(value: unknown): string[] {
	const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
	return list.filter((entry): entry is string => typeof entry === 'string').map((entry) => entry.trim()).filter((entry) => entry !== '');
}

/**
 * HMAC keys to verify with: the credential's Webhook Signing Secret when set (endpoints created
 * outside n8n), else the sealed secrets this node stored, preferring the entry for the URL the
 * request arrived on (test and production URLs have separate endpoints and secrets).
 */
function signingKeys(
	this: IWebhookFunctions,
	settings: ServiceSettings,
	token: string,
): { keys: Buffer[]; source: KeySource; problem: { words: string; key: string } } {
	if (settings.webhookSigningSecret) {
		try {
			const keys = [decodeSigningSecret(settings.webhookSigningSecret, settings.signingKeyEncoding)];
			return { keys, source: 'credential', problem: { words: '', key: '' } };
		} catch (error) {
			return {
				keys: [],
				source: 'credential',
				problem: { words: `the Webhook Signing Secret in the Service API credential cannot be used: ${(error as Error).message}`, key: 'secret' },
			};
		}
	}
	const endpoints = storedEndpoints(this.getWorkflowStaticData('node'));
	// getWebhookResourceUrl (newer n8n) names the URL actually served, test or production.
	const servedUrl =
		typeof this.getWebhookResourceUrl === 'function' ? this.getWebhookResourceUrl(WEBHOOK_NAME) : undefined;
	const candidates =
		servedUrl !== undefined && endpoints[servedUrl] ? [[servedUrl, endpoints[servedUrl]] as const] : Object.entries(endpoints);
	if (candidates.length === 0) {
		return {
			keys: [],
			source: 'stored',
			problem: {
				words:
					'no webhook endpoint is registered for this trigger (activate the workflow again, or set Webhook Signing Secret in the credential for an endpoint created outside n8n)',
				key: 'no_endpoint',
			},
		};
	}
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
	const problem =
		sealedForOtherToken > 0
			? {
					words:
						'the stored signing secret cannot be unsealed with the credential\'s current access token (was the token changed?). Every delivery is refused until you deactivate and activate this workflow, which registers a new endpoint; the Service retries refused deliveries for 24 hours',
					key: 'token_changed',
				}
			: { words: 'the stored signing secret cannot be decoded with the credential\'s Secret Encoding setting', key: 'secret' };
	return { keys, source: 'stored', problem };
}

/**
 * Answers without starting the workflow. The reason goes to the n8n log, never to the sender, at
 * most once a minute per trigger and reason (with the count refused meanwhile); a changed access
 * token is an error an operator must act on.
 */
function answer(this: IWebhookFunctions, status: 400 | 401, reason: string, reasonKey: string): IWebhookResponseData {
	const { log, suppressed } = refusalLog.note(`${triggerKey(this)}\u0000${reasonKey}`, Date.now());
	if (log) {
		const more = suppressed > 0 ? ` (${suppressed} more refused for this reason in the last minute)` : '';
		const line = `Service Trigger refused a webhook delivery (${status}): ${reason}${more}`;
		const meta = { workflowId: this.getWorkflow().id, node: this.getNode().name };
		if (reasonKey === 'token_changed') this.logger.error(line, meta);
		else this.logger.warn(line, meta);
	}
	this.getResponseObject().status(status).send(status === 401 ? 'Unauthorized' : 'Bad Request');
	return { noWebhookResponse: true };
}
