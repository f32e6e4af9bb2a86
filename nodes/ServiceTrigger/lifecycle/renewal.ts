/**
 * Self-healing after a token rotation no process can recover from: the stored signing secret is
 * sealed under an earlier access token and no n8n process holds it (n8n restarted between the
 * rotation and the next delivery). A production delivery that finds this state registers a new
 * endpoint for the same URL with the current token (lifecycle.ts `registerEndpoint`, as activation
 * does), stores its secret sealed, then deletes the old endpoint. At most once an hour per trigger
 * and URL: the attempt time is kept in static data (n8n saves it, since the node answers the
 * delivery itself before the execution starts) and in this process. The delivery itself cannot be
 * verified: it is refused (401) and starts one execution whose trigger step fails with what
 * happened, so the execution list (and an error workflow) shows it beside the log line.
 */
import type { INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';

import { getServiceSettings } from '../../shared/transport/serviceRequest';
import type { ServiceSettings } from '../../shared/transport/settings';
import { BoundedMemory } from '../boundedMemory';
import { accessToken, registerEndpoint, removeEndpoint, removeEndpointsAt, webhookUrl } from './lifecycle';
import { storedEndpoints, storeEndpoint } from './staticData';
import { heldSecrets, storeSealed } from '../verify/heldSecrets';
import { unsealSecret } from '../verify/secretSeal';

export const RENEWAL_INTERVAL_MS = 60 * 60 * 1000;

/** Renewal attempts in this process, by trigger and URL (also when n8n could not save the static data). */
export const renewalAttempts = new BoundedMemory<true>(1000, RENEWAL_INTERVAL_MS);

const MARK = '__serviceTriggerEndpointRenewal';

/** What the execution started by the renewing delivery says; no token, no secret. */
export interface EndpointRenewal {
	notice: 'service_trigger_endpoint_renewed' | 'service_trigger_endpoint_renewal_failed';
	webhookUrl: string;
	attemptedAt: string;
	oldEndpointId: string | null;
	newEndpointId: string | null;
	/** Whether the Service confirmed the old endpoint gone (false: it may still exist). */
	oldEndpointDeleted: boolean;
	/** Why the new endpoint could not be registered. */
	problem?: string;
}

/** Whether an attempt at `lastAttempt` (ISO, from static data) leaves room for one at `nowMs`. Pure. */
export function renewalDue(lastAttempt: string | undefined, nowMs: number): boolean {
	const last = lastAttempt === undefined ? Number.NaN : Date.parse(lastAttempt);
	// A time ahead of this clock by more than the interval is another clock's error: it blocks nothing.
	return Number.isNaN(last) || nowMs - last >= RENEWAL_INTERVAL_MS || last - nowMs > RENEWAL_INTERVAL_MS;
}

/**
 * Renews the production endpoint when its stored secret opens neither with the current access
 * token nor from this process's memory, and no attempt was made within the hour. Returns what was
 * done, or undefined when nothing was attempted (another state, or too soon).
 */
export async function renewEndpoint(this: IWebhookFunctions, trigger: string): Promise<EndpointRenewal | undefined> {
	if (this.getMode() === 'manual') return undefined;
	const url = webhookUrl.call(this);
	const staticData = this.getWorkflowStaticData('node');
	const due = () => {
		const stored = storedEndpoints(staticData)[url];
		const now = Date.now();
		return stored !== undefined && renewalAttempts.get(`${trigger}\u0000${url}`, now) === undefined && renewalDue(stored.renewalAttemptedAt, now)
			? stored
			: undefined;
	};
	if (due() === undefined) return undefined;
	let settings: ServiceSettings;
	let token: string;
	try {
		settings = await getServiceSettings.call(this);
		token = await accessToken.call(this);
	} catch {
		// The credential cannot be read: the refusal's own log line says why.
		return undefined;
	}
	// Checked again after the reads, with no await before the attempt is recorded: of deliveries
	// arriving together in this process, one renews.
	const stored = due();
	if (stored === undefined || settings.webhookSigningSecret) return undefined;
	const nowMs = Date.now();
	if (unsealSecret(stored.sealedSecret, token, url) !== undefined || heldSecrets.get(stored.sealedSecret, nowMs) !== undefined) return undefined;
	renewalAttempts.set(`${trigger}\u0000${url}`, true, nowMs);
	const attemptedAt = new Date(nowMs).toISOString();
	// Counted whether or not the Service answers; the old entry stays until a new one is stored.
	storeEndpoint(staticData, url, { ...stored, renewalAttemptedAt: attemptedAt });

	const workflow = this.getWorkflow();
	const who = `Service Trigger "${this.getNode().name}" in workflow "${workflow.name ?? ''}" (${workflow.id ?? ''})`;
	const base = { webhookUrl: url, attemptedAt, oldEndpointId: stored.id ?? null };
	let created: { id?: string; secret: string };
	try {
		created = await registerEndpoint.call(this, url, settings.signingKeyEncoding);
	} catch (error) {
		const problem = (error as Error).message;
		this.logger.error(
			`${who}: the stored signing secret cannot be unsealed with the credential's current access token and no n8n process holds it (the token was changed and n8n restarted); registering a new endpoint for ${url} failed (${problem}). Deliveries stay refused; the next attempt comes with a delivery an hour after this one, or deactivate and activate the workflow.`,
			{ workflowId: workflow.id, node: this.getNode().name },
		);
		return { notice: 'service_trigger_endpoint_renewal_failed', ...base, newEndpointId: null, oldEndpointDeleted: false, problem };
	}
	// The new endpoint first, the old one after: should the Service fail in between, deliveries still come.
	storeSealed(staticData, url, { id: created.id, createdAt: attemptedAt, renewalAttemptedAt: attemptedAt }, created.secret, token, Date.now());
	let oldEndpointDeleted = false;
	if (stored.id !== undefined) oldEndpointDeleted = await removeEndpoint.call(this, stored.id);
	else await removeEndpointsAt.call(this, url, created.id);
	this.logger.warn(
		`${who}: the stored signing secret cannot be unsealed with the credential's current access token and no n8n process holds it (the token was changed and n8n restarted). Registered a new endpoint${created.id ? ` (${created.id})` : ''} for ${url} with the current token and ${oldEndpointDeleted ? 'deleted' : 'tried to delete'} the old one${stored.id ? ` (${stored.id})` : ''}. Alerts sent to the old endpoint cannot be verified and are lost; new alerts go to the new endpoint.`,
		{ workflowId: workflow.id, node: this.getNode().name },
	);
	return { notice: 'service_trigger_endpoint_renewed', ...base, newEndpointId: created.id ?? null, oldEndpointDeleted };
}

/** The one item of the execution the renewing delivery starts. */
export function renewalItem(renewal: EndpointRenewal): INodeExecutionData {
	return { json: { [MARK]: { ...renewal } } };
}

/** The renewal an execution was started to report, if it was (a delivery's item never has the mark). */
export function renewalIn(items: INodeExecutionData[]): EndpointRenewal | undefined {
	const marked = items.length === 1 ? items[0].json[MARK] : undefined;
	if (marked === null || typeof marked !== 'object' || Array.isArray(marked)) return undefined;
	const renewal = marked as Partial<EndpointRenewal>;
	return renewal.notice === 'service_trigger_endpoint_renewed' || renewal.notice === 'service_trigger_endpoint_renewal_failed'
		? (renewal as EndpointRenewal)
		: undefined;
}

/** The error the execution's trigger step fails with, in words for the execution list. */
export function renewalError(renewal: EndpointRenewal): { message: string; description: string } {
	const old = renewal.oldEndpointId ? `endpoint ${renewal.oldEndpointId}` : 'the old endpoint';
	const why = `At ${renewal.attemptedAt} a delivery to ${renewal.webhookUrl} could not be verified: the signing secret stored for ${old} is sealed under an earlier access token, and no n8n process held it (n8n restarted after the token was changed). The delivery was refused (401).`;
	if (renewal.notice === 'service_trigger_endpoint_renewal_failed') {
		return {
			message: 'The Service Trigger could not register a new endpoint after the access token changed',
			description: `${why} Registering a new endpoint with the current token failed: ${renewal.problem ?? ''}. Deliveries stay refused. The trigger tries again with a delivery that arrives an hour after this attempt or later; or deactivate and activate the workflow.`,
		};
	}
	const deleted = renewal.oldEndpointDeleted
		? `deleted ${old}`
		: `could not confirm that ${old} is deleted (remove it in the Service if it still exists: its deliveries are refused)`;
	return {
		message: 'The Service Trigger registered a new endpoint: the access token changed and no n8n process held the signing secret',
		description: `${why} The trigger registered ${renewal.newEndpointId ? `endpoint ${renewal.newEndpointId}` : 'a new endpoint'} for the same URL with the current token and ${deleted}. New alerts reach it. Alerts sent to the old endpoint could not be verified and are lost: check the Service for alerts since the token changed (docs/trigger.md, Renewal).`,
	};
}
