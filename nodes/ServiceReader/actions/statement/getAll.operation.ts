import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { listExport } from '../common/listExport';
import type { ListExportSpec } from '../common/listOptions';
import { listExportDescription } from '../common/listOptions';

const spec: ListExportSpec = {
	resource: 'statement',
	listing: 'statements',
	label: 'statements export',
	csv: false,
};

export const description: INodeProperties[] = listExportDescription(spec);

/** GET /v1/reader/exports/statements: the statements of the reader's policy runs, a paged JSON list. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	return await listExport.call(this, spec, itemIndex);
}
