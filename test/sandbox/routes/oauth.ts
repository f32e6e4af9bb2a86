/**
 * The token endpoint of an OAuth2 client-credentials grant (the spec shows none: how a token is issued and
 * its lifetime are "not shown"). Client ID: the reader's key; Client Secret: `client_<its token>`; each token
 * lives OAUTH2_TOKEN_SECONDS and is refused after that.
 */
import type { IncomingMessage } from 'node:http';

import type { Route, SandboxContext } from '../context';
import { HttpError, sendJson, tokenMatches } from '../http';
import type { ReaderOrg } from '../types';

export const OAUTH2_TOKEN_PATH = '/oauth/token';
export const OAUTH2_TOKEN_SECONDS = 2;

const issued = new WeakMap<SandboxContext, Map<string, { reader: ReaderOrg; expiresAtMs: number; usesLeft: number }>>();
let counter = 0;
let usesPerToken = Number.POSITIVE_INFINITY;

/** Tokens issued from now on expire after `uses` requests as well (a test's mid-export expiry without waiting); Infinity: by time only. */
export function setTokenUses(uses: number): void {
	usesPerToken = uses;
}

/** The reader an issued, unexpired token belongs to; each call is one use. */
export function issuedTokenReader(sandbox: SandboxContext, token: string): ReaderOrg | undefined {
	const held = issued.get(sandbox)?.get(token);
	if (held === undefined || Date.now() >= held.expiresAtMs || held.usesLeft <= 0) return undefined;
	held.usesLeft--;
	return held.reader;
}

/** How many tokens this process issued: what a test counts renewals by. */
export function issuedTokenCount(): number {
	return counter;
}

function client(req: IncomingMessage, form: URLSearchParams): { id: string; secret: string } {
	const basic = req.headers.authorization ?? '';
	if (basic.toLowerCase().startsWith('basic ')) {
		const [id, secret] = Buffer.from(basic.slice(6), 'base64').toString('utf8').split(':').map(decodeURIComponent);
		return { id: id ?? '', secret: secret ?? '' };
	}
	return { id: form.get('client_id') ?? '', secret: form.get('client_secret') ?? '' };
}

export const oauthRoutes: Route[] = [
	{
		method: 'POST',
		pattern: /^\/oauth\/token$/,
		access: 'public',
		handler: ({ req, res, body, sandbox }) => {
			const form = new URLSearchParams(body.toString('utf8'));
			if (form.get('grant_type') !== 'client_credentials') throw new HttpError(400, 'unsupported_grant_type', 'Only grant_type=client_credentials is issued here.');
			const { id, secret } = client(req, form);
			const reader = Object.values(sandbox.state.readers).find((r) => r.key === id);
			if (reader === undefined || !tokenMatches(secret, `client_${reader.token}`)) {
				sendJson(res, 401, { error: 'invalid_client', error_description: 'Unknown client or wrong secret.' });
				return;
			}
			const token = `oat_${reader.key}_${++counter}_${Date.now().toString(36)}`;
			const tokens = issued.get(sandbox) ?? new Map();
			issued.set(sandbox, tokens);
			tokens.set(token, { reader, expiresAtMs: Date.now() + OAUTH2_TOKEN_SECONDS * 1000, usesLeft: usesPerToken });
			sendJson(res, 200, { access_token: token, token_type: 'Bearer', expires_in: OAUTH2_TOKEN_SECONDS });
		},
	},
];
