import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ServiceSettings } from '../../shared/transport/settings';
import type { ExpiryWindow } from '../../shared/expiryWindow';
import { inputProblem } from '../helpers/itemInput';
import type { ExportSpec } from './description';
import type { PagingOptions } from '../../shared/paging';

/** What the parameters of a list operation say, checked. */
export interface ExportParameters {
	format: 'csv' | 'json';
	output: 'items' | 'file';
	binaryPropertyName: string;
	/** Undefined when Return All is on. */
	limit: number | undefined;
	stripFormulaGuard: boolean;
	query: Record<string, string>;
	/** Expiries: the window asked for, in days; checked against the rows. */
	window?: number;
}

/** One export for one input item: which export, what its parameters ask for, and how to page it. */
export interface ExportRun {
	spec: ExportSpec;
	parameters: ExportParameters;
	paging: PagingOptions;
	settings: ServiceSettings;
	itemIndex: number;
	/** Expiries with a window: what the rows are checked against. */
	window?: ExpiryWindow;
}

/** Reads and checks the parameters before any request, naming the item and the field on a problem. */
export function readExportParameters(this: IExecuteFunctions, spec: ExportSpec, itemIndex: number): ExportParameters {
	const problem = (field: string, given: unknown, what: string) =>
		inputProblem.call(this, itemIndex, `${field} is not usable: ${what}`, `The item has ${field} ${JSON.stringify(given)}. ${what}`);

	const query: Record<string, string> = {};
	let format: ExportParameters['format'] = 'json';
	let output: ExportParameters['output'] = 'items';
	let binaryPropertyName = 'data';
	let stripFormulaGuard = false;
	let windowDays: number | undefined;

	if (spec.csv) {
		const givenFormat = this.getNodeParameter('format', itemIndex, 'csv');
		if (givenFormat !== 'csv' && givenFormat !== 'json') {
			throw problem('Format', givenFormat, 'Choose CSV or JSON (an expression must give "csv" or "json").');
		}
		format = givenFormat;
		// The route's own default format is not shown in the spec, so it is always sent.
		query.format = format;
	}
	if (format === 'csv') {
		const givenOutput = this.getNodeParameter('output', itemIndex, 'items');
		if (givenOutput !== 'items' && givenOutput !== 'file') {
			throw problem('Output', givenOutput, 'Choose Items or File (an expression must give "items" or "file").');
		}
		output = givenOutput;
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		stripFormulaGuard = options.stripFormulaGuard === true;
	}
	if (output === 'file') {
		const givenName = this.getNodeParameter('binaryPropertyName', itemIndex, 'data');
		if (typeof givenName !== 'string' || givenName.trim() === '') {
			throw problem(
				'Put Output File in Field',
				givenName,
				'Enter the name of the binary field to put the CSV file in, for example "data".',
			);
		}
		binaryPropertyName = givenName.trim();
	}
	if (spec.window) {
		const window = String(this.getNodeParameter('window', itemIndex, 'all'));
		if (!['all', '30', '60', '90'].includes(window)) {
			throw problem('Window', window, 'Choose All Windows or 30, 60 or 90 days.');
		}
		// All windows: the parameter is left out (docs/service-choices.md).
		if (window !== 'all') {
			query.window = window;
			windowDays = Number(window);
		}
	}

	const returnAll = this.getNodeParameter('returnAll', itemIndex, false);
	let limit: number | undefined;
	if (returnAll !== true) {
		const givenLimit = this.getNodeParameter('limit', itemIndex, 50);
		if (typeof givenLimit !== 'number' || !Number.isInteger(givenLimit) || givenLimit < 1) {
			throw problem('Limit', givenLimit, 'Enter a whole number of 1 or more, or switch on Return All.');
		}
		limit = givenLimit;
	}

	return { format, output, binaryPropertyName, limit, stripFormulaGuard, query, window: windowDays };
}
