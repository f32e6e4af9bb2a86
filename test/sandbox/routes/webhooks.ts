import { randomBytes } from 'node:crypto';

import type { Route, RouteContext } from '../context';
import { catalogueResponse } from '../events';
import { HttpError, sendJson } from '../http';
import { defaultDialect, type Dialect } from '../dialect';
import type { WebhookEndpoint } from '../types';
import { requestObject } from '../jsonApi';
import { canonicalBody, nameFor } from '../requestDialect';

/** Checks a webhook target: an absolute https URL. Returns the problem in plain words, if any. */
export function targetUrlProblem(value: unknown, name = 'url'): string | undefined {
	if (typeof value !== 'string' || value.trim() === '') return `Send the target as "${name}": an https:// address.`;
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		return `The target URL "${value}" is not a valid absolute URL: use https://host/path.`;
	}
	if (url.protocol !== 'https:') {
		return `The target URL must use https (spec: endpoint URL scheme https only); "${value}" uses ${url.protocol.replace(':', '')}.`;
	}
	return undefined;
}

export function newEndpoint(url: string, createdAt: string, dialect: Dialect = defaultDialect): WebhookEndpoint {
	return { id: `we_${randomBytes(8).toString('hex')}`, url, secret: dialect.newSecret(), created_at: createdAt };
}

/** `{data}` whole, or in pages of the dialect's listPageSize (or page_size): the cursor is `<prefix>-<offset of the page's first entry>`. */
function pagedList(ctx: RouteContext, data: readonly unknown[], prefix: string): void {
	const perPage = Number(ctx.url.searchParams.get('page_size') ?? '') || ctx.sandbox.dialect.listPageSize;
	if (perPage <= 0) return sendJson(ctx.res, 200, { data });
	const cursor = ctx.url.searchParams.get('cursor');
	const offset = cursor === null ? 0 : cursor.startsWith(`${prefix}-`) && /^\d{1,6}$/.test(cursor.slice(prefix.length + 1)) ? Number(cursor.slice(prefix.length + 1)) : Number.NaN;
	if (!Number.isInteger(offset) || (offset > 0 && offset >= data.length)) throw new HttpError(400, 'invalid_cursor', `The cursor "${cursor}" is not one this list gave.`);
	const end = offset + perPage;
	sendJson(ctx.res, 200, { data: data.slice(offset, end) }, end < data.length ? { 'X-Service-Next-Cursor': `${prefix}-${end}` } : {});
}

export const webhookRoutes: Route[] = [
	{
		method: 'GET',
		pattern: /^\/v1\/reader\/webhooks\/catalogue$/,
		access: 'reader',
		handler: (ctx) => pagedList(ctx, catalogueResponse().data, 'cat'),
	},
	{
		method: 'POST',
		pattern: /^\/v1\/reader\/webhooks$/,
		access: 'admin',
		handler: (ctx) => {
			const request = ctx.sandbox.dialect.request;
			const body = canonicalBody(request, 'webhook', requestObject(ctx, 'webhook'));
			const problem = targetUrlProblem(body.url, nameFor(request, 'webhook.url'));
			if (problem) throw new HttpError(400, 'invalid_url', problem);
			const endpoint = newEndpoint(body.url as string, ctx.sandbox.state.nowIso(), ctx.sandbox.dialect);
			ctx.reader.endpoints.push(endpoint);
			// The secret is shown here only; listings never repeat it.
			sendJson(ctx.res, 201, endpoint);
		},
	},
	{
		method: 'GET',
		pattern: /^\/v1\/reader\/webhooks$/,
		access: 'reader',
		handler: (ctx) => pagedList(ctx, ctx.reader.endpoints.map(({ secret: _secret, ...endpoint }) => endpoint), 'we'),
	},
	{
		method: 'DELETE',
		pattern: /^\/v1\/reader\/webhooks\/([^/]+)$/,
		access: 'admin',
		handler: (ctx) => {
			const [id] = ctx.params;
			const index = ctx.reader.endpoints.findIndex((e) => e.id === id);
			if (index < 0) throw new HttpError(404, 'not_found', `No webhook endpoint ${id} for this reader.`);
			ctx.reader.endpoints.splice(index, 1);
			ctx.res.writeHead(204).end();
		},
	},
];
