import { csvLine, defaultCsvFormat } from './csv';

/**
 * Shapes a Service may give its answers where the spec says "not shown", beyond the names a dialect
 * uses: each a parameter of the sandbox, independent of the others.
 */
export interface AnswerShapes {
	/** The catalogue as a list, or as an object keyed by event type. */
	catalogue: 'list' | 'keyed';
	/** How many wrapper objects stand around a created endpoint (0: the endpoint itself). */
	endpointNesting: number;
	/** The invitation import's per-row answer as JSON, or as CSV (text/csv). */
	importAs: 'json' | 'csv';
	/** Setting SSO without a recent passkey: 403 with a code, or 401 with `WWW-Authenticate: Passkey`. */
	passkeyStatus: 401 | 403;
}

export const defaultAnswerShapes: AnswerShapes = { catalogue: 'list', endpointNesting: 0, importAs: 'json', passkeyStatus: 403 };

type Fields = Record<string, unknown>;
const isFields = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value);
const WRAPPERS = ['result', 'webhook', 'endpoint', 'payload'];

/** The list in a worded answer, and how to put another value in its place. */
function listIn(body: unknown): { list: Fields[]; put: (value: unknown) => unknown } | undefined {
	if (Array.isArray(body)) return { list: body as Fields[], put: (value) => value };
	if (!isFields(body)) return undefined;
	const key = Object.keys(body).find((name) => Array.isArray(body[name]));
	return key === undefined ? undefined : { list: body[key] as Fields[], put: (value) => ({ ...body, [key]: value }) };
}

/** A JSON answer of `method path` shaped as `shapes` says: the body to send, or CSV text. */
export function shapeAnswer(shapes: AnswerShapes, method: string, path: string, body: unknown): { json: unknown } | { csv: string } {
	if (path === '/v1/reader/webhooks/catalogue' && shapes.catalogue === 'keyed') {
		const found = listIn(body);
		if (found) {
			const keyed: Record<string, unknown> = {};
			for (const entry of found.list) {
				const typeKey = ['event_type', 'type'].find((name) => typeof entry[name] === 'string')!;
				const { [typeKey]: type, ...rest } = entry;
				keyed[type as string] = rest;
			}
			return { json: found.put(keyed) };
		}
	}
	if (path === '/v1/reader/webhooks' && method === 'POST' && shapes.endpointNesting > 0) {
		let wrapped = body;
		for (let depth = shapes.endpointNesting - 1; depth >= 0; depth--) wrapped = { [WRAPPERS[depth % WRAPPERS.length]]: wrapped };
		return { json: wrapped };
	}
	if (path === '/v1/reader/invitations/imports' && shapes.importAs === 'csv') {
		const found = listIn(body);
		if (found) {
			// CSV cannot nest: the row's own data stays out.
			const columns = [...new Set(found.list.flatMap((row) => Object.keys(row).filter((key) => !isFields(row[key]))))];
			const lines = found.list.map((row) => csvLine(columns.map((column) => row[column] as string | number | boolean | undefined)));
			return { csv: csvLine(columns, defaultCsvFormat) + lines.join('') };
		}
	}
	return { json: body };
}
