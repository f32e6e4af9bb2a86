/**
 * JSON:API envelopes (https://jsonapi.org/format/, docs/service-choices.md: "Envelopes"): a request
 * body sent as `{"data": {"type", "attributes"}}` with `application/vnd.api+json`, a resource answer's
 * `id`, `type` and attributes made readable beside it, and the words of an `{"errors": [...]}` body.
 * Operations never see it: serviceRequest.ts applies it to every call. Pure: no n8n types.
 */
import { withAdded } from '../addedFields';
import { isRecord, type Fields } from '../answerShape';

export const JSON_API_TYPE = 'application/vnd.api+json';

/** Thrown when a body cannot be put together under the names asked for (two values at one place). */
export class EnvelopeError extends Error {}

/** Where two of [path, value] pairs would meet (the same path, or one inside the other's value), as a dotted path. */
export function clashIn(entries: ReadonlyArray<readonly [readonly string[], unknown]>): string | undefined {
	const seen = new Set<string>();
	for (const [path] of entries) {
		const whole = path.join('\u0000');
		for (let i = 1; i < path.length; i++) if (seen.has(path.slice(0, i).join('\u0000'))) return path.slice(0, i).join('.');
		if ([...seen].some((other) => other === whole || other.startsWith(`${whole}\u0000`))) return path.join('.');
		seen.add(whole);
	}
	return undefined;
}

/**
 * An object built from [path, value] pairs (`data.attributes.url` → {data: {attributes: {url}}}),
 * every name an own property (`__proto__`, `constructor` are names like any other), in order.
 */
export function placed(entries: ReadonlyArray<readonly [readonly string[], unknown]>): Fields {
	const root: Fields = {};
	for (const [path, value] of entries) {
		let holder = root;
		path.forEach((part, i) => {
			const last = i === path.length - 1;
			const here = Object.prototype.hasOwnProperty.call(holder, part) ? holder[part] : undefined;
			if (last ? here !== undefined : here !== undefined && !isRecord(here)) {
				throw new EnvelopeError(`The request would carry two values at "${path.slice(0, i + 1).join('.')}"`);
			}
			if (last) Object.defineProperty(holder, part, { value, enumerable: true, writable: true, configurable: true });
			else {
				if (here === undefined) Object.defineProperty(holder, part, { value: {}, enumerable: true, writable: true, configurable: true });
				holder = holder[part] as Fields;
			}
		});
	}
	return root;
}

/** A Request Names Service name with dots is a path: `data.attributes.url`. */
export function namePath(name: string): string[] {
	return name.includes('.') ? name.split('.').filter((part) => part !== '') : [name];
}

/** The JSON:API type a body goes under unless Request Names says otherwise: the route's last segment (`/v1/reader/webhooks` → `webhooks`). */
export function defaultJsonApiType(path: string): string {
	const segments = path.split('?')[0].split('/').filter((part) => part !== '');
	return segments[segments.length - 1] ?? 'resource';
}

/**
 * The body as JSON:API when it is one: a body whose names lead into `data.attributes`, or one of a
 * request whose JSON:API Type is set. Its other top-level fields go under `data.attributes` too, and
 * `data.type` is the type set (else the one already there, else the route's last segment).
 */
export function jsonApiBody(body: unknown, type: string | undefined, path: string): { body: unknown; type?: string } {
	if (!isRecord(body)) return { body };
	const data = body.data;
	const shaped = isRecord(data) && isRecord(data.attributes);
	if (!shaped && type === undefined) return { body };
	const attributes: Array<readonly [readonly string[], unknown]> = [];
	const resource = shaped ? (data as Fields) : {};
	for (const [key, value] of Object.entries(resource)) if (key !== 'attributes' && key !== 'type') attributes.push([['data', key], value]);
	for (const [key, value] of Object.entries(shaped ? (resource.attributes as Fields) : {})) attributes.push([['data', 'attributes', key], value]);
	for (const [key, value] of Object.entries(body)) if (!(shaped && key === 'data')) attributes.push([['data', 'attributes', key], value]);
	const chosen = type ?? (typeof resource.type === 'string' ? resource.type : defaultJsonApiType(path));
	return { body: placed([[['data', 'type'], chosen], ...attributes]), type: chosen };
}

/** A JSON:API resource object: a `type` text and `attributes` (an `id` besides, except when the client creates it). */
function isResource(value: unknown): value is Fields & { type: string; attributes: Fields } {
	return isRecord(value) && typeof value.type === 'string' && isRecord(value.attributes);
}

/**
 * A JSON:API answer made readable, nothing taken away: a resource's attributes beside it (`{type,
 * id, attributes, url, ...}`), and a document of one resource with that resource's `id`, `type` and
 * attributes beside `data` (`{data: {...}, id, type, url, ...}`). A name already there keeps its
 * value; the readable copy goes under `_reader` (addedFields.ts). Any other answer is unchanged.
 */
export function readableEnvelope(body: unknown): unknown {
	if (!isRecord(body) || !Object.prototype.hasOwnProperty.call(body, 'data')) return body;
	const data = body.data;
	if (isResource(data)) {
		return withAdded(body, { ...(data.id === undefined ? {} : { id: data.id }), type: data.type, ...data.attributes });
	}
	if (Array.isArray(data) && data.length > 0 && isResource(data[0])) {
		return { ...body, data: data.map((entry) => (isResource(entry) ? withAdded(entry, entry.attributes) : entry)) };
	}
	return body;
}

/** Where an entry of `errors[]` names its field when it has no JSON:API `source`. */
const ERROR_FIELD_NAMES = ['pointer', 'field', 'path', 'parameter', 'param', 'property', 'attribute'];

/**
 * The words of a JSON:API (or any `errors[]`) error body: each error's title and detail, its code and
 * where it points (`source.pointer`, `source.parameter`, `source.header`), up to five; undefined for
 * another body.
 */
export function errorsWords(body: unknown): { code?: string; message?: string } | undefined {
	if (!isRecord(body) || !Array.isArray(body.errors) || body.errors.length === 0) return undefined;
	const errors = body.errors.filter(isRecord);
	if (errors.length === 0) return undefined;
	const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : typeof value === 'number' ? String(value) : undefined);
	const said = errors.slice(0, 5).map((error) => {
		const title = text(error.title) ?? text(error.message);
		const detail = text(error.detail) ?? text(error.description);
		const words = title && detail && title !== detail ? `${title}: ${detail}` : (detail ?? title ?? text(error.code) ?? '');
		const source = isRecord(error.source) ? error.source : undefined;
		// JSON:API under `source`; RFC 9457's `errors` extension and most APIs beside the detail (`pointer`, `field`...).
		const beside = source ? undefined : ERROR_FIELD_NAMES.find((name) => text(error[name]) !== undefined);
		const where = source ? text(source.pointer) ?? text(source.parameter) ?? text(source.header) : beside !== undefined ? text(error[beside]) : undefined;
		const kind = source ? (text(source.pointer) ? 'pointer' : text(source.parameter) ? 'parameter' : 'header') : beside === 'pointer' ? 'pointer' : 'field';
		return `${words}${where ? ` (${kind} "${where}")` : ''}`;
	});
	const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
	const code = text(errors[0].code) ?? text(errors[0].error_code);
	return { code, message: `${said.filter((s) => s !== '').join('; ')}${more}` || undefined };
}

/**
 * When a refusal says the Service wants JSON:API (a 415 or words naming application/vnd.api+json, or a
 * pointer under /data while the node sent a plain body), or another `data.type` (409, or words naming
 * the type expected), the words that say which Request Names row to set; undefined otherwise.
 */
export function envelopeHint(status: number, words: string, sent: { typeConcept?: string; type?: string }, setting: string): string | undefined {
	// The statuses a refused body gets (400, 406, 409, 415, 422), never a token or share problem.
	if (sent.typeConcept === undefined || ![400, 406, 409, 415, 422].includes(status)) return undefined;
	const lower = words.toLowerCase();
	if (sent.type === undefined) {
		if (lower.includes('vnd.api+json') || lower.includes('json:api') || lower.includes('"/data') || lower.includes('"data.')) {
			return `The Service answered ${status} asking for JSON:API (${JSON_API_TYPE}), but the node sent a plain JSON body: add the row ${sent.typeConcept} to ${setting} with the type the Service names (the node then sends the fields under data.attributes).`;
		}
		return undefined;
	}
	if (status !== 409 && !/\btype\b/.test(lower)) return undefined;
	// The type the Service names: a quoted word other than the one sent.
	const quoted = [...words.matchAll(/["'`\u201c]([A-Za-z0-9_.:-]{1,100})["'`\u201d]/g)].map((m) => m[1]).filter((name) => name !== sent.type && !name.startsWith('/') && name !== 'type' && name !== 'data');
	const expected = quoted.length > 0 ? `\`${quoted[0]}\`` : 'the type it expects';
	return `The Service answered ${status} about the JSON:API type: the node sent data.type \`${sent.type}\`. Set the row ${sent.typeConcept} in ${setting} to ${expected}.`;
}
