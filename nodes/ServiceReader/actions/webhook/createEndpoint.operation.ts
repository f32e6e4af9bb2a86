import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { httpsUrlProblem } from '../../../shared/ids';
import { serviceRequest } from '../../../shared/transport/serviceRequest';
import { inputProblem } from '../common/itemInput';

const show = { resource: ['webhook'], operation: ['createEndpoint'] };

export const SECRET_NOTICE =
	'The signing secret is shown only this once: the Service will not show it again. Store it now, e.g. in the Service API credential under Advanced > Webhook Signing Secret, and remove this output from saved executions.';

export const description: INodeProperties[] = [
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
		{ method: 'POST', path: '/v1/reader/webhooks', body: { url: (url as string).trim() } },
		{ itemIndex },
	);
	return [{ json: { ...(answer.body as IDataObject), secret_notice: SECRET_NOTICE } }];
}
