import type { INodeProperties } from 'n8n-workflow';

/** What differs between the list and export operations; everything else is shared. */
export interface ExportSpec {
	/** Value of the Resource parameter, e.g. `portfolio`. */
	resource: string;
	/** Path segment under /v1/reader/exports/ and base name of the CSV file, e.g. `portfolio`. */
	listing: string;
	/** Words for errors, e.g. `portfolio export`. */
	label: string;
	/** The route serves CSV (and JSON with format=json); otherwise it is a JSON list only. */
	csv: boolean;
	/** Expiries only: the look-ahead window option. */
	window?: boolean;
}

export const OPERATION = 'getAll';

/** The parameters of one list operation, shown for its resource and the Get Many operation. */
export function exportDescription(spec: ExportSpec): INodeProperties[] {
	const show = { resource: [spec.resource], operation: [OPERATION] };
	const properties: INodeProperties[] = [];

	if (spec.window) {
		properties.push({
			displayName: 'Window',
			name: 'window',
			type: 'options',
			options: [
				{
					name: 'All Windows',
					value: 'all',
					description: 'Everything that ends within 30, 60 or 90 days',
				},
				{ name: 'Within 30 Days', value: '30' },
				{ name: 'Within 60 Days', value: '60' },
				{ name: 'Within 90 Days', value: '90' },
			],
			default: 'all',
			description: 'Which look-ahead window to list shares, invitations, requests and review dates for',
			displayOptions: { show },
		});
	}

	if (spec.csv) {
		properties.push(
			{
				displayName: 'Format',
				name: 'format',
				type: 'options',
				options: [
					{
						name: 'CSV',
						value: 'csv',
						description: 'The Service\'s CSV export: one item per row with text values, or one CSV file',
					},
					{
						name: 'JSON',
						value: 'json',
						description: 'The same rows as JSON, with numbers and booleans as the Service types them',
					},
				],
				default: 'csv',
				description: 'Which format to ask the Service for',
				displayOptions: { show },
			},
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				options: [
					{
						name: 'File',
						value: 'file',
						description: 'One CSV file holding every row, with the header row once',
					},
					{
						name: 'Items',
						value: 'items',
						description: 'One item per CSV row, keyed by the header row',
					},
				],
				default: 'items',
				description: 'Whether to output the rows as items or as one CSV file',
				displayOptions: { show: { ...show, format: ['csv'] } },
			},
			{
				displayName: 'Put Output File in Field',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
				required: true,
				hint: 'The name of the output binary field to put the file in',
				displayOptions: { show: { ...show, format: ['csv'], output: ['file'] } },
			},
		);
	}

	properties.push(
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			displayOptions: { show },
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { ...show, returnAll: [false] } },
		},
	);

	if (spec.csv) {
		properties.push({
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			displayOptions: { show: { ...show, format: ['csv'] } },
			options: [
				{
					displayName: 'Strip Formula Guard',
					name: 'stripFormulaGuard',
					type: 'boolean',
					default: false,
					description:
						'Whether to remove the quote (\') the Service puts before cells that would run as spreadsheet formulas; leave it off if anyone opens the rows in a spreadsheet',
				},
			],
		});
	}

	return properties;
}
