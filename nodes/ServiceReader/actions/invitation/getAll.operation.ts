import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { listExport } from '../common/listExport';
import type { ListExportSpec } from '../common/listOptions';
import { listExportDescription } from '../common/listOptions';

const spec: ListExportSpec = {
	resource: 'invitation',
	listing: 'invitations',
	label: 'invitations export',
	csv: true,
};

export const description: INodeProperties[] = listExportDescription(spec);

/** GET /v1/reader/exports/invitations: the reader's invitations with their status. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	return await listExport.call(this, spec, itemIndex);
}
