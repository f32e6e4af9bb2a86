/**
 * Files served from elsewhere: a download the Service answers with a redirect (a pre-signed URL on an
 * object store, as most APIs serve large files) is fetched from there without any credential. Each hop
 * is a plain `httpRequest` carrying only `Accept`, over https only, at most DOWNLOAD_MAX_HOPS hops,
 * within the first request's deadline. Only downloads follow: every other call refuses a redirect
 * (serviceRequest.ts). Where a hop goes is said by its host only: a pre-signed query holds a signature.
 */

import { headerValue } from './answer';
import { discardBody } from './body';
import { isTimeout } from './errors';
import { streamedRequest } from './requestOptions';
import type { ServiceAnswer, ServiceContext } from './types';
import { namedUrl } from './urlCheck';

/** Most redirects one download follows (docs/token-and-limits.md). */
export const DOWNLOAD_MAX_HOPS = 5;

const FOLLOWED_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Why a redirected download was not fetched, in words; never holds a hop's path or query. */
export interface DownloadRedirectProblem {
	message: string;
	description: string;
	status?: number;
	/** Set when a hop took longer than the Request Timeout. */
	timeout?: boolean;
}

const problem = (message: string, description: string, status?: number, timeout?: boolean): { problem: DownloadRedirectProblem } => ({
	problem: { message, description, status, timeout },
});

export interface DownloadHops {
	/** The address the Service's answer came from (a relative Location is read against it). */
	from: string;
	accept: string;
	deadline: { at: number; ms: number };
	/** Whether text holds the access token in any form (../redaction.ts). */
	holdsToken: (text: string) => boolean;
}

/** Whether this answer to a download is a redirect to follow (the statuses meaning "the file is there"). */
export function isFollowedRedirect(statusCode: number): boolean {
	return FOLLOWED_STATUSES.has(statusCode);
}

/**
 * The answer at the end of the Service's redirect, a 2xx whose body the caller reads as it asked
 * (Content-Type and Content-Disposition are the file host's); any other end is a problem in words.
 */
export async function followDownload(
	this: ServiceContext,
	first: ServiceAnswer<unknown>,
	hops: DownloadHops,
): Promise<{ answer: ServiceAnswer<unknown>; host: string } | { problem: DownloadRedirectProblem }> {
	let answer = first;
	let at = hops.from;
	const seen = new Set<string>([at]);
	for (let hop = 0; isFollowedRedirect(answer.statusCode); hop++) {
		discardBody(answer.body);
		const status = answer.statusCode;
		const named = namedUrl(headerValue(answer.headers, 'location') ?? '', at, hops.holdsToken);
		if ('refused' in named) return refusedLocation(named.refused, status);
		const next = named.url;
		next.hash = '';
		const host = next.host;
		if (next.protocol !== 'https:') {
			return problem(
				`The download was redirected (${status}) to ${next.protocol}//${host}, which is not https, so it was not followed`,
				'Downloads are fetched over https only, so the file was not downloaded. The Service (or its file host) should serve files over https.',
				status,
			);
		}
		if (seen.has(next.href)) {
			return problem(
				`The download was redirected in a loop (${status} back to ${host}), so it was given up`,
				`The redirects come back to an address already asked, so no file would ever arrive. This is a fault on the Service's side (or its file host's).`,
				status,
			);
		}
		if (hop >= DOWNLOAD_MAX_HOPS) {
			return problem(
				`The download was redirected more than ${DOWNLOAD_MAX_HOPS} times (last ${status} to ${host}), so it was given up`,
				`A download follows at most ${DOWNLOAD_MAX_HOPS} redirects, so the file was not downloaded. This is a fault on the Service's side (or its file host's).`,
				status,
			);
		}
		seen.add(next.href);
		const hopped = await hopTo.call(this, next.href, host, hops);
		if ('problem' in hopped) return hopped;
		answer = hopped;
		at = next.href;
	}
	const status = answer.statusCode;
	const host = new URL(at).host;
	if (status < 200 || status >= 300) {
		discardBody(answer.body);
		return problem(
			`The file's host ${host}, where the Service redirected the download, answered ${status}`,
			`The Service sent the download on to ${host}, which did not hand over the file, so nothing was passed on. Run the node again (a pre-signed address may have expired); if it keeps failing, the fault is on the Service's side.`,
			status,
		);
	}
	return { answer, host };
}

/** Why a Location was not followed, in words that never repeat it. */
function refusedLocation(why: 'unreadable' | 'userinfo' | 'token', status: number): { problem: DownloadRedirectProblem } {
	if (why === 'unreadable') {
		return problem(
			`The download was redirected (${status}) without a usable Location`,
			'The redirect does not say where the file is, so nothing was downloaded. This is a fault on the Service\'s side.',
			status,
		);
	}
	return problem(
		why === 'token'
			? `The download was redirected (${status}) to an address holding the access token, which is not followed`
			: `The download was redirected (${status}) to an address with a user name or password, which is not followed`,
		'Following it would hand a credential to wherever it points, so nothing was sent on. The Service should redirect a download to an address that needs no credential.',
		status,
	);
}

/** One hop: a GET with no credential, no cookie and no header but Accept, within what is left of the deadline. */
async function hopTo(this: ServiceContext, url: string, host: string, hops: DownloadHops): Promise<ServiceAnswer<unknown> | { problem: DownloadRedirectProblem }> {
	const left = hops.deadline.at - Date.now();
	const timedOut = () =>
		problem(
			`The file's host ${host}, where the Service redirected the download, did not answer within ${Math.round(hops.deadline.ms / 1000)} s, the Request Timeout`,
			'Nothing was received in time, so the download was given up. If the file host is just slow, raise Request Timeout under Advanced Settings in the Service API credential.',
			undefined,
			true,
		);
	if (left <= 0) return timedOut();
	const request = streamedRequest('GET', url, hops.accept, left);
	try {
		// Not httpRequestWithAuthentication: nothing of the credential goes on a hop, to any origin.
		const full = (await this.helpers.httpRequest(request)) as ServiceAnswer<unknown>;
		return { statusCode: full.statusCode, headers: full.headers ?? {}, body: full.body };
	} catch (error) {
		if (isTimeout(error)) return timedOut();
		const cause = error as { code?: string; cause?: { code?: string } };
		const code = cause.cause?.code ?? cause.code ?? 'network error';
		return problem(
			`Could not get the file from ${host}, where the Service redirected the download (${code})`,
			'The connection to the file host failed or was dropped, so nothing was downloaded. Run the node again.',
		);
	}
}
