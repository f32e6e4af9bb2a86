import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { listExport } from '../common/listExport';
import type { ListExportSpec } from '../common/listOptions';
import { listExportDescription } from '../common/listOptions';

const spec: ListExportSpec = {
	resource: 'expiry',
	listing: 'expiries',
	label: 'expiries export',
	csv: true,
	window: true,
};

export const description: INodeProperties[] = listExportDescription(spec);

/** GET /v1/reader/exports/expiries: shares, invitations, requests and review dates ending within 30, 60 or 90 days. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	return await listExport.call(this, spec, itemIndex);
}
