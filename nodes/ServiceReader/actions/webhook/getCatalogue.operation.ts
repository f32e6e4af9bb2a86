import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { listFromBody } from '../../../shared/answerShape';
import { serviceRequest } from '../../../shared/transport/serviceRequest';

export const description: INodeProperties[] = [];

/** GET /v1/reader/webhooks/catalogue: one item per event type, with its sample body. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const answer = await serviceRequest.call(
		this,
		{ method: 'GET', path: '/v1/reader/webhooks/catalogue' },
		{ itemIndex },
	);
	return listFromBody(answer.body, 'event_type').map((entry) => ({ json: entry as IDataObject }));
}
