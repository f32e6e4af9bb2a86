import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { CATALOGUE, wholeList } from '../../../shared/transport/pageFetch';
import { getServiceSettings } from '../../../shared/transport/serviceRequest';

export const description: INodeProperties[] = [];

/** GET /v1/reader/webhooks/catalogue, every page: one item per event type, with its sample body. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const settings = await getServiceSettings.call(this, itemIndex);
	const entries = await wholeList.call(this, CATALOGUE, { settings, itemIndex });
	return entries.map((entry) => ({ json: entry as IDataObject }));
}
