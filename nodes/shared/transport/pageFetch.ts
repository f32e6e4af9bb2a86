import { listFromBody } from '../answerShape';
import { pageFailed } from '../pageErrors';
import type { PageAnswer, PageRequest, PagingOptions } from '../paging';
import { cursorPages } from '../paging';
import { headerValue } from './answer';
import type { ServiceCall, ServiceContext } from './serviceRequest';
import { serviceRequest } from './serviceRequest';
import type { ServiceSettings } from './settings';

const NEXT_CURSOR_HEADER = 'x-service-next-cursor';

/** How the credential pages an export (Cursor Parameter, Page Size, Max Pages), with `query` sent on every page. */
export function exportPaging(settings: ServiceSettings, query: Record<string, string>): PagingOptions {
	return { cursorParameter: settings.cursorParameter, pageSize: settings.pageSize, query, maxPages: settings.maxPages };
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
	return async (request) => {
		onRequest(request);
		const answer = await serviceRequest.call(this, { method: 'GET', path, qs: request.qs, response, names: 'export' }, { itemIndex, settings });
		return { content: answer.body as T, nextCursor: headerValue(answer.headers, NEXT_CURSOR_HEADER) };
	};
}

/** A JSON list route read whole (the event catalogue), and how its failures are named. */
export interface ListRoute {
	path: string;
	/** As errors name it, e.g. "event catalogue". */
	label: string;
	/** The field that names an entry, for finding the list in an answer (answerShape.ts). */
	keyName: string;
}

/** GET /v1/reader/webhooks/catalogue: the event types, `event_type` naming each. */
export const CATALOGUE: ListRoute = { path: '/v1/reader/webhooks/catalogue', label: 'event catalogue', keyName: 'event_type' };

/**
 * Every entry of a JSON list route, page after page while X-Service-Next-Cursor is sent (the spec's
 * paging rule applies to any list), under the credential's Cursor Parameter, Page Size and Max Pages as
 * exports are. A page that fails is an error naming the page (pageErrors.ts), never a short list.
 */
export async function wholeList(
	this: ServiceContext,
	route: ListRoute,
	run: { settings: ServiceSettings; itemIndex?: number; maxAttempts?: number; onPage?: (page: number) => void },
): Promise<unknown[]> {
	const { settings, itemIndex, maxAttempts, onPage } = run;
	const entries: unknown[] = [];
	let current: PageRequest | undefined;
	const fetchPage = async (request: PageRequest): Promise<PageAnswer<unknown>> => {
		current = request;
		const answer = await serviceRequest.call(this, { method: 'GET', path: route.path, qs: request.qs }, { itemIndex, settings, maxAttempts });
		return { content: answer.body, nextCursor: headerValue(answer.headers, NEXT_CURSOR_HEADER) };
	};
	try {
		for await (const page of cursorPages(fetchPage, exportPaging(settings, {}))) {
			entries.push(...listFromBody(page.content, route.keyName));
			onPage?.(page.request.page);
		}
	} catch (error) {
		throw pageFailed.call(this, error, { spec: { label: route.label }, itemIndex }, current, entries.length);
	}
	return entries;
}
