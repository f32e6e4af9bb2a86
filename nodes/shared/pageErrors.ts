import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { PageRequest } from './paging';
import { cursorSentWords, PageCapError, RepeatedCursorError, RepeatedPageError } from './paging';

/** Which export failed, and (the changes trigger) what became of the reading instead of "not passed on". */
export interface FailedExport {
	spec: { label: string };
	itemIndex?: number;
	/** Replaces the sentences about rows not passed on, e.g. "Nothing was emitted and the earlier state is kept". */
	outcome?: string;
}

/**
 * The error for a page that failed: says which page, the cursor it was fetched with, and that the
 * rows of earlier pages were not passed on (the item fails as a whole). Used by the Reader's exports
 * and the Service Changes Trigger.
 */
export function pageFailed(
	this: { getNode(): INode },
	error: unknown,
	run: FailedExport,
	request: PageRequest | undefined,
	rowsBefore: number,
): Error {
	// A page's error passes the loop's catch too: named once, not twice.
	if (error instanceof Error && namedPageErrors.has(error)) return error;
	const named = pageError.call(this, error, run, request, rowsBefore);
	namedPageErrors.add(named);
	return named;
}

const namedPageErrors = new WeakSet<Error>();

function pageError(
	this: { getNode(): INode },
	error: unknown,
	run: FailedExport,
	request: PageRequest | undefined,
	rowsBefore: number,
): Error {
	const { spec, itemIndex = 0, outcome } = run;
	if (error instanceof NodeOperationError) return error;
	const page = error instanceof RepeatedCursorError ? error.page + 1 : (request?.page ?? 1);
	const cursor = error instanceof RepeatedCursorError ? error.cursor : request?.cursor;
	const fetched = cursor === undefined ? 'fetched without a cursor' : `fetched with cursor "${cursor}"`;
	const earlier =
		outcome ??
		(page === 1
			? 'Nothing was passed on.'
			: `The ${rowsBefore} row${rowsBefore === 1 ? '' : 's'} of the ${page - 1} earlier page${page === 2 ? '' : 's'} were not passed on, so an incomplete ${spec.label} never reaches the next node; run the node again to fetch it whole.`);
	const where = `Page ${page} of the ${spec.label} (${fetched}) failed. ${earlier}`;

	if (error instanceof RepeatedPageError) {
		return new NodeOperationError(
			this.getNode(),
			`Page ${error.page} of the ${spec.label} repeated rows already read, so the Service did not read the cursor: check Send Cursor As`,
			{
				itemIndex,
				description: `${where} It held only rows an earlier page gave, though fetched with a new cursor: the Service answered the first page again. ${cursorSentWords(error.cursorParameter, error.cursorHeader)}`,
			},
		);
	}
	if (error instanceof RepeatedCursorError) {
		return new NodeOperationError(
			this.getNode(),
			`The Service sent back a cursor it had already given, on page ${error.page} of the ${spec.label}`,
			{
				itemIndex,
				description: `Page ${page} would be fetched with cursor "${cursor}" again, so paging would never end. ${earlier} The Service probably does not read the cursor where it was sent. ${cursorSentWords(error.cursorParameter, error.cursorHeader)}`,
			},
		);
	}
	if (error instanceof PageCapError) {
		const rows = `${rowsBefore} row${rowsBefore === 1 ? '' : 's'}`;
		const notPassed = outcome ?? `The ${rows} fetched were not passed on, so an incomplete ${spec.label} never reaches the next node.`;
		return new NodeOperationError(
			this.getNode(),
			`The ${spec.label} did not end after ${error.maxPages} pages, the Max Pages limit`,
			{
				itemIndex,
				description: `The Service still sent a next-page cursor on page ${error.maxPages}. ${notPassed} If the list really is that long, raise Max Pages under Advanced Settings in the Service API credential.`,
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
