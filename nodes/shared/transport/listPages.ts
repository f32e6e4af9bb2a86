import type { IExecuteFunctions } from 'n8n-workflow';

import type { PageAnswer, PageRequest } from './paging';
import type { ServiceCall } from './serviceRequest';
import { headerValue, serviceRequest } from './serviceRequest';
import type { ServiceSettings } from './settings';

const NEXT_CURSOR_HEADER = 'x-service-next-cursor';

/**
 * The page fetch of a paged route, for `cursorPages`: one GET per page with the page's query, the
 * answer handed over as `response` asks, and the next cursor read from X-Service-Next-Cursor.
 * `onRequest` learns which page is on its way, so a failure can name it.
 */
export function listPageFetcher<T>(
	this: IExecuteFunctions,
	path: string,
	response: ServiceCall['response'],
	settings: ServiceSettings,
	itemIndex: number,
	onRequest: (request: PageRequest) => void = () => undefined,
): (request: PageRequest) => Promise<PageAnswer<T>> {
	return async (request) => {
		onRequest(request);
		const answer = await serviceRequest.call(this, { method: 'GET', path, qs: request.qs, response }, { itemIndex, settings });
		return { content: answer.body as T, nextCursor: headerValue(answer.headers, NEXT_CURSOR_HEADER) };
	};
}
