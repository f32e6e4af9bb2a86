/**
 * Reading a published API document (OpenAPI 3, Swagger 2, or JSON Schema under `paths`): the property
 * names of the request bodies of the writes the nodes send, and an example signing secret in the
 * webhook creation's answer. `$ref`s inside the document only (`#/...`), bounded; no network. Pure:
 * no n8n types; the document is read as parsed JSON, never a plain object keyed by its text.
 */
import { isRecord } from '../answerShape';
import type { RequestScope } from '../settings/requestConcepts';

type Fields = Record<string, unknown>;

/** Where a Service publishes its document, tried in order (each one GET, within the check's budget). */
export const DOCUMENT_PATHS = ['/openapi.json', '/v1/openapi.json', '/.well-known/openapi.json', '/swagger.json'] as const;

/** The writes whose bodies carry Request Names, as the spec routes them. */
export const WRITES: ReadonlyArray<{ scope: Exclude<RequestScope, 'export'>; path: string; methods: readonly string[] }> = [
	{ scope: 'invitation', path: '/v1/reader/invitations', methods: ['post'] },
	{ scope: 'webhook', path: '/v1/reader/webhooks', methods: ['post'] },
	{ scope: 'policyRun', path: '/v1/reader/policy-runs', methods: ['post'] },
	{ scope: 'sso', path: '/v1/reader/sso', methods: ['put', 'post'] },
];

/** `$ref`s followed one after another at most this often (a loop ends here). */
const MAX_REFS = 16;
/** Schemas walked for properties (allOf, a JSON:API envelope): at most this many. */
const MAX_SCHEMAS = 64;

const own = (value: Fields, key: string): unknown => (Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined);

/** Whether parsed JSON is an API document: `openapi`, `swagger` or `paths` at its top. */
export function isApiDocument(value: unknown): value is Fields {
	return isRecord(value) && (typeof own(value, 'openapi') === 'string' || typeof own(value, 'swagger') === 'string' || isRecord(own(value, 'paths')));
}

/** A `#/a/b~1c` pointer inside the document, or undefined (outside it, or not there). */
function pointed(document: Fields, ref: string): unknown {
	if (!ref.startsWith('#')) return undefined;
	const parts = ref.length <= 1 ? [] : ref.slice(2).split('/').map((part) => part.split('~1').join('/').split('~0').join('~'));
	let at: unknown = document;
	for (const part of parts.slice(0, 32)) {
		if (Array.isArray(at) && /^\d{1,6}$/.test(part)) at = at[Number(part)];
		else if (isRecord(at)) at = own(at, part);
		else return undefined;
	}
	return at;
}

/** A schema (or any object) with its `$ref` chain followed, at most MAX_REFS deep; undefined where it leaves the document. */
export function resolved(document: Fields, value: unknown): Fields | undefined {
	let at = value;
	for (let depth = 0; depth <= MAX_REFS; depth++) {
		if (!isRecord(at)) return undefined;
		const ref = own(at, '$ref');
		if (typeof ref !== 'string') return at;
		at = pointed(document, ref);
	}
	return undefined;
}

/** The document's path entry for `path`: the same path, else the longest one it ends with (servers under /v1/reader). */
function pathItem(document: Fields, path: string): Fields | undefined {
	const paths = own(document, 'paths');
	if (!isRecord(paths)) return undefined;
	let best: string | undefined;
	for (const key of Object.keys(paths)) {
		const trimmed = key.length > 1 && key.endsWith('/') ? key.slice(0, -1) : key;
		if (trimmed === path) return resolved(document, paths[key]);
		if (trimmed.startsWith('/') && trimmed.length > 1 && path.endsWith(trimmed) && (best === undefined || key.length > best.length)) best = key;
	}
	return best === undefined ? undefined : resolved(document, paths[best]);
}

const isJsonMedia = (type: string) => {
	const plain = type.split(';')[0].trim().toLowerCase();
	return plain === 'application/json' || plain.endsWith('+json') || plain === '*/*';
};

/** The JSON schema of a media map (`content`): the first JSON type's. */
function mediaSchema(document: Fields, content: unknown): { schema?: Fields; example?: unknown } | undefined {
	const map = resolved(document, content);
	if (map === undefined) return undefined;
	const key = Object.keys(map).find(isJsonMedia);
	const media = key === undefined ? undefined : resolved(document, map[key]);
	if (media === undefined) return undefined;
	return { schema: resolved(document, own(media, 'schema')), example: own(media, 'example') };
}

/** The operation of a write: its method's entry under the path (PUT before POST where both are allowed). */
function operationOf(document: Fields, write: (typeof WRITES)[number]): { item: Fields; operation: Fields } | undefined {
	const item = pathItem(document, write.path);
	if (item === undefined) return undefined;
	for (const method of write.methods) {
		const operation = resolved(document, own(item, method));
		if (operation !== undefined) return { item, operation };
	}
	return undefined;
}

/** The request body's schema of a write: OpenAPI 3's `requestBody`, or Swagger 2's `in: body` parameter. */
export function requestSchema(document: Fields, write: (typeof WRITES)[number]): Fields | undefined {
	const found = operationOf(document, write);
	if (found === undefined) return undefined;
	const body = resolved(document, own(found.operation, 'requestBody'));
	if (body !== undefined) return mediaSchema(document, own(body, 'content'))?.schema;
	const parameters = [own(found.operation, 'parameters'), own(found.item, 'parameters')].flatMap((list) => (Array.isArray(list) ? list.slice(0, 64) : []));
	for (const parameter of parameters) {
		const entry = resolved(document, parameter);
		if (entry !== undefined && own(entry, 'in') === 'body') return resolved(document, own(entry, 'schema'));
	}
	return undefined;
}

/**
 * A schema's properties, each with its own schema: `properties`, those of `allOf` parts, and a
 * JSON:API body's `data.attributes`' (what the nodes send there). Names as the document spells them.
 */
export function propertiesOf(document: Fields, schema: Fields | undefined): Array<{ name: string; schema: Fields | undefined }> {
	const out: Array<{ name: string; schema: Fields | undefined }> = [];
	const seen = new Set<Fields>();
	const walk = (value: Fields | undefined) => {
		if (value === undefined || seen.has(value) || seen.size >= MAX_SCHEMAS) return;
		seen.add(value);
		const allOf = own(value, 'allOf');
		if (Array.isArray(allOf)) for (const part of allOf.slice(0, 16)) walk(resolved(document, part));
		const properties = own(value, 'properties');
		if (!isRecord(properties)) return;
		for (const name of Object.keys(properties).slice(0, 200)) {
			if (!out.some((entry) => entry.name === name)) out.push({ name, schema: resolved(document, properties[name]) });
		}
	};
	walk(schema);
	// JSON:API: `{data: {type, attributes: {...}}}`: the attributes are the body's fields.
	const data = out.length === 1 && out[0].name === 'data' ? out[0].schema : undefined;
	const attributes = data === undefined ? undefined : propertiesOf(document, data).find((entry) => entry.name === 'attributes');
	return attributes === undefined ? out : propertiesOf(document, attributes.schema);
}

/** The schema of an array's entries (or the schema itself where it is an object). */
export function entrySchema(document: Fields, schema: Fields | undefined): Fields | undefined {
	if (schema === undefined) return undefined;
	const items = own(schema, 'items');
	return items === undefined ? schema : resolved(document, items);
}

/** Whether a name speaks of a secret (`secret`, `signing_secret`, `signingSecret`, `webhook_secret`). */
export function secretNamed(name: string): boolean {
	return name.length <= 64 && name.toLowerCase().includes('secret');
}

/**
 * An example signing secret, at any depth of `value` (bounded): a string under a secret-named key, or
 * a secret-named property's `example`/`examples` in a schema.
 */
export function exampleSecret(document: Fields | undefined, value: unknown): string | undefined {
	let visited = 0;
	const seen = new Set<unknown>();
	const walk = (at: unknown, depth: number): string | undefined => {
		if (depth > 12 || visited++ > 2000 || at === null || typeof at !== 'object' || seen.has(at)) return undefined;
		seen.add(at);
		if (Array.isArray(at)) {
			for (const entry of at.slice(0, 100)) {
				const found = walk(entry, depth + 1);
				if (found !== undefined) return found;
			}
			return undefined;
		}
		const fields = at as Fields;
		for (const key of Object.keys(fields).slice(0, 200)) {
			let inner = fields[key];
			if (document !== undefined && isRecord(inner) && typeof own(inner, '$ref') === 'string') inner = resolved(document, inner);
			if (secretNamed(key)) {
				if (typeof inner === 'string' && inner.length >= 8) return inner;
				const example = isRecord(inner) ? (own(inner, 'example') ?? (Array.isArray(own(inner, 'examples')) ? (own(inner, 'examples') as unknown[])[0] : undefined)) : undefined;
				if (typeof example === 'string' && example.length >= 8) return example;
			}
			const found = walk(inner, depth + 1);
			if (found !== undefined) return found;
		}
		return undefined;
	};
	return walk(value, 0);
}

/** The webhook creation's answers in the document (2xx), with their examples: where an example secret may be. */
export function webhookAnswers(document: Fields): unknown[] {
	const write = WRITES.find((entry) => entry.scope === 'webhook')!;
	const found = operationOf(document, write);
	const responses = found === undefined ? undefined : resolved(document, own(found.operation, 'responses'));
	if (responses === undefined) return [];
	const out: unknown[] = [];
	for (const status of Object.keys(responses).filter((key) => key.startsWith('2')).slice(0, 8)) {
		const answer = resolved(document, responses[status]);
		if (answer === undefined) continue;
		const media = mediaSchema(document, own(answer, 'content'));
		// Swagger 2: the schema and examples sit on the response itself.
		out.push(media?.example, media?.schema, own(answer, 'examples'), resolved(document, own(answer, 'schema')));
	}
	return out.filter((entry) => entry !== undefined);
}

/** The likely encoding of an example secret, as Secret Encoding's options name it, or undefined when it cannot tell. */
export function secretEncoding(secret: string): { value: 'hex' | 'base64'; why: string } | undefined {
	const isHex = (text: string) => text.length >= 32 && text.length % 2 === 0 && [...text].every((char) => '0123456789abcdefABCDEF'.includes(char));
	const isBase64 = (text: string) =>
		text.length >= 16 && [...text].every((char) => (char >= '0' && char <= '9') || (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || '+/=-_'.includes(char));
	if (secret.startsWith('whsec_') && isBase64(secret.slice(6))) return { value: 'base64', why: 'it starts with whsec_ followed by base64 text' };
	if (isHex(secret)) return { value: 'hex', why: `it is ${secret.length} hex characters` };
	if (isBase64(secret) && secret.length % 4 === 0) return { value: 'base64', why: 'it is base64 text' };
	return undefined;
}
