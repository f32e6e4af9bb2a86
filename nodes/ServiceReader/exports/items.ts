import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CsvPages } from '../../shared/csv';
import { eachPageRow } from '../../shared/exportRows';
import { pageFailed } from '../../shared/pageErrors';
import { pageFetcher } from '../../shared/transport/pageFetch';
import type { PageRequest } from '../../shared/paging';
import { cursorPages } from '../../shared/paging';
import type { ExportRun } from './parameters';
import type { WindowColumn } from '../../shared/expiryWindow';
import { outsideWindow, outsideWindowWords, windowColumn } from '../../shared/expiryWindow';

/**
 * Rows as items, page by page, stopping (without fetching another page) once Limit is reached.
 * With Return All the next page is asked for while this one is parsed.
 */
export async function exportItems(this: IExecuteFunctions, run: ExportRun): Promise<INodeExecutionData[]> {
	const { parameters, paging, settings } = run;
	const { format, limit } = parameters;
	const items: INodeExecutionData[] = [];
	// The page whose fetch is under way; a page being parsed is named by its own request.
	let current: PageRequest | undefined;
	const fetchPage = pageFetcher.call(this, run.spec.listing, run, format === 'csv' ? 'buffer' : 'json', (request) => {
		current = request;
	});

	// One reading per export: the delimiter and header row are found once, on the first page.
	const csv = new CsvPages({ delimiter: settings.csvDelimiter, headerRepeat: settings.csvHeaderRepeat, stripFormulaGuard: parameters.stripFormulaGuard });
	// Expiries with a window: found once, on the first row, then every row is held against it.
	let column: WindowColumn | undefined;
	const checkWindow = (row: unknown, index: number) => {
		if (run.window === undefined || row === null || typeof row !== 'object' || Array.isArray(row)) return;
		const fields = row as Record<string, unknown>;
		column ??= windowColumn(Object.keys(fields), fields);
		const why = column && outsideWindow(fields, column, run.window);
		if (why) {
			const words = outsideWindowWords(index, why, run.window);
			throw new NodeOperationError(this.getNode(), words.message, { description: words.description, itemIndex: run.itemIndex });
		}
	};
	try {
		for await (const page of cursorPages(fetchPage, paging, { prefetch: limit === undefined })) {
			const before = items.length;
			const take = (row: unknown) => {
				if (limit !== undefined && items.length >= limit) return false;
				checkWindow(row, items.length + 1);
				items.push({ json: asJson(row) });
				return limit === undefined || items.length < limit;
			};
			try {
				// CSV rows are read one at a time, up to Limit: no page of parsed rows is held (docs/token-and-limits.md).
				eachPageRow(page.content, format === 'csv' ? csv : undefined, settings, take, page.contentType);
			} catch (error) {
				throw pageFailed.call(this, error, run, page.request, before);
			}
			if (limit !== undefined && items.length >= limit) break;
		}
	} catch (error) {
		throw pageFailed.call(this, error, run, current, items.length);
	}
	return items;
}

function asJson(row: unknown): IDataObject {
	return row !== null && typeof row === 'object' && !Array.isArray(row) ? (row as IDataObject) : { value: row as string };
}
