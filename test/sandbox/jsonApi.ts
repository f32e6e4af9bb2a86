import type { RouteContext } from './context';
import type { Dialect } from './dialect';
import { HttpError, jsonObject } from './http';
import { nameFor } from './requestDialect';
import type { RequestConcept } from '../../nodes/shared/transport/requestNames';

/**
 * A Service speaking JSON:API (https://jsonapi.org/format/), the dialect's `envelope: 'jsonapi'`:
 * request bodies as `{"data": {"type", "attributes"}}` with `application/vnd.api+json` (415 otherwise,
 * 409 for another type, as the format says), answers as resources under `data`, errors as `errors[]`.
 */
export const JSON_API = 'application/vnd.api+json';

/** The types this Service expects, by request: what its Request Names rows say (`<scope>.type`). */
export function jsonApiType(dialect: Dialect, scope: string): string {
	return nameFor(dialect.request, `${scope}.type` as RequestConcept);
}

/** A JSON request body of `scope` as the routes read it: the plain object, or a JSON:API one's attributes. */
export function requestObject(ctx: RouteContext, scope: string): Record<string, unknown> {
	const dialect = ctx.sandbox.dialect;
	if (dialect.envelope !== 'jsonapi') return jsonObject(ctx.body);
	const type = String(ctx.req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	if (type !== JSON_API) {
		throw new HttpError(415, 'unsupported_media_type', `Send the body as JSON:API: Content-Type ${JSON_API}, the fields under data.attributes.`);
	}
	const body = jsonObject(ctx.body);
	const data = body.data as Record<string, unknown> | undefined;
	if (data === null || typeof data !== 'object' || typeof data.attributes !== 'object' || data.attributes === null) {
		throw Object.assign(new HttpError(400, 'invalid_document', 'The document has no data.attributes.'), { source: { pointer: '/data' } });
	}
	const expected = jsonApiType(dialect, scope);
	if (data.type !== expected) {
		throw Object.assign(new HttpError(409, 'type_mismatch', `The resource type must be "${expected}", not "${String(data.type)}".`), { source: { pointer: '/data/type' } });
	}
	return { ...(data.attributes as Record<string, unknown>) };
}

type Fields = Record<string, unknown>;
const isFields = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Which answers are resources, and their type. */
function resourceType(dialect: Dialect, method: string, path: string): string | undefined {
	if (path === '/v1/reader/webhooks') return jsonApiType(dialect, 'webhook');
	if (method === 'POST' && path === '/v1/reader/policy-runs') return jsonApiType(dialect, 'policyRun');
	if (method === 'POST' && path === '/v1/reader/invitations') return jsonApiType(dialect, 'invitation');
	if (method === 'GET' && /^\/v1\/public\/reports\/[^/]+\/verify$/.test(path)) return 'verifications';
	return undefined;
}

function resource(type: string, value: Fields): Fields {
	const { id, ...attributes } = value;
	return { type, ...(id === undefined ? {} : { id }), attributes };
}

/** A successful answer as a JSON:API document, where the route's answer is a resource or a list of them. */
export function jsonApiAnswer(dialect: Dialect, method: string, path: string, body: unknown): unknown {
	const type = resourceType(dialect, method, path);
	if (type === undefined || !isFields(body)) return body;
	const list = Object.values(body).find(Array.isArray) as unknown[] | undefined;
	// A listing (the endpoints); a verification is one resource, whatever list it holds (`keys: [...]`).
	if (method === 'GET' && type !== 'verifications' && list !== undefined) return { data: list.map((entry) => (isFields(entry) ? resource(type, entry) : entry)) };
	// A verification's id is its KS.
	const id = body.id ?? body.uuid ?? body.ks;
	return { data: resource(type, { ...body, ...(id === undefined ? {} : { id }) }), jsonapi: { version: '1.1' } };
}

/** An error as a JSON:API error object. */
export function jsonApiError(status: number, code: string, message: string, source?: Fields): unknown {
	return { errors: [{ status: String(status), code, title: code.replace(/_/g, ' '), detail: message, ...(source ? { source } : {}) }] };
}
