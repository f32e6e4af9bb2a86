import type { Route } from '../context';
import { HttpError, sendJson } from '../http';
import { checkSsoConfig } from '../ssoRules';
import { requestObject } from '../jsonApi';
import { canonicalBody, spokenWords } from '../requestDialect';

export const ssoRoutes: Route[] = [
	{
		method: 'PUT',
		pattern: /^\/v1\/reader\/sso$/,
		access: 'admin',
		handler: (ctx) => {
			const { reader, sandbox } = ctx;
			const confirmedAt = reader.passkeyConfirmedAt;
			const windowMs = sandbox.passkeyWindowMinutes * 60_000;
			if (confirmedAt === undefined || sandbox.state.clock() - confirmedAt > windowMs) {
				const words = `Setting single sign-on needs a recent passkey: a reader admin must confirm their passkey (within the last ${sandbox.passkeyWindowMinutes} minutes), then retry.`;
				// A Service may ask for the passkey as an authentication challenge instead of a 403.
				if (sandbox.dialect.answers.passkeyStatus === 401) {
					throw new HttpError(401, 'passkey_required', words, { 'WWW-Authenticate': 'Passkey realm="service", max_age=300' });
				}
				throw new HttpError(sandbox.dialect.answers.passkeyStatus === 428 ? 428 : 403, 'passkey_required', words);
			}
			const request = sandbox.dialect.request;
			const { config, problems } = checkSsoConfig(canonicalBody(request, 'sso', requestObject(ctx, 'sso'), { status: 422 }));
			if (!config) throw new HttpError(422, 'invalid_sso', spokenWords(request, 'sso', problems.join(' ')));
			reader.sso = { ...config, updated_at: sandbox.state.nowIso() };
			sendJson(ctx.res, 200, reader.sso);
		},
	},
	{
		method: 'GET',
		pattern: /^\/v1\/reader\/sso$/,
		access: 'reader',
		handler: (ctx) => {
			if (!ctx.reader.sso) throw new HttpError(404, 'not_found', 'Single sign-on is not configured for this reader.');
			sendJson(ctx.res, 200, ctx.reader.sso);
		},
	},
];
