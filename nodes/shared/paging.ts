/**
 * Cursor paging of the Service's list and export routes. Pure: no n8n types, no HTTP; the caller
 * passes the function that fetches one page.
 *
 * Paging rule (spec section 4): while a further page exists the answer carries
 * X-Service-Next-Cursor; sending that value back (in the query parameter named in the credential,
 * docs/service-choices.md) fetches the next page.
 */

import { createHash } from 'node:crypto';

export interface PagingOptions {
	/** Query parameter that carries the cursor back (credential: Cursor Parameter). */
	cursorParameter: string;
	/** Sent on every page when set (credential: Page Size Parameter + Page Size). */
	pageSize?: { parameter: string; size: number };
	/** Query sent on every page, e.g. format and window. */
	query?: Record<string, string>;
	/** A cursor chain longer than this fails instead of paging for ever (credential: Max Pages). */
	maxPages?: number;
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
	/** The page's Content-Type (its charset reads a CSV page: csvText.ts). */
	contentType?: string;
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

/** The Service kept handing out new cursors past the page cap. */
export class PageCapError extends Error {
	constructor(readonly maxPages: number) {
		super(`The list still had a further page after ${maxPages} pages, the Max Pages limit`);
	}
}

/** The query of one page request. */
export function pageQuery(options: PagingOptions, cursor: string | undefined): Record<string, string | number> {
	// Own properties: a parameter named `__proto__` is sent like any name.
	const entries: Array<[string, string | number]> = Object.entries(options.query ?? {});
	if (options.pageSize) entries.push([options.pageSize.parameter, options.pageSize.size]);
	if (cursor !== undefined) entries.push([options.cursorParameter, cursor]);
	return Object.fromEntries(entries);
}

export interface CursorPagesOptions<T> {
	/**
	 * Ask for the next page as soon as the current one has arrived, before the consumer works on
	 * it, so the Service's answer time overlaps the consumer's work (CSV parsing). Only for
	 * consumers that take every page (Return All): the next page is requested even if the
	 * consumer then stops. Off by default.
	 */
	prefetch?: boolean;
	/** Called with a prefetched page the consumer never took (it stopped or failed), e.g. to close a stream. */
	discard?: (content: T) => void;
	/** Resume at this page with the cursor an earlier reading was handed (default: the first page). */
	from?: { page: number; cursor: string };
}

/**
 * Yields page after page. Without `prefetch`, each page is fetched only when the consumer asks
 * for it: a consumer that stops iterating (Limit reached) never causes a further request. A failed
 * fetch is thrown when the consumer asks for that page, prefetched or not.
 */
export async function* cursorPages<T>(
	fetchPage: (request: PageRequest) => Promise<PageAnswer<T>>,
	options: PagingOptions,
	{ prefetch = false, discard, from }: CursorPagesOptions<T> = {},
): AsyncGenerator<Page<T>, void, undefined> {
	// Digests, not the cursors: memory stays at 32 bytes a page however long the Service's cursors are,
	// and Max Pages bounds the pages (100,000 pages: about 10 MB), while A, B, A is still caught.
	const usedCursors = new Set<string>();
	const digest = (cursor: string) => createHash('sha256').update(cursor).digest('base64');
	const start = (request: PageRequest): { request: PageRequest; pending: Promise<PageAnswer<T>> } => {
		const pending = fetchPage(request);
		// Awaited when the consumer asks for the page; until then a failure must not count as unhandled.
		pending.catch(() => undefined);
		return { request, pending };
	};
	const first = from?.page ?? 1;
	let next: ReturnType<typeof start> | undefined = start({ page: first, cursor: from?.cursor, qs: pageQuery(options, from?.cursor) });
	let prefetched: ReturnType<typeof start> | undefined;
	try {
		for (let page = first; next !== undefined; page++) {
			const { request, pending } = next;
			const answer: PageAnswer<T> = await pending;
			const cursor: string | undefined =
				answer.nextCursor === undefined || answer.nextCursor === '' ? undefined : answer.nextCursor;
			const seen = cursor === undefined ? undefined : digest(cursor);
			const repeated = seen !== undefined && usedCursors.has(seen);
			if (seen !== undefined) usedCursors.add(seen);
			const capped = cursor !== undefined && !repeated && options.maxPages !== undefined && page >= options.maxPages;
			const following: PageRequest | undefined =
				cursor === undefined || repeated || capped ? undefined : { page: page + 1, cursor, qs: pageQuery(options, cursor) };
			next = prefetched = following && prefetch ? start(following) : undefined;
			yield { ...answer, nextCursor: cursor, request };
			prefetched = undefined;
			// Checked after yielding so the rows of this page are still counted by the consumer's error.
			if (repeated && cursor !== undefined) throw new RepeatedCursorError(page, cursor, options.cursorParameter);
			if (capped) throw new PageCapError(page);
			if (following && !prefetch) next = start(following);
		}
	} finally {
		// The consumer stopped while a prefetched page was on its way: let the caller release it.
		if (prefetched && discard) prefetched.pending.then((answer) => discard(answer.content), () => undefined);
	}
}
