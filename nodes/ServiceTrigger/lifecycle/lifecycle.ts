/**
 * Webhook lifecycle (n8n's webhookMethods): n8n calls checkExists on activation, create when it
 * answers false, and delete on deactivation, for the production URL and, while the editor listens
 * for a test event, for the test URL.
 */
import type { IHookFunctions, INode, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { ENDPOINT_LISTING, listPages } from '../../shared/transport/pageFetch';
import { credentialName, credentialSecrets } from '../../shared/transport/credentialKind';
import { getServiceSettings, serviceRequest } from '../../shared/transport/serviceRequest';
import { credentialRedactors } from '../../shared/transport/tokenKeptOut';
import { pathSegmentProblem } from '../../shared/validation';
import { isRecord } from '../../shared/answerShape';
import { endpointListed, endpointsAt, readCreatedEndpoint, webhookUrlProblem } from '../../shared/webhookEndpoint';
import { endpointsElsewhere, forgetEndpoint, storedEndpoints } from './staticData';
import { heldSecrets, storeSealed } from '../verify/heldSecrets';
import { unsealSecret } from '../verify/secretSeal';
import { secretKeys, SigningSecretError, type SecretEncodingSetting } from '../verify/signingSecret';

const WEBHOOK_NAME = 'default';
const ENDPOINTS_PATH = '/v1/reader/webhooks';

/** Activation's hooks, or a delivery that renews the endpoint (renewal.ts). */
export type LifecycleContext = IHookFunctions | IWebhookFunctions;

/**
 * An activation's failure as the editor shows it on every n8n line: n8n 1.x shows a NodeApiError's description
 * alone (its message, the setting to set, is lost), 2.x the message; a NodeOperationError's message shows on both.
 */
export function activationError(node: INode, error: unknown): unknown {
	if (!(error instanceof NodeApiError)) return error;
	return new NodeOperationError(node, error.message, { description: error.description ?? undefined });
}

/** In a delivery's context, always the production URL (renewal.ts renews production endpoints only). */
export function webhookUrl(this: LifecycleContext): string {
	return this.getNodeWebhookUrl(WEBHOOK_NAME) ?? '';
}

// n8n registers its test URL (editor listening, mode "manual") through the same methods as the production URL.
function isTestRegistration(this: LifecycleContext): boolean {
	return this.getMode() === 'manual';
}

export async function accessToken(this: LifecycleContext): Promise<string> {
	// What the signing secret is sealed under: the Access Token, or the OAuth2 Client Secret, stable while n8n renews its tokens.
	return credentialSecrets(await this.getCredentials(credentialName(this))).sealKey;
}

/**
 * True only when this node holds what it needs to verify deliveries to its URL: the endpoint's id
 * and a secret it can unseal with the current access token, and the Service (where it lists
 * endpoints) still has that endpoint.
 */
export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const settings = await getServiceSettings.call(this);
	// An endpoint created outside n8n: deliveries are verified with the credential's secret and
	// there is nothing for n8n to register (a second endpoint would deliver every event twice).
	if (settings.webhookSigningSecret) return true;

	const url = webhookUrl.call(this);
	const stored = storedEndpoints(this.getWorkflowStaticData('node'))[url];
	if (!stored?.id) return false;
	const token = await accessToken.call(this);
	if (unsealSecret(stored.sealedSecret, token, url) === undefined) {
		const held = heldSecrets.get(stored.sealedSecret, Date.now());
		if (held === undefined) {
			this.logger.warn(
				'Service Trigger: the stored webhook signing secret cannot be unsealed with the credential\'s current access token (was the token changed?); registering a new endpoint.',
			);
			return false;
		}
		// The token was rotated, but this process still holds the secret: the endpoint (and the
		// Service's retries to it) stays, its secret sealed again under the new token.
		storeSealed(this.getWorkflowStaticData('node'), url, stored, held, token, Date.now());
	}

	// Listing is not in the spec (docs/service-choices.md): 404/405 mean "cannot ask", so the stored state stands.
	const pages = await listPages.call(this, ENDPOINT_LISTING, { settings, notOffered: [404, 405] });
	if (pages === undefined) return true;
	// Every page read: absent only when no page lists it (a page whose shape is unknown cannot say).
	const id = stored.id;
	return !pages.every((body) => endpointListed(body, id, url) === 'absent');
}

/** Registers n8n's webhook URL and keeps the endpoint's id and its one-time secret, sealed. */
export async function create(this: IHookFunctions): Promise<boolean> {
	const url = webhookUrl.call(this);
	const problem = webhookUrlProblem(url);
	if (problem) {
		throw new NodeOperationError(this.getNode(), 'The Service accepts https webhook URLs only', {
			description: problem,
		});
	}
	const settings = await getServiceSettings.call(this);
	if (settings.webhookSigningSecret) return true;

	const staticData = this.getWorkflowStaticData('node');
	// Every endpoint for this URL is this trigger's (the URL is this workflow's own): one whose secret
	// is lost (token changed, static data lost, an earlier attempt that failed) can no longer be
	// verified, so it goes before a new one is made. Retried activations therefore never multiply them.
	const previous = storedEndpoints(staticData)[url];
	if (previous?.id) await removeEndpoint.call(this, previous.id);
	await removeEndpointsElsewhere.call(this, url);
	await removeEndpointsAt.call(this, url);

	const created = await registerEndpoint.call(this, url, settings.signingKeyEncoding);
	const entry = { id: created.id, createdAt: new Date().toISOString(), ...(isTestRegistration.call(this) ? { test: true } : {}) };
	storeSealed(staticData, url, entry, created.secret, await accessToken.call(this), Date.now());
	return true;
}

/**
 * POSTs `url` to the Service and hands back the new endpoint's id and its one-time secret, checked
 * to decode; an endpoint whose secret cannot be kept is deleted again before the error. Used by
 * activation (create) and by a delivery that renews the endpoint (renewal.ts).
 */
export async function registerEndpoint(
	this: LifecycleContext,
	url: string,
	signingKeyEncoding: SecretEncodingSetting,
): Promise<{ id?: string; secret: string }> {
	const answer = await serviceRequest.call(this, { method: 'POST', path: ENDPOINTS_PATH, body: { url }, names: 'webhook' });
	const created = readCreatedEndpoint(answer.body, String(this.getNodeParameter('options.signingField', '') ?? ''));
	// Nothing left behind: an endpoint whose secret cannot be kept is deleted before the error.
	const removeCreated = async () => (created.id ? await removeEndpoint.call(this, created.id) : await removeEndpointsAt.call(this, url));
	if (!created.secret) {
		await removeCreated();
		if (created.secretFields) {
			throw new NodeOperationError(this.getNode(), `The Service's answer has ${created.secretFields.length} fields that may be the signing secret (${created.secretFields.join(', ')})`, {
				description: 'Nothing tells which one it is, so the endpoint was removed again. Set Options > Signing Secret Field of this trigger to the one that is the secret, then activate the workflow again.',
			});
		}
		const fields = isRecord(answer.body) ? Object.keys(answer.body).join(', ') : typeof answer.body;
		throw new NodeOperationError(this.getNode(), 'The Service registered the webhook but returned no signing secret', {
			description: `The secret is shown only once, when the endpoint is created, and without it no delivery can be verified, so the endpoint was removed again. No field of its answer (${fields}) held a secret at any depth. Check that the access token belongs to a reader admin, then activate the workflow again.`,
		});
	}
	try {
		secretKeys(created.secret, signingKeyEncoding);
	} catch (error) {
		await removeCreated();
		// SigningSecretError messages never contain the secret; anything else gets no detail.
		const words = error instanceof SigningSecretError ? error.message : 'The secret could not be decoded.';
		throw new NodeOperationError(this.getNode(), 'The signing secret the Service returned cannot be decoded', {
			description: `${words} The endpoint was removed again.`,
		});
	}
	return { id: created.id, secret: created.secret };
}

/** Deletes the endpoint where its id is known and always forgets the stored state for this URL. */
export async function deleteEndpoint(this: IHookFunctions): Promise<boolean> {
	const url = webhookUrl.call(this);
	const staticData = this.getWorkflowStaticData('node');
	const stored = storedEndpoints(staticData)[url];
	try {
		if (stored?.id) await removeEndpoint.call(this, stored.id);
		await removeEndpointsElsewhere.call(this, url);
	} finally {
		forgetEndpoint(staticData, url);
	}
	return true;
}

/**
 * Deletes the endpoints this node registered under an earlier public URL of n8n (WEBHOOK_URL
 * changed): nothing reaches them any more, and left alone the Service would keep one per URL.
 */
async function removeEndpointsElsewhere(this: IHookFunctions, url: string): Promise<void> {
	const staticData = this.getWorkflowStaticData('node');
	for (const [oldUrl, endpoint] of endpointsElsewhere(staticData, url, isTestRegistration.call(this))) {
		this.logger.info(`Service Trigger: n8n's webhook URL is now ${url}; deleting the endpoint registered for the earlier URL ${oldUrl}.`);
		if (endpoint.id) await removeEndpoint.call(this, endpoint.id);
		else await removeEndpointsAt.call(this, oldUrl);
		forgetEndpoint(staticData, oldUrl);
	}
}

/**
 * Deletes every endpoint the Service lists at `url` but `keep` (a renewal's new one). The listing is not
 * in the spec: where the Service has none (404/405) or it cannot be read, only the stored endpoint is
 * known, and that is said.
 */
export async function removeEndpointsAt(this: LifecycleContext, url: string, keep?: string): Promise<void> {
	let ids: string[] | undefined;
	try {
		const pages = await listPages.call(this, ENDPOINT_LISTING, { settings: await getServiceSettings.call(this), notOffered: [404, 405], maxAttempts: 2 });
		// Every page's endpoints at this URL; a page of unknown shape leaves the listing unknown.
		const perPage = pages?.map((body) => endpointsAt(body, url));
		ids = perPage === undefined || perPage.length === 0 || perPage.some((found) => found === undefined) ? undefined : perPage.flatMap((found) => found!);
	} catch (error) {
		this.logger.warn(`Service Trigger: could not list the webhook endpoints at the Service (${(error as Error).message}).`);
	}
	if (ids === undefined) {
		this.logger.info(
			'Service Trigger: the Service does not list webhook endpoints, so an endpoint for this URL that n8n no longer knows (from lost workflow data) cannot be found; remove it in the Service if deliveries are refused.',
		);
		return;
	}
	for (const id of ids) if (id !== keep) await removeEndpoint.call(this, id);
}

/**
 * DELETE /v1/reader/webhooks/{id}. The spec does not show this route: 404 (already gone) and 405
 * (not supported) are fine, and no failure may block deactivation, so it only logs. True when the
 * endpoint is gone (deleted, or already gone).
 */
export async function removeEndpoint(this: LifecycleContext, serviceId: string): Promise<boolean> {
	// The id is the Service's text: the log line shows it without the access token (the request uses it whole).
	const { redact } = await credentialRedactors.call(this);
	const id = redact(serviceId);
	const problem = pathSegmentProblem('The webhook endpoint id', serviceId);
	if (problem) {
		this.logger.warn(`Service Trigger: not deleting the webhook endpoint at the Service: ${redact(problem)}`);
		return false;
	}
	try {
		const answer = await serviceRequest.call(
			this,
			{ method: 'DELETE', path: `${ENDPOINTS_PATH}/${encodeURIComponent(serviceId)}` },
			{ allowStatuses: [404, 405], maxAttempts: 2 },
		);
		if (answer.statusCode === 405) {
			this.logger.info(
				`Service Trigger: the Service does not delete webhook endpoints over the API; remove endpoint ${id} in the Service if it should stop.`,
			);
		}
		return answer.statusCode !== 405;
	} catch (error) {
		this.logger.warn(
			`Service Trigger: could not delete webhook endpoint ${id} at the Service (${(error as Error).message}); remove it in the Service if it still exists.`,
		);
		return false;
	}
}
