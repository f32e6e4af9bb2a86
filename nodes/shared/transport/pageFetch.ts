import type { PageAnswer, PageRequest, PagingOptions } from '../paging';
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
