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

/**
 * How n8n's OAuth2 client words each RFC 6749 token error (@n8n/client-oauth2's ERROR_RESPONSES, the same in 1.x and 2.x):
 * n8n 1.x passes a token endpoint's refusal on with these words only, no code and no cause.
 */
const TOKEN_ERROR_WORDS = [
	'The request is missing a required parameter',
	'Client authentication failed',
	'The provided authorization grant',
	'The client is not authorized to request',
	'The authorization grant type is not supported',
	'The resource owner or authorization server denied',
	'The requested scope is invalid',
	'The authorization server encountered an unexpected condition',
	'The authorization server is currently unable',
];
const INVALID_SCOPE = 'The requested scope is invalid';

/** n8n could not get a token from the Access Token URL: nothing reached the Service, and asking again would not help. */
export class TokenFetchError extends Error {
	readonly description: string;

	constructor(cause: unknown) {
		const words = cause instanceof Error ? cause.message : String(cause);
		super(`Could not get an OAuth2 access token (${words})`);
		this.description = words.startsWith(INVALID_SCOPE)
			? 'Nothing was sent to the Service. The token endpoint refused the Scope: enter the scopes it issues tokens for, separated by spaces, in Scope of the Service OAuth2 API credential (n8n 1.x sends an empty Scope as `scope=`, which some token endpoints refuse).'
			: 'Nothing was sent to the Service. Check Access Token URL, Client ID, Client Secret, Scope and Authentication in the Service OAuth2 API credential.';
	}
}

// n8n's own words for a first token, the token endpoint's refusal (client-oauth2's AuthError, code EAUTH), or n8n 1.x's wrapping of it.
function isTokenFailure(error: unknown): boolean {
	const { message, code, response } = (error ?? {}) as { message?: unknown; code?: unknown; response?: unknown };
	if (code === 'EAUTH') return true;
	if (typeof message !== 'string') return false;
	// The RFC 6749 words only on an error that carries no answer: a Service's own error could say them too.
	return message.startsWith('Failed to acquire OAuth2 access token') || (response === undefined && TOKEN_ERROR_WORDS.some((words) => message.startsWith(words)));
}
