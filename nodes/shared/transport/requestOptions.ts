import type { IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';

/** The options of every request to the Service: full response, any status, no redirect followed, the body as a stream (so its size and pauses can be bounded). */
export function streamedRequest(method: IHttpRequestMethods, url: string, accept: string, timeoutMs: number): IHttpRequestOptions {
	return {
		method,
		url,
		headers: { Accept: accept },
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		encoding: 'stream',
		json: false,
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
		timeout: timeoutMs,
	};
}
