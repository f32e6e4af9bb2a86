/**
 * Cursor paging of the Service's list and export routes. Pure: no n8n types, no HTTP; the caller
 * passes the function that fetches one page.
 *
 * Paging rule (spec section 4): while a further page exists the answer carries
 * X-Service-Next-Cursor; sending that value back (in the query parameter named in the credential,
 * README Assumptions) fetches the next page.
 */

export interface PagingOptions {
	/** Query parameter that carries the cursor back (credential: Cursor Parameter). */
	cursorParameter: string;
	/** Sent on every page when set (credential: Page Size Parameter + Page Size). */
	pageSize?: { parameter: string; size: number };
	/** Query sent on every page, e.g. format and window. */
	query?: Record<string, string>;
}

/** What to fetch: the 1-based page number, the cursor it is fetched with, and the full query. */
export interface PageRequest {
	page: number;
	/** Undefined for the first page. */
	cursor: string | undefined;
	qs: Record<string, string | number>;
}

export interface PageAnswer<T> {
	content: T;
	/** Value of X-Service-Next-Cursor; absent or empty on the last page. */
	nextCursor: string | undefined;
}

export interface Page<T> extends PageAnswer<T> {
	request: PageRequest;
}

/**
 * The Service handed back a cursor this listing was already fetched with. Following it would loop
 * for ever; it usually means the Service ignores the cursor parameter's name.
 */
export class RepeatedCursorError extends Error {
	constructor(
		readonly page: number,
		readonly cursor: string,
		readonly cursorParameter: string,
	) {
		super(
			`Page ${page} of the list answered with the cursor "${cursor}" that was already used, so paging would never end`,
		);
	}
}

/** The query of one page request. */
export function pageQuery(options: PagingOptions, cursor: string | undefined): Record<string, string | number> {
	const qs: Record<string, string | number> = { ...options.query };
	if (options.pageSize) qs[options.pageSize.parameter] = options.pageSize.size;
	if (cursor !== undefined) qs[options.cursorParameter] = cursor;
	return qs;
}

/**
 * Yields page after page, fetching each one only when the consumer asks for it: a consumer that
 * stops iterating (Limit reached) never causes a further request.
 */
export async function* cursorPages<T>(
	fetchPage: (request: PageRequest) => Promise<PageAnswer<T>>,
	options: PagingOptions,
): AsyncGenerator<Page<T>, void, undefined> {
	const usedCursors = new Set<string>();
	let cursor: string | undefined;
	for (let page = 1; ; page++) {
		const request: PageRequest = { page, cursor, qs: pageQuery(options, cursor) };
		const answer = await fetchPage(request);
		const next = answer.nextCursor === undefined || answer.nextCursor === '' ? undefined : answer.nextCursor;
		yield { ...answer, nextCursor: next, request };
		if (next === undefined) return;
		// Checked after yielding so the rows of this page are still counted by the consumer's error.
		if (usedCursors.has(next)) throw new RepeatedCursorError(page, next, options.cursorParameter);
		usedCursors.add(next);
		cursor = next;
	}
}
