import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { withAdded } from '../../../shared/addedFields';
import { serviceRequest } from '../../../shared/transport/serviceRequest';
import { httpsUrlProblem, normalisedUrl, pathSegmentProblem } from '../../../shared/validation';
import { readCreatedEndpoint } from '../../../shared/webhookEndpoint';
import { inputProblem } from '../../helpers/itemInput';

const show = { resource: ['webhook'], operation: ['createEndpoint'] };

export const SECRET_NOTICE =
	'The signing secret is shown only this once: the Service will not show it again. Store it now, e.g. in the Service API credential under Advanced Settings > Webhook Signing Secret, and remove this output from saved executions.';

export const description: INodeProperties[] = [
	{
		displayName:
			'The output holds the endpoint\'s one-time signing secret, and saved executions keep it. To keep it out of the execution log, set this workflow\'s Save Successful Production Executions to Do Not Save.',
		name: 'secretNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://hooks.buyer.example/service',
		description: 'The https address the Service posts events to (https only)',
		displayOptions: { show },
	},
	{
		displayName: 'Signing Secret Field',
		name: 'signingField',
		type: 'string',
		default: '',
		placeholder: 'endpoint.signing.secret',
		description: "Where the Service's answer holds the signing secret (a dotted path), when the node cannot tell by the values: its error then names the fields that may be it",
		displayOptions: { show },
	},
];

/**
 * POST /v1/reader/webhooks with {"url"}: the endpoint with its one-time signing secret. This is the
 * only operation that outputs a secret, because creating the endpoint is asking for it.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const url = this.getNodeParameter('url', itemIndex, '') as unknown;
	const problem = httpsUrlProblem('URL', url);
	if (problem) throw inputProblem.call(this, itemIndex, problem, 'The Service accepts webhook endpoints on https only; nothing was sent.');

	const answer = await serviceRequest.call(
		this,
		{ method: 'POST', path: '/v1/reader/webhooks', body: { url: normalisedUrl(url as string) }, names: 'webhook' },
		{ itemIndex },
	);
	const secretField = this.getNodeParameter('signingField', itemIndex, '') as string;
	const created = readCreatedEndpoint(answer.body, secretField);
	if (!created.secret) {
		const body = answer.body;
		const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
		// Nothing left behind: an endpoint nobody can verify deliveries of is deleted again where its id is known.
		const removed = created.id !== undefined && (await removeEndpoint.call(this, created.id, itemIndex));
		const cleanup = removed
			? `The endpoint (${created.id}) was deleted again`
			: `Delete the endpoint${created.id ? ` ${created.id}` : ''} in the Service (it could not be deleted over the API)`;
		// Two fields that may be the secret: named, never one picked (the wrong one would refuse every delivery).
		if (created.secretFields !== undefined) {
			throw new NodeApiError(this.getNode(), { fields: created.secretFields } as JsonObject, {
				message: `The Service's answer has ${created.secretFields.length} fields that may be the signing secret (${created.secretFields.join(', ')})`,
				description: `Nothing tells which one it is. ${cleanup}; set Signing Secret Field to the one that is the secret, and create it again.`,
				itemIndex,
			});
		}
		throw new NodeApiError(this.getNode(), { fields } as JsonObject, {
			message: 'The Service created the endpoint but returned no signing secret',
			description: `Its answer had ${fields.length ? `the fields ${fields.join(', ')}` : 'no fields'}, none holding the secret at any depth${secretField.trim() ? ` (Signing Secret Field: ${secretField.trim()})` : ''}; the secret is shown only once, and without it no delivery to ${(url as string).trim()} can be verified. ${cleanup}; check that the access token belongs to a reader admin, and create it again.`,
			itemIndex,
		});
	}
	// The answer whole; where the Service words them otherwise, the id and secret also under the README's names.
	const said = answer.body as IDataObject;
	const named: IDataObject = {};
	if (said.id === undefined && created.id !== undefined) named.id = created.id;
	if (said.secret !== created.secret) named.secret = created.secret;
	// Beside the Service's fields, never instead: a name it used itself goes under `_reader` (addedFields.ts).
	return [{ json: withAdded(said, { ...named, secret_notice: SECRET_NOTICE }) as IDataObject }];
}

/** DELETE /v1/reader/webhooks/{id} (not in the spec: 404 and 405 mean it cannot be done). Whether it was deleted. */
async function removeEndpoint(this: IExecuteFunctions, id: string, itemIndex: number): Promise<boolean> {
	if (pathSegmentProblem('The webhook endpoint id', id)) return false;
	try {
		const answer = await serviceRequest.call(
			this,
			{ method: 'DELETE', path: `/v1/reader/webhooks/${encodeURIComponent(id)}` },
			{ itemIndex, allowStatuses: [404, 405], maxAttempts: 2 },
		);
		return answer.statusCode < 300;
	} catch {
		return false;
	}
}
