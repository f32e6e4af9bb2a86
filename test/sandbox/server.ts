import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Route, SandboxContext } from './context';
import type { SandboxControl } from './control';
import { canonicalQuery, type SandboxSignIn } from './dialect';
import { answerLiterally, bearerToken, HttpError, jsonObject, readBody, sendError, sendJson, tokenMatches, wordAnswers } from './http';
import { exportRoutes } from './routes/exports';
import { invitationRoutes } from './routes/invitations';
import { jobRoutes } from './routes/jobs';
import { issuedTokenReader, oauthRoutes } from './routes/oauth';
import { policyRunRoutes } from './routes/policyRuns';
import { ssoRoutes } from './routes/sso';
import { verifyRoutes } from './routes/verify';
import { webhookRoutes } from './routes/webhooks';
import { apiDocumentRoutes } from './routes/apiDocument';
import { answerRouteFault } from './routeFaults';
import type { ReaderOrg, ReceivedRequest } from './types';

const routes: Route[] = [
	...webhookRoutes, ...exportRoutes, ...verifyRoutes, ...invitationRoutes, ...policyRunRoutes, ...ssoRoutes, ...jobRoutes, ...oauthRoutes, ...apiDocumentRoutes,
];

/** Control methods reachable over HTTP (`POST /__control/<method>` with `{"args": [...]}`). */
const httpControlMethods: ReadonlyArray<keyof SandboxControl> = [
	'addCompany', 'companies', 'grantShare', 'revokeShare', 'endShare', 'shares', 'changeShare', 'setReaderFlags', 'confirmPasskey',
	'setInvitationStatus', 'invitations', 'statements', 'policyRuns', 'sso', 'rolesForGroups', 'addWebhookEndpoint', 'removeWebhookEndpoint', 'rotateToken',
	'webhookEndpoints', 'failPage', 'failRoute', 'clearFaults', 'emit', 'redeliver', 'sendStale', 'sendTampered', 'deliveries',
	'whenSettled', 'accessLog', 'companyAccessLog', 'requests', 'clearRequests', 'tamperRecord', 'supersedeRecord',
];

function authenticate(req: IncomingMessage, sandbox: SandboxContext): ReaderOrg {
	const signIn = sandbox.dialect.signIn;
	const token = signedInToken(req, signIn);
	const challenge = { 'WWW-Authenticate': signIn.challenge };
	if (token === undefined) {
		throw new HttpError(401, 'unauthorized', signIn.words, challenge);
	}
	// Compare against every reader so the time taken does not depend on which one matches.
	let found: ReaderOrg | undefined;
	for (const reader of Object.values(sandbox.state.readers)) {
		if (tokenMatches(token, reader.token)) found = reader;
	}
	// A token the OAuth2 token endpoint issued, until it expires (routes/oauth.ts).
	found ??= issuedTokenReader(sandbox, token);
	if (!found) throw new HttpError(401, 'unauthorized', 'The access token is not valid: check the token in your credentials.', challenge);
	return found;
}

/** The token where this dialect reads it, undefined when it is not there. */
function signedInToken(req: IncomingMessage, signIn: SandboxSignIn): string | undefined {
	if (signIn.form === 'bearer') return bearerToken(req);
	if (signIn.form === 'header') {
		const value = req.headers[signIn.header.toLowerCase()];
		return typeof value === 'string' && value !== '' ? value.trim() : undefined;
	}
	const header = req.headers.authorization ?? '';
	const space = header.indexOf(' ');
	if (space < 0 || header.slice(0, space).toLowerCase() !== signIn.scheme.toLowerCase()) return undefined;
	return header.slice(space + 1).trim();
}

function checkAccess(route: Route, reader: ReaderOrg): void {
	if (route.access === 'export' && !reader.exportsEnabled) {
		throw new HttpError(403, 'exports_disabled', 'Exports are not switched on for this reader organisation: ask the Service to switch them on.');
	}
	if ((route.access === 'export' || route.access === 'admin') && !reader.readerAdmin) {
		throw new HttpError(403, 'no_reader_admin', 'This reader organisation has no reader admin: appoint one before using this route.');
	}
}

function decodeParams(match: RegExpExecArray): string[] {
	try {
		return match.slice(1).map((p) => decodeURIComponent(p));
	} catch {
		throw new HttpError(400, 'invalid_path', 'The path has a malformed %-escape.');
	}
}

async function handleControl(
	req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer, control: SandboxControl, controlToken: string,
): Promise<void> {
	const token = bearerToken(req);
	if (!token || !tokenMatches(token, controlToken)) {
		throw new HttpError(401, 'unauthorized', 'The control API needs "Authorization: Bearer <control token>".');
	}
	const method = url.pathname.slice('/__control/'.length) as keyof SandboxControl;
	if (req.method !== 'POST' || !httpControlMethods.includes(method)) {
		throw new HttpError(404, 'not_found', `No control method ${req.method} ${url.pathname}; POST one of: ${httpControlMethods.join(', ')}.`);
	}
	const args = body.length ? jsonObject(body).args ?? [] : [];
	if (!Array.isArray(args)) throw new HttpError(400, 'invalid_json', '"args" must be a list.');
	let result: unknown;
	try {
		result = await (control[method] as (...a: unknown[]) => unknown)(...args);
	} catch (error) {
		throw new HttpError(400, 'control_error', (error as Error).message);
	}
	sendJson(res, 200, { result: result ?? null });
}

/** Handles one request: records it, authenticates, checks access, runs the route, answers errors as JSON. */
export async function handleRequest(
	req: IncomingMessage, res: ServerResponse, sandbox: SandboxContext, control: SandboxControl, controlToken: string,
): Promise<void> {
	const asSent = new URL(req.url ?? '/', 'https://127.0.0.1');
	const url = asSent.pathname.startsWith('/__control/') ? asSent : canonicalQuery(sandbox.dialect, asSent, req.headers);
	wordAnswers(res, sandbox.dialect, req.method ?? 'GET', asSent.pathname);
	try {
		const body = await readBody(req);
		if (url.pathname.startsWith('/__control/')) {
			await handleControl(req, res, url, body, control, controlToken);
			return;
		}
		const { authorization: _authorization, ...headers } = req.headers;
		// The token in a header of its own is kept out of the log as Authorization is.
		if (sandbox.dialect.signIn.form === 'header') delete headers[sandbox.dialect.signIn.header.toLowerCase()];
		const received: ReceivedRequest = {
			at: sandbox.state.nowIso(),
			method: req.method ?? 'GET',
			path: url.pathname,
			query: Object.fromEntries(asSent.searchParams),
			headers,
			body: body.toString('utf8'),
		};
		sandbox.state.requests.push(received);
		res.on('finish', () => {
			received.status = res.statusCode;
		});
		const fault = sandbox.routeFaults.take(received.method, url.pathname);
		if (fault?.afterWork) {
			// The write is made; what the route would have answered is dropped on the way back.
			const swallowed = { headersSent: false, writeHead: () => swallowed, setHeader: () => swallowed, getHeader: () => undefined, write: () => true, end: () => swallowed, on: () => swallowed, once: () => swallowed };
			const route = routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
			if (route !== undefined) {
				const reader = route.access === 'public' ? undefined : authenticate(req, sandbox);
				await route.handler({ req, res: swallowed as unknown as typeof res, url, params: decodeParams(route.pattern.exec(url.pathname)!), body, reader: reader!, sandbox });
			}
		}
		if (fault) {
			answerLiterally(res);
			answerRouteFault(fault, req, res, url);
			return;
		}

		const matching = routes.filter((r) => r.pattern.test(url.pathname));
		if (matching.length === 0) throw new HttpError(404, 'not_found', `No route ${req.method} ${url.pathname}.`);
		const route = matching.find((r) => r.method === req.method);
		if (!route) {
			const allow = matching.map((r) => r.method).join(', ');
			throw new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on ${url.pathname}; use ${allow}.`, { Allow: allow });
		}
		const params = decodeParams(route.pattern.exec(url.pathname)!);
		let reader: ReaderOrg | undefined;
		if (route.access !== 'public') {
			reader = authenticate(req, sandbox);
			received.reader = reader.key;
			checkAccess(route, reader);
		}
		await route.handler({ req, res, url, params, body, reader: reader!, sandbox });
	} catch (error) {
		if (res.headersSent) {
			res.destroy();
			return;
		}
		if (error instanceof HttpError) {
			sendError(res, error);
		} else {
			sendError(res, new HttpError(500, 'server_error', `Sandbox error: ${(error as Error).message}`));
		}
	}
}
