import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { exportPaging } from '../../shared/transport/pageFetch';
import { getServiceSettings } from '../../shared/transport/serviceRequest';
import type { ExportSpec } from './description';
import { exportDescription } from './description';
import { exportFile } from './file';
import { exportItems } from './items';
import type { ExportRun } from './parameters';
import { readExportParameters } from './parameters';

/**
 * Runs one list or export operation for one input item: pages through the route and returns one
 * item per row, or (CSV, Output File) one item holding the CSV file. A page that fails fails the
 * whole item, so a partial export is never passed on as if it were complete.
 */
export async function runExport(
	this: IExecuteFunctions,
	spec: ExportSpec,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const parameters = readExportParameters.call(this, spec, itemIndex);
	const settings = await getServiceSettings.call(this, itemIndex);
	const run: ExportRun = {
		spec,
		parameters,
		// format=json and window are sent as Request Names and JSON Format Value say (the transport's requestNames.ts).
		paging: exportPaging(settings, parameters.query),
		settings,
		itemIndex,
		window:
			parameters.window === undefined
				? undefined
				: { days: parameters.window, parameter: settings.requestNames.get('export.window') ?? 'window', now: Date.now() },
	};
	if (parameters.format === 'csv' && parameters.output === 'file') {
		return [await exportFile.call(this, run)];
	}
	return await exportItems.call(this, run);
}

/** A Get Many operation of a list export: its parameters and its execute. */
export function exportOperation(spec: ExportSpec): {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]>;
} {
	return {
		description: exportDescription(spec),
		async execute(this: IExecuteFunctions, itemIndex: number) {
			return await runExport.call(this, spec, itemIndex);
		},
	};
}
