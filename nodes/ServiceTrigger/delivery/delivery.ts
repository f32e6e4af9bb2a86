/**
 * One webhook delivery, as a checklist: read the raw body, get the verdict on it (verify/verdict.ts),
 * read the event, filter by Events, claim the alert against redeliveries, pass it on. Refusals get
 * 401 with no reason; the reason goes to the n8n log only.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { TokenRedactors } from '../../shared/redaction';
import { readServiceEvent, shouldStartWorkflow } from './events';
import { processMemory, rememberedAlertKey, triggerKey } from './redelivery';
import { renewalItem, renewEndpoint } from '../lifecycle/renewal';
import { refusalRunItem, refusalRuns } from './refusalRun';
import { testRefusalItem } from './testRefusal';
import { refusalLog, refusalWords } from '../verify/refusalLog';
import { resealRetries } from '../verify/heldSecrets';
import { triggerKeys } from '../verify/triggerKeys';
import { deliveryVerdict } from '../verify/verdict';

export async function handleDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const req = this.getRequestObject();
	const trigger = triggerKey(this);
	// 1. The exact bytes received, read now if n8n did not; never req.body, re-serialised JSON is not what was signed.
	if (!Buffer.isBuffer(req.rawBody) && typeof req.readRawBody === 'function') await req.readRawBody();
	const rawBody = Buffer.isBuffer(req.rawBody) ? req.rawBody : Buffer.alloc(0);

	// 2. The verdict: the header alone first, then the keys (remembered, or read from the credential).
	const delivery = { header: req.headers['service-signature'], rawBody, clock: Date.now };
	const keys = triggerKeys(this, trigger);
	const verdict = await deliveryVerdict(delivery, keys);
	if (!verdict.ok) {
		// 2b. Sealed under an earlier token and held by no process: renew the endpoint (renewal.ts), at most
		// once an hour. The node answers first, so n8n saves the new endpoint; the execution reports it.
		const renewal = verdict.reason === 'token_changed' ? await renewEndpoint.call(this, trigger) : undefined;
		if (renewal !== undefined) {
			this.getResponseObject().status(401).send('Unauthorized');
			return { noWebhookResponse: true, workflowData: [[renewalItem(renewal)]] };
		}
		const words = refusalWords(verdict.reason, verdict.detail);
		// The editor, listening for a test event, is shown a refusal that only a setting caused (testRefusal.ts).
		if (this.getMode() === 'manual') {
			const shown = await testRefusalItem(delivery, keys, verdict.reason, words, verdict.detail);
			const answered = answer.call(this, trigger, 401, words, verdict.reason);
			return shown === undefined ? answered : { ...answered, workflowData: [[{ json: shown }]] };
		}
		// Signed deliveries refused in a row start one failing execution, so the execution list says alerts are lost (refusalRun.ts).
		const run = refusalRuns.refused(trigger, verdict.reason, words, Date.now(), verdict.detail);
		const answered = answer.call(this, trigger, 401, words, verdict.reason);
		return run === undefined ? answered : { ...answered, workflowData: [[refusalRunItem(run)]] };
	}
	refusalRuns.accepted(trigger);

	// 3. From here on the body is the Service's own.
	const reading = readServiceEvent(rawBody);
	if ('problem' in reading) return answer.call(this, trigger, 400, `a correctly signed delivery could not be read: ${reading.problem}`, 'unreadable');
	const { item, eventType, alertId } = reading;
	// Kept as sent up to 64 characters, else as its SHA-256 (redelivery.ts): an alert_id has no length bound.
	const alertKey = rememberedAlertKey(reading.alertKey);

	// 4. Events.
	if (!shouldStartWorkflow(eventType, selectedEvents(this.getNodeParameter('events', [])))) {
		// Acknowledged (2xx) so the Service does not retry an event the user chose not to act on.
		return {};
	}

	// 4b. The access token was rotated and this delivery sealed the secret again. n8n saves what a
	// delivery writes only when it starts no execution: so this one starts none, and the Service's retry
	// (verified with the same secret) does; at most once an hour per trigger, should n8n lose the save.
	if (keys.resealed && resealRetries.get(trigger, Date.now()) === undefined) {
		resealRetries.set(trigger, true, Date.now());
		this.logger.info(`Service Trigger: alert ${await named(keys, { alert_id: alertId, event_type: eventType })} is asked again (503) so that n8n saves the signing secret sealed under the new access token.`);
		this.getResponseObject().status(503).setHeader('Retry-After', '60').send('Service Unavailable');
		return { noWebhookResponse: true };
	}

	// 5. Redeliveries: a copy of an alert this process is answering, or answered 2xx, starts nothing.
	if (this.getNodeParameter('ignoreRedeliveries', true) as boolean) {
		const state = processMemory.claim(trigger, alertKey, Date.now());
		if (state === 'answered') {
			this.logger.info(
				`Service Trigger: alert ${await named(keys, { alert_id: alertId, event_type: eventType })} was already passed on; this redelivery starts nothing.`,
			);
			return {};
		}
		if (state === 'in-flight') {
			// Not 2xx: if the first copy's execution cannot be stored, this alert must still come again.
			this.logger.info(
				`Service Trigger: alert ${await named(keys, { alert_id: alertId, event_type: eventType })} arrived again while its first copy is being answered; asked the Service to retry.`,
			);
			this.getResponseObject().status(409).setHeader('Retry-After', '60').send('Conflict');
			return { noWebhookResponse: true };
		}
		// n8n answers once it has stored the execution: 2xx means passed on; anything else, or a
		// connection that closes first, releases the claim so that the Service's retry starts it.
		const res = this.getResponseObject();
		res.once('finish', () => processMemory.settle(trigger, alertKey, res.statusCode >= 200 && res.statusCode < 300, Date.now()));
		res.once('close', () => processMemory.settle(trigger, alertKey, false, Date.now()));
	}

	// 6. Passed on. n8n answers (response mode "On Received") only after it has stored the execution,
	// so a 2xx never stands for a delivery that was lost; the execution's first step records the alert_id.
	// The item is stored by n8n: a Service echoing the access token in a delivery must not put it there.
	// Cleared of the token read with the keys (at most a minute ago): no credential read per delivery.
	const { redactValue } = await keys.redactors();
	return { workflowData: [this.helpers.returnJsonArray([redactValue(item) as IDataObject])] };
}

/** "<alert_id> (<event_type>)" for a log line: the Service's text, shown without the access token. */
async function named(keys: { redactors(): Promise<TokenRedactors> }, item: { alert_id: unknown; event_type: unknown }): Promise<string> {
	const { redact } = await keys.redactors();
	return redact(`${String(item.alert_id)} (${String(item.event_type)})`);
}

/** The Events parameter as a list; an expression may give a comma-separated string instead. */
function selectedEvents(value: unknown): string[] {
	const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
	return list.filter((entry): entry is string => typeof entry === 'string').map((entry) => entry.trim()).filter((entry) => entry !== '');
}

/**
 * Answers without starting the workflow. The reason goes to the n8n log, never to the sender, at
 * most once a minute per trigger and reason (with the count refused meanwhile); a changed access
 * token is an error an operator must act on.
 */
function answer(this: IWebhookFunctions, trigger: string, status: 400 | 401, reason: string, reasonKey: string): IWebhookResponseData {
	const { log, suppressed } = refusalLog.note(`${trigger}\u0000${reasonKey}`, Date.now());
	if (log) {
		const more = suppressed > 0 ? ` (${suppressed} more refused for this reason in the last minute)` : '';
		const workflow = this.getWorkflow();
		// Named in the line itself: n8n's default log output does not show the metadata.
		const line = `Service Trigger refused a webhook delivery (${status}) for workflow "${workflow.name ?? ''}" (${workflow.id ?? ''}), node "${this.getNode().name}": ${reason}${more}`;
		const meta = { workflowId: workflow.id, node: this.getNode().name };
		if (reasonKey === 'token_changed') this.logger.error(line, meta);
		else this.logger.warn(line, meta);
	}
	this.getResponseObject().status(status).send(status === 401 ? 'Unauthorized' : 'Bad Request');
	return { noWebhookResponse: true };
}
