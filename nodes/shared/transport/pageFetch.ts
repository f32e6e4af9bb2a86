import { NodeOperationError } from 'n8n-workflow';

import { listFromBody } from '../answerShape';
import { pageFailed } from '../pageErrors';
import type { PageAnswer, PageRequest, PagingOptions } from '../paging';
import { cursorPages, Digests, LineDigests, PageCapError, rowDigest } from '../paging';
import { headerValue } from './answer';
import type { ServiceCall, ServiceContext } from './serviceRequest';
import { serviceRequest } from './serviceRequest';
import type { ServiceSettings } from './settings';

const NEXT_CURSOR_HEADER = 'x-service-next-cursor';

/** How the credential pages an export (Cursor Parameter, Page Size, Max Pages), with `query` sent on every page. */
export function exportPaging(settings: ServiceSettings, query: Record<string, string>): PagingOptions {
	return { cursorParameter: settings.cursorParameter, cursorHeader: settings.cursorHeader, pageSize: settings.pageSize, query, maxPages: settings.maxPages };
}

/** The route of a list export, e.g. `portfolio`. */
export function exportPath(listing: string): string {
	return `/v1/reader/exports/${listing}`;
}

/**
 * The page fetch of an export's route, for `cursorPages`: one GET per page with the page's query,
 * the answer handed over as `response` asks, and the next cursor read from X-Service-Next-Cursor.
 * Used by the Reader's exports, its company picker (one page per list search) and the trigger's
 * Add Company Details, in any context that may call the Service. `onRequest` learns which page is
 * on its way, so a failure can name it.
 */
export function pageFetcher<T>(
	this: ServiceContext,
	listing: string,
	run: { settings: ServiceSettings; itemIndex?: number },
	response: ServiceCall['response'],
	onRequest: (request: PageRequest) => void = () => undefined,
): (request: PageRequest) => Promise<PageAnswer<T>> {
	const { settings, itemIndex } = run;
	const path = exportPath(listing);
	// The first page's header row, left out of the rows of later pages that repeat it.
	const csv: { header?: Buffer } = {};
	return async (request) => {
		onRequest(request);
		const headers = cursorHeaders(settings, request.cursor);
		const answer = await serviceRequest.call(this, { method: 'GET', path, qs: request.qs, headers, response, names: 'export' }, { itemIndex, settings });
		// Rows as digests, to stop at a page that repeats them (paging.ts); a stream is read by its consumer only.
		const rows = response === 'buffer' && Buffer.isBuffer(answer.body) ? csvLineDigests(answer.body, request.page, csv) : response === 'json' ? jsonRowDigests(answer.body) : undefined;
		return { content: answer.body as T, nextCursor: headerValue(answer.headers, NEXT_CURSOR_HEADER), rows, contentType: headerValue(answer.headers, 'content-type') };
	};
}

/** The header carrying the cursor back, under Send Cursor As Header; none for the first page or the query. */
export function cursorHeaders(settings: ServiceSettings, cursor: string | undefined): Record<string, string> | undefined {
	if (settings.cursorHeader === undefined || cursor === undefined) return undefined;
	for (let i = 0; i < cursor.length; i++) {
		const code = cursor.charCodeAt(i);
		if ((code < 0x20 && code !== 0x09) || code === 0x7f || code > 0xff) {
			throw new Error(`The Service's next-page cursor holds characters a header cannot carry, so it cannot be sent in the header "${settings.cursorHeader}": set Send Cursor As to Query Parameter under Advanced Settings in the Service API credential`);
		}
	}
	return { [settings.cursorHeader]: cursor };
}

/** The digest of each line of a CSV page read whole (paging.ts LineDigests). */
export function csvLineDigests(bytes: Buffer, page: number, csv: { header?: Buffer }): Buffer {
	const lines = new LineDigests(page, csv);
	lines.push(bytes);
	return lines.end();
}

/** The digest of each entry of a JSON list page (the key name helps find the list), or undefined when the answer is not a list. */
export function jsonRowDigests(body: unknown, keyName?: string): Buffer | undefined {
	let list: unknown[];
	try {
		list = listFromBody(body, keyName);
	} catch {
		return undefined;
	}
	const digests = new Digests();
	for (const entry of list) digests.add(rowDigest(JSON.stringify(entry) ?? 'undefined'));
	return digests.packed();
}

/** A JSON list route read whole (the event catalogue), and how its failures are named. */
export interface ListRoute {
	path: string;
	/** As errors name it, e.g. "event catalogue". */
	label: string;
	/** The field that names an entry, for finding the list in an answer (answerShape.ts). */
	keyName: string;
	/** Pages read at most, below Max Pages: a list this short by nature is not followed for ever on a Service's endless cursors. */
	maxPages: number;
}

/** GET /v1/reader/webhooks/catalogue: the event types, `event_type` naming each. */
export const CATALOGUE: ListRoute = { path: '/v1/reader/webhooks/catalogue', label: 'event catalogue', keyName: 'event_type', maxPages: 100 };
/** GET /v1/reader/webhooks: the reader's endpoints (not in the spec; docs/service-choices.md). */
export const ENDPOINT_LISTING: ListRoute = { path: '/v1/reader/webhooks', label: 'webhook endpoint listing', keyName: 'id', maxPages: 1000 };

/**
 * Every entry of a JSON list route, page after page while X-Service-Next-Cursor is sent (the spec's
 * paging rule applies to any list), under the credential's Cursor Parameter, Page Size and Max Pages as
 * exports are. A page that fails is an error naming the page (pageErrors.ts), never a short list.
 */
export async function wholeList(this: ServiceContext, route: ListRoute, run: ListRun): Promise<unknown[]> {
	const pages = (await listPages.call(this, route, run)) ?? [];
	return pages.flatMap((body) => listFromBody(body, route.keyName));
}

export interface ListRun {
	settings: ServiceSettings;
	itemIndex?: number;
	maxAttempts?: number;
	/** Told of each page read, by number. */
	onPage?: (page: number) => void;
	/** Statuses of the first page meaning the Service offers no such list (the endpoint listing: 404, 405). */
	notOffered?: number[];
}

/** The body of every page of a JSON list route, as `wholeList` reads them; undefined when the first page answers a `notOffered` status. */
export async function listPages(this: ServiceContext, route: ListRoute, run: ListRun): Promise<unknown[] | undefined> {
	const { settings, itemIndex, maxAttempts, onPage, notOffered = [] } = run;
	const bodies: unknown[] = [];
	let entries = 0;
	let offered = true;
	let current: PageRequest | undefined;
	const fetchPage = async (request: PageRequest): Promise<PageAnswer<unknown>> => {
		current = request;
		const allowStatuses = request.page === 1 ? notOffered : [];
		const headers = cursorHeaders(settings, request.cursor);
		const answer = await serviceRequest.call(this, { method: 'GET', path: route.path, qs: request.qs, headers }, { itemIndex, settings, maxAttempts, allowStatuses });
		if (answer.statusCode >= 300) {
			offered = false;
			return { content: undefined, nextCursor: undefined };
		}
		return { content: answer.body, nextCursor: headerValue(answer.headers, NEXT_CURSOR_HEADER), rows: jsonRowDigests(answer.body, route.keyName) };
	};
	const paging = exportPaging(settings, {});
	const ownCap = route.maxPages < (paging.maxPages ?? Infinity);
	try {
		for await (const page of cursorPages(fetchPage, { ...paging, maxPages: Math.min(route.maxPages, paging.maxPages ?? Infinity) })) {
			if (!offered) return undefined;
			bodies.push(page.content);
			entries += entriesIn(page.content, route.keyName);
			onPage?.(page.request.page);
		}
	} catch (error) {
		if (ownCap && error instanceof PageCapError) throw routeCapped.call(this, route, itemIndex);
		throw pageFailed.call(this, error, { spec: { label: route.label }, itemIndex }, current, entries);
	}
	return bodies;
}

function routeCapped(this: ServiceContext, route: ListRoute, itemIndex: number | undefined): NodeOperationError {
	return new NodeOperationError(this.getNode(), `The ${route.label} did not end after ${route.maxPages} pages, the most read of it`, {
		itemIndex,
		description: `The Service still sent a next-page cursor on page ${route.maxPages}, so nothing was passed on: a ${route.label} is not this long. A Service that ignores the cursor hands out new ones for the same page: check Cursor Parameter and Send Cursor As under Advanced Settings in the Service API credential.`,
	});
}

/** How many entries a page holds, for the words of a later page's failure; 0 for a shape that is not a list. */
function entriesIn(body: unknown, keyName: string): number {
	try {
		return listFromBody(body, keyName).length;
	} catch {
		return 0;
	}
}
