import { headerValue } from '../../shared/transport/answer';
import type { ServiceCall, ServiceContext } from '../../shared/transport/serviceRequest';
import { serviceRequest } from '../../shared/transport/serviceRequest';
import type { ExportSpec } from './description';
import type { PageAnswer, PageRequest } from './paging';
import type { ExportRun } from './parameters';

const NEXT_CURSOR_HEADER = 'x-service-next-cursor';

/** The route of a list export. */
export function exportPath(spec: ExportSpec): string {
	return `/v1/reader/exports/${spec.listing}`;
}

/**
 * The page fetch of an export's route, for `cursorPages`: one GET per page with the page's query,
 * the answer handed over as `response` asks, and the next cursor read from X-Service-Next-Cursor.
 * Also used by the company picker, one page per list search. `onRequest` learns which page is on
 * its way, so a failure can name it.
 */
export function pageFetcher<T>(
	this: ServiceContext,
	run: Pick<ExportRun, 'spec' | 'settings' | 'itemIndex'>,
	response: ServiceCall['response'],
	onRequest: (request: PageRequest) => void = () => undefined,
): (request: PageRequest) => Promise<PageAnswer<T>> {
	const { settings, itemIndex } = run;
	const path = exportPath(run.spec);
	return async (request) => {
		onRequest(request);
		const answer = await serviceRequest.call(this, { method: 'GET', path, qs: request.qs, response }, { itemIndex, settings });
		return { content: answer.body as T, nextCursor: headerValue(answer.headers, NEXT_CURSOR_HEADER) };
	};
}
