import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { PagingOptions } from '../../shared/transport/paging';
import { getServiceSettings } from '../../shared/transport/serviceRequest';
import type { ListExportSpec } from './listDescriptions';
import { listExportDescription } from './listDescriptions';
import { exportFile } from './listFile';
import { exportItems } from './listItems';
import { readListParameters } from './listParameters';

/**
 * Runs one list or export operation for one input item: pages through the route and returns one
 * item per row, or (CSV, Output File) one item holding the CSV file. A page that fails fails the
 * whole item, so a partial export is never passed on as if it were complete.
 */
export async function listExport(
	this: IExecuteFunctions,
	spec: ListExportSpec,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const parameters = readListParameters.call(this, spec, itemIndex);
	const settings = await getServiceSettings.call(this, itemIndex);
	const paging: PagingOptions = {
		cursorParameter: settings.cursorParameter,
		pageSize: settings.pageSize,
		query: parameters.query.format === 'json' ? { ...parameters.query, format: settings.jsonFormat } : parameters.query,
		maxPages: settings.maxPages,
	};
	if (parameters.format === 'csv' && parameters.output === 'file') {
		return [await exportFile.call(this, spec, parameters, paging, settings, itemIndex)];
	}
	return await exportItems.call(this, spec, parameters, paging, settings, itemIndex);
}

/** A Get Many operation of a list export: its parameters and its execute. */
export function listOperation(spec: ListExportSpec): {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]>;
} {
	return {
		description: listExportDescription(spec),
		async execute(this: IExecuteFunctions, itemIndex: number) {
			return await listExport.call(this, spec, itemIndex);
		},
	};
}
