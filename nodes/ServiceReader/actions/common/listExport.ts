import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CsvPageFilter, parseCsvRows } from '../../../shared/csv';
import { listFromBody } from '../../../shared/listBody';
import type { Page, PageAnswer, PageRequest, PagingOptions } from '../../../shared/paging';
import { cursorPages, PageCapError, RepeatedCursorError } from '../../../shared/paging';
import type { ServiceSettings } from '../../../shared/settings';
import { getServiceSettings, headerValue, serviceRequest } from '../../../shared/transport/serviceRequest';
import type { ListExportSpec } from './listOptions';

const NEXT_CURSOR_HEADER = 'x-service-next-cursor';

/** A response body stream; typed structurally because node:stream may not be imported (n8n Cloud rule). */
type Readable = Exclude<Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0], Buffer>;

interface ListParameters {
	format: 'csv' | 'json';
	output: 'items' | 'file';
	binaryPropertyName: string;
	/** Undefined when Return All is on. */
	limit: number | undefined;
	stripFormulaGuard: boolean;
	query: Record<string, string>;
}

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
		query: parameters.query,
		maxPages: settings.maxPages,
	};
	if (parameters.format === 'csv' && parameters.output === 'file') {
		return [await exportFile.call(this, spec, parameters, paging, settings, itemIndex)];
	}
	return await exportItems.call(this, spec, parameters, paging, settings, itemIndex);
}

/** Reads and checks the parameters before any request, naming the item and the field on a problem. */
function readListParameters(this: IExecuteFunctions, spec: ListExportSpec, itemIndex: number): ListParameters {
	const problem = (field: string, given: unknown, what: string) =>
		new NodeOperationError(this.getNode(), `${field} of item ${itemIndex} is not usable: ${what}`, {
			itemIndex,
			description: `Item ${itemIndex} has ${field} ${JSON.stringify(given)}. ${what}`,
		});

	const query: Record<string, string> = {};
	let format: ListParameters['format'] = 'json';
	let output: ListParameters['output'] = 'items';
	let binaryPropertyName = 'data';
	let stripFormulaGuard = false;

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
		// All windows: the parameter is left out (README, Assumptions).
		if (window !== 'all') query.window = window;
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

	return { format, output, binaryPropertyName, limit, stripFormulaGuard, query };
}

/**
 * Rows as items, page by page, stopping (without fetching another page) once Limit is reached.
 * With Return All every page is needed anyway, so the next page is asked for while this one is
 * parsed: the Service's answer time then overlaps the parsing (bench/, README Performance).
 */
async function exportItems(
	this: IExecuteFunctions,
	spec: ListExportSpec,
	parameters: ListParameters,
	paging: PagingOptions,
	settings: ServiceSettings,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const { format, limit } = parameters;
	const items: INodeExecutionData[] = [];
	// The page whose fetch is under way; a page being parsed is named by its own request.
	let current: PageRequest | undefined;
	const fetchPage = async (request: PageRequest): Promise<PageAnswer<unknown>> => {
		current = request;
		const answer = await serviceRequest.call(
			this,
			{
				method: 'GET',
				path: `/v1/reader/exports/${spec.listing}`,
				qs: request.qs,
				response: format === 'csv' ? 'buffer' : 'json',
			},
			{ itemIndex, settings },
		);
		return { content: answer.body, nextCursor: headerValue(answer.headers, NEXT_CURSOR_HEADER) };
	};

	try {
		for await (const page of cursorPages(fetchPage, paging, { prefetch: limit === undefined })) {
			let rows: unknown[];
			try {
				rows =
					format === 'csv'
						? parseCsvRows(settings.redactBytes(page.content as Buffer), { stripFormulaGuard: parameters.stripFormulaGuard })
						: listFromBody(page.content);
			} catch (error) {
				throw pageFailed.call(this, error, spec, page.request, items.length, itemIndex);
			}
			for (const row of rows) {
				if (limit !== undefined && items.length >= limit) break;
				items.push({ json: asJson(row) });
			}
			if (limit !== undefined && items.length >= limit) break;
		}
	} catch (error) {
		throw pageFailed.call(this, error, spec, current, items.length, itemIndex);
	}
	return items;
}

/**
 * One CSV file built from every page: the header row once, the rows of each page appended as
 * they arrive. The pages are streamed into n8n's binary data, so memory stays flat however long
 * the export is; if a page fails, the stream fails and no file is stored.
 */
async function exportFile(
	this: IExecuteFunctions,
	spec: ListExportSpec,
	parameters: ListParameters,
	paging: PagingOptions,
	settings: ServiceSettings,
	itemIndex: number,
): Promise<INodeExecutionData> {
	const { limit, stripFormulaGuard } = parameters;
	let rows = 0;
	let pages = 0;
	let current: PageRequest | undefined;
	const fetchPage = async (request: PageRequest): Promise<PageAnswer<Readable>> => {
		current = request;
		const answer = await serviceRequest.call(
			this,
			{ method: 'GET', path: `/v1/reader/exports/${spec.listing}`, qs: request.qs, response: 'stream' },
			{ itemIndex, settings },
		);
		return { content: answer.body as Readable, nextCursor: headerValue(answer.headers, NEXT_CURSOR_HEADER) };
	};
	// The page being streamed into the file; undefined while the next one is awaited.
	let working: PageRequest | undefined;
	const fail = (error: unknown) => pageFailed.call(this, error, spec, working ?? current, rows, itemIndex);

	// With Return All, the next page is asked for as soon as this one's headers are in, so its
	// answer time overlaps the streaming of this one (bench/, README Performance).
	const pageIterator = cursorPages(fetchPage, paging, {
		prefetch: limit === undefined,
		discard: (body) => closeBody(body),
	});
	let first: IteratorResult<Page<Readable>, void>;
	try {
		// The first page is fetched here: its stream supplies the Readable class for the file.
		first = await pageIterator.next();
	} catch (error) {
		throw fail(error);
	}
	if (first.done) throw fail(new Error('The Service answered without a page'));

	async function* csvChunks(firstPage: Page<Readable>): AsyncGenerator<Buffer> {
		let firstHeader: string | undefined;
		try {
			for (let page: Page<Readable> | undefined = firstPage; page !== undefined; ) {
				working = page.request;
				const filter = new CsvPageFilter({
					dropHeader: page.request.page > 1,
					stripFormulaGuard,
					maxRows: limit === undefined ? undefined : limit - rows,
				});
				// ignoreBOM keeps a byte order mark in the text: the filter decides what to do with it.
				const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
				for await (const chunk of page.content) {
					const text = filter.push(decoder.decode(chunk as Buffer, { stream: true }));
					if (text) yield Buffer.from(text, 'utf8');
					// Leaving the loop closes the response: the rest of the page is not needed.
					if (filter.done) break;
				}
				const rest = filter.done ? '' : filter.end(decoder.decode());
				if (rest) yield Buffer.from(rest, 'utf8');
				if (firstHeader === undefined) {
					firstHeader = filter.header;
				} else if (filter.header !== firstHeader) {
					throw new Error(
						`Its header row "${filter.header}" differs from the first page's "${firstHeader}", so its rows cannot go in the same file`,
					);
				}
				rows += filter.rows;
				pages++;
				if (limit !== undefined && rows >= limit) break;
				working = undefined;
				const next = await pageIterator.next();
				page = next.done ? undefined : next.value;
			}
		} catch (error) {
			throw fail(error);
		} finally {
			// Ends the page generator when the file is complete early (Limit) or failed.
			await pageIterator.return();
		}
	}

	const fileName = `${spec.listing}.csv`;
	const stream = readableFrom(first.value.content, csvChunks(first.value));
	const binary = await this.helpers.prepareBinaryData(stream, fileName, 'text/csv');
	return {
		json: { export: spec.listing, fileName, pages, rows },
		binary: { [parameters.binaryPropertyName]: binary },
	};
}

/** Releases a response body nobody will read, so its connection does not linger. */
function closeBody(body: Readable): void {
	const stream = body as unknown as { destroy?: () => void; resume?: () => void };
	if (typeof stream.destroy === 'function') stream.destroy();
	else stream.resume?.();
}

/**
 * A Readable of `source`, made with the Readable class of a response stream: community nodes may
 * not import node:stream (n8n Cloud rule), and prepareBinaryData needs a real Readable so every
 * binary data mode (filesystem, database, memory) can consume it.
 */
function readableFrom(sample: Readable, source: AsyncIterable<Buffer>): Readable {
	const readableClass = sample.constructor as unknown as { from?: (iterable: AsyncIterable<Buffer>) => Readable };
	if (typeof readableClass.from !== 'function') {
		throw new Error('The response body is not a Node.js stream, so the CSV file cannot be streamed');
	}
	return readableClass.from(source);
}

function asJson(row: unknown): IDataObject {
	return row !== null && typeof row === 'object' && !Array.isArray(row) ? (row as IDataObject) : { value: row as string };
}

/**
 * The error for a page that failed: says which page, the cursor it was fetched with, and that the
 * rows of earlier pages were not passed on (the item fails as a whole).
 */
function pageFailed(
	this: IExecuteFunctions,
	error: unknown,
	spec: ListExportSpec,
	request: PageRequest | undefined,
	rowsBefore: number,
	itemIndex: number,
): Error {
	if (error instanceof NodeOperationError) return error;
	const page = error instanceof RepeatedCursorError ? error.page + 1 : (request?.page ?? 1);
	const cursor = error instanceof RepeatedCursorError ? error.cursor : request?.cursor;
	const fetched = cursor === undefined ? 'fetched without a cursor' : `fetched with cursor "${cursor}"`;
	const earlier =
		page === 1
			? 'Nothing was passed on.'
			: `The ${rowsBefore} row${rowsBefore === 1 ? '' : 's'} of the ${page - 1} earlier page${page === 2 ? '' : 's'} were not passed on, so an incomplete ${spec.label} never reaches the next node; run the node again to fetch it whole.`;
	const where = `Page ${page} of the ${spec.label} (${fetched}) failed. ${earlier}`;

	if (error instanceof RepeatedCursorError) {
		return new NodeOperationError(
			this.getNode(),
			`The Service sent back a cursor it had already given, on page ${error.page} of the ${spec.label}`,
			{
				itemIndex,
				description: `Page ${page} would be fetched with cursor "${cursor}" again, so paging would never end. ${earlier} The Service probably ignores the query parameter "${error.cursorParameter}": check Cursor Parameter under Advanced in the Service API credential.`,
			},
		);
	}
	if (error instanceof PageCapError) {
		const rows = `${rowsBefore} row${rowsBefore === 1 ? '' : 's'}`;
		return new NodeOperationError(
			this.getNode(),
			`The ${spec.label} did not end after ${error.maxPages} pages, the Max Pages limit`,
			{
				itemIndex,
				description: `The Service still sent a next-page cursor on page ${error.maxPages}. The ${rows} fetched were not passed on, so an incomplete ${spec.label} never reaches the next node. If the list really is that long, raise Max Pages under Advanced in the Service API credential.`,
			},
		);
	}
	if (error instanceof NodeApiError) {
		return new NodeApiError(
			this.getNode(),
			{ httpCode: error.httpCode, page, cursor: cursor ?? null } as JsonObject,
			{
				message: error.message,
				description: `${where} ${error.description ?? ''}`.trim(),
				httpCode: error.httpCode ?? undefined,
				itemIndex,
			},
		);
	}
	const reason = (error as Error)?.message ?? String(error);
	return new NodeApiError(this.getNode(), { page, cursor: cursor ?? null } as JsonObject, {
		message: `The Service's answer for page ${page} of the ${spec.label} could not be read`,
		description: `${where} ${reason}.`,
		itemIndex,
	});
}
