/**
 * One webhook delivery: verify the signature on the raw bytes before anything else, then turn the
 * body into one item. Refusals get 401 with no reason; the reason goes to the n8n log only.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { hasSeenAlert, liveAlerts } from '../shared/redeliveryMemory';
import { unsealSecret } from '../shared/secretSeal';
import { readServiceEvent, shouldStartWorkflow } from '../shared/serviceEvents';
import type { ServiceSettings } from '../shared/settings';
import { readServiceSettings } from '../shared/settings';
import { decodeSigningSecret } from '../shared/signingSecret';
import { refusalWords, verifyServiceSignature } from '../shared/webhookSignature';
import { answeredAlerts, triggerKey } from './passedOn';
import { storedEndpoints } from './state';

const WEBHOOK_NAME = 'default';

export async function handleDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const req = this.getRequestObject();
	// n8n normally fills rawBody before calling the node; when it did not, read it now. The parsed
	// req.body is never used: re-serialised JSON would not be the bytes that were signed.
	if (!Buffer.isBuffer(req.rawBody) && typeof req.readRawBody === 'function') await req.readRawBody();
	const rawBody = Buffer.isBuffer(req.rawBody) ? req.rawBody : Buffer.alloc(0);

	const credentials = await this.getCredentials('serviceApi');
	const read = readServiceSettings(credentials);
	if (read.problem !== undefined) return answer.call(this, 401, `the Service API credential cannot be used: ${read.problem}`);
	const { settings } = read;
	const token = typeof credentials.accessToken === 'string' ? credentials.accessToken : '';
	const { keys, problem } = signingKeys.call(this, settings, token);
	if (keys.length === 0) return answer.call(this, 401, problem);

	const verdict = verifyServiceSignature({
		header: req.headers['service-signature'],
		rawBody,
		keys,
		signatureEncoding: settings.signatureEncoding,
		nowSeconds: Math.floor(Date.now() / 1000),
	});
	if (!verdict.ok) return answer.call(this, 401, refusalWords(verdict.reason));

	// From here on the body is the Service's own.
	const reading = readServiceEvent(rawBody);
	if ('problem' in reading) return answer.call(this, 400, `a correctly signed delivery could not be read: ${reading.problem}`);
	const { item } = reading;

	if (!shouldStartWorkflow(item.event_type, selectedEvents(this.getNodeParameter('events', [])))) {
		// Acknowledged (2xx) so the Service does not retry an event the user chose not to act on.
		return {};
	}

	if (this.getNodeParameter('ignoreRedeliveries', true) as boolean) {
		const trigger = triggerKey(this);
		// The process memory first: a lookup, where the stored memory has to be read line by line.
		if (
			answeredAlerts.has(trigger, item.alert_id, Date.now()) ||
			hasSeenAlert(liveAlerts(this.getWorkflowStaticData('node').seenAlerts, Date.now()), item.alert_id)
		) {
			this.logger.info(
				`Service Trigger: alert ${item.alert_id} (${item.event_type}) was already passed on; this redelivery starts nothing.`,
			);
			return {};
		}
		// n8n answers once it has stored the new execution: 2xx means the alert is passed on; 5xx
		// means nothing started and the Service will retry, which must then start the workflow.
		const res = this.getResponseObject();
		res.once('finish', () => {
			if (res.statusCode >= 200 && res.statusCode < 300) answeredAlerts.remember(trigger, item.alert_id, Date.now());
		});
	}

	// n8n answers (response mode "On Received") only after it has stored the execution, so a 2xx
	// never stands for a delivery that was lost. The execution remembers the alert_id (execute()).
	return { workflowData: [this.helpers.returnJsonArray([item as unknown as IDataObject])] };
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
): { keys: Buffer[]; problem: string } {
	if (settings.webhookSigningSecret) {
		try {
			return { keys: [decodeSigningSecret(settings.webhookSigningSecret, settings.secretEncoding)], problem: '' };
		} catch (error) {
			return { keys: [], problem: `the Webhook Signing Secret in the Service API credential cannot be used: ${(error as Error).message}` };
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
			problem:
				'no webhook endpoint is registered for this trigger (activate the workflow again, or set Webhook Signing Secret in the credential for an endpoint created outside n8n)',
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
			keys.push(decodeSigningSecret(secret, settings.secretEncoding));
		} catch {
			// Checked when the endpoint was created; only a later change of Secret Encoding gets here.
		}
	}
	const problem =
		sealedForOtherToken > 0
			? 'the stored signing secret cannot be unsealed with the credential\'s current access token (was the token changed?); deactivate and activate the workflow to register a new endpoint'
			: 'the stored signing secret cannot be decoded with the credential\'s Secret Encoding setting';
	return { keys, problem };
}

/** Answers without starting the workflow; the reason goes to the n8n log, never to the sender. */
function answer(this: IWebhookFunctions, status: 400 | 401, reason: string): IWebhookResponseData {
	this.logger.warn(`Service Trigger refused a webhook delivery (${status}): ${reason}`, {
		workflowId: this.getWorkflow().id,
		node: this.getNode().name,
	});
	this.getResponseObject().status(status).send(status === 401 ? 'Unauthorized' : 'Bad Request');
	return { noWebhookResponse: true };
}
