import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { PageRequest } from '../../shared/paging';
import { PageCapError, RepeatedCursorError } from '../../shared/paging';
import type { ExportRun } from './parameters';

/**
 * The error for a page that failed: says which page, the cursor it was fetched with, and that the
 * rows of earlier pages were not passed on (the item fails as a whole).
 */
export function pageFailed(
	this: IExecuteFunctions,
	error: unknown,
	run: ExportRun,
	request: PageRequest | undefined,
	rowsBefore: number,
): Error {
	const { spec, itemIndex } = run;
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
				description: `Page ${page} would be fetched with cursor "${cursor}" again, so paging would never end. ${earlier} The Service probably ignores the query parameter "${error.cursorParameter}": check Cursor Parameter under Advanced Settings in the Service API credential.`,
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
				description: `The Service still sent a next-page cursor on page ${error.maxPages}. The ${rows} fetched were not passed on, so an incomplete ${spec.label} never reaches the next node. If the list really is that long, raise Max Pages under Advanced Settings in the Service API credential.`,
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
