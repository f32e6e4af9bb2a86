/**
 * One request sent through n8n's `httpRequestWithAuthentication` with the node's credential (credentialKind.ts).
 * With OAuth2, n8n fetches a token when none is stored and fetches a new one only when a request *throws* a 401:
 * so a 401 is excepted from the statuses handed back (n8n 2.x), and on an n8n that hands it back anyway the
 * request is sent once more letting it throw. A 401 means the request was refused, so nothing accepted is repeated.
 */
import type { ICredentialDataDecryptedObject, IHttpRequestOptions, INode } from 'n8n-workflow';

import { credentialName, CLIENT_GRANT_TYPE } from './credentialKind';

export interface FullAnswer {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

interface AuthenticatingContext {
	getNode(): INode;
	helpers: {
		httpRequestWithAuthentication(
			this: unknown,
			credentialsType: string,
			requestOptions: IHttpRequestOptions,
			additionalCredentialOptions?: { credentialsDecrypted?: { id: string; name: string; type: string; data: ICredentialDataDecryptedObject } },
		): Promise<unknown>;
	};
}

/** `data`: the credential to apply instead of the stored one (Check Settings' probes; the Access Token credential only: n8n reads an OAuth2 one itself). */
export async function sendAuthenticated(context: AuthenticatingContext, request: IHttpRequestOptions, data?: ICredentialDataDecryptedObject): Promise<FullAnswer> {
	const name = credentialName(context);
	const send = async (options: IHttpRequestOptions) =>
		(await context.helpers.httpRequestWithAuthentication.call(
			context,
			name,
			options,
			data !== undefined && name !== CLIENT_GRANT_TYPE ? { credentialsDecrypted: { id: '', name: '', type: name, data } } : undefined,
		)) as FullAnswer;
	if (name !== CLIENT_GRANT_TYPE) return await send(request);
	// A failure without an answer (the token endpoint refusing, a dropped connection) goes on as n8n threw it.
	let thrown = false;
	const answered = async (options: IHttpRequestOptions) =>
		await send(options).catch(async (error: unknown) => {
			thrown = true;
			return answerOf(error) ?? (await Promise.reject(isTokenFailure(error) ? new TokenFetchError(error) : error));
		});
	const first = await answered({ ...request, ignoreHttpStatusErrors: { except: [401] } } as unknown as IHttpRequestOptions);
	// A 401 thrown was n8n's to renew the token for, and it did: the Service refuses the new one too.
	if (first.statusCode !== 401 || thrown) return first;
	discard(first.body);
	return await answered({ ...request, ignoreHttpStatusErrors: false });
}

/** The answer a status error carries (the 401 after a new token, or any status the second sending refused). */
function answerOf(error: unknown): FullAnswer | undefined {
	const response = (error as { response?: { status?: unknown; headers?: unknown; data?: unknown } } | null)?.response;
	if (response === undefined || response === null || typeof response.status !== 'number') return undefined;
	return { statusCode: response.status, headers: (response.headers ?? {}) as FullAnswer['headers'], body: response.data };
}

function discard(body: unknown): void {
	const stream = body as { destroy?: () => void; resume?: () => void } | null;
	if (stream !== null && typeof stream === 'object' && typeof stream.destroy === 'function') stream.destroy();
}

/** n8n could not get a token from the Access Token URL: nothing reached the Service, and asking again would not help. */
export class TokenFetchError extends Error {
	readonly description =
		'Nothing was sent to the Service. Check Access Token URL, Client ID, Client Secret, Scope and Authentication in the Service OAuth2 API credential.';

	constructor(cause: unknown) {
		super(`Could not get an OAuth2 access token (${cause instanceof Error ? cause.message : String(cause)})`);
	}
}

// n8n's own words for a first token, or the token endpoint's refusal (client-oauth2's AuthError, code EAUTH).
function isTokenFailure(error: unknown): boolean {
	const { message, code } = (error ?? {}) as { message?: unknown; code?: unknown };
	return code === 'EAUTH' || (typeof message === 'string' && message.startsWith('Failed to acquire OAuth2 access token'));
}
