import { HttpError } from './httpError';
import type { RequestConcept } from '../../nodes/shared/transport/requestNames';
import { documentedName, REQUEST_CONCEPTS } from '../../nodes/shared/transport/requestNames';

/**
 * The request side of a dialect: the names this Service reads for what the nodes send (the spec
 * shows none of them), what it does with a name it does not know, and how it takes an import file.
 */
export interface RequestDialect {
	/** The Service's name for each concept it names otherwise than documented. */
	names: Partial<Record<RequestConcept, string>>;
	/** A name it does not know: refused with 400/422 naming the field, or ignored (as many Services do). */
	unknownNames: 'refuse' | 'ignore';
	/**
	 * How a refusal names fields: the unknown ones it got and the ones it reads (`unknown`, the default),
	 * or only the required ones it misses, in words ("Missing required fields: name, registration_no, email").
	 */
	refusalWords?: 'unknown' | 'missing';
	/** The import file as the body (`text/csv`), or in one field of a multipart form. */
	importUpload: { form: 'csv' } | { form: 'multipart'; field: string };
}

export const defaultRequestDialect: RequestDialect = { names: {}, unknownNames: 'refuse', importUpload: { form: 'csv' } };

/** What a request may leave out; everything else at its level is required where the refusal lists what it misses. */
const OPTIONAL: ReadonlySet<RequestConcept> = new Set(['invitation.reader_reference', 'sso.group_role_mapping']);

export function nameFor(request: RequestDialect, concept: RequestConcept): string {
	return request.names[concept] ?? documentedName(concept);
}

/**
 * A JSON body of `scope` in the documented names, as the routes read it: each of this Service's
 * names mapped back; a documented name it spells otherwise is refused naming the field (400, or
 * `status`), or dropped; other fields are left for the route to judge.
 */
export function canonicalBody(
	request: RequestDialect,
	scope: string,
	body: Record<string, unknown>,
	options: { status?: number } = {},
): Record<string, unknown> {
	const renamed = (path: readonly string[], value: unknown): unknown => {
		if (Array.isArray(value)) return value.map((entry) => renamed(path, entry));
		if (value === null || typeof value !== 'object') return value;
		const concepts = (Object.keys(REQUEST_CONCEPTS) as RequestConcept[]).filter((id) => {
			const concept = REQUEST_CONCEPTS[id];
			return concept.scope === scope && concept.where === 'body' && concept.path.length === path.length + 1 && path.every((p, i) => concept.path[i] === p);
		});
		const out: Record<string, unknown> = {};
		const unknown: string[] = [];
		for (const [key, inner] of Object.entries(value)) {
			const concept = concepts.find((id) => nameFor(request, id) === key);
			if (concept !== undefined) out[documentedName(concept)] = renamed(REQUEST_CONCEPTS[concept].path, inner);
			// A documented name this Service spells otherwise is not known here; any other field is the route's to judge.
			else if (concepts.some((id) => documentedName(id) === key)) unknown.push(key);
			else out[key] = inner;
		}
		// The required fields this Service reads that the body lacks, in its names, as many Services word it.
		const missing = concepts.filter((id) => !OPTIONAL.has(id) && !Object.prototype.hasOwnProperty.call(value, nameFor(request, id)));
		if (unknown.length && request.unknownNames === 'refuse' && request.refusalWords === 'missing' && missing.length > 0) {
			throw new HttpError(options.status ?? 400, 'invalid_request', `Missing required fields: ${missing.map((id) => nameFor(request, id)).join(', ')}`);
		}
		if (unknown.length && request.unknownNames === 'refuse') {
			const expected = concepts.map((id) => `"${nameFor(request, id)}"`).join(', ');
			throw new HttpError(
				options.status ?? 400,
				'unknown_field',
				`Unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}: the fields are ${expected}.`,
			);
		}
		return out;
	};
	return renamed([], body) as Record<string, unknown>;
}

/** Words of a route written with the documented names, in this Service's names (quoted). */
export function spokenWords(request: RequestDialect, scope: string, words: string): string {
	let out = words;
	for (const [concept, name] of Object.entries(request.names) as Array<[RequestConcept, string]>) {
		if (REQUEST_CONCEPTS[concept].scope !== scope) continue;
		const documented = documentedName(concept);
		out = out.replace(new RegExp(`"?\\b${documented}\\b"?`, 'g'), `"${name}"`);
	}
	return out;
}

/** The CSV of an import as this Service takes it, or a 415/422 naming what it expects. */
export function importFile(request: RequestDialect, contentType: string, body: Buffer): Buffer {
	const type = contentType.split(';')[0].trim().toLowerCase();
	const upload = request.importUpload;
	if (upload.form === 'csv') {
		if (type === 'multipart/form-data') throw new HttpError(415, 'unsupported_media_type', 'Send the import as the request body with Content-Type text/csv, not as a form.');
		return body;
	}
	if (type !== 'multipart/form-data') {
		throw new HttpError(415, 'unsupported_media_type', `Send the import as multipart/form-data with the CSV file in the field "${upload.field}".`);
	}
	const boundary = /boundary=("?)([^";]+)\1/i.exec(contentType)?.[2];
	if (!boundary) throw new HttpError(400, 'invalid_form', 'The form has no boundary.');
	const text = body.toString('latin1');
	const fields = new Map<string, Buffer>();
	for (const part of text.split(`--${boundary}`).slice(1, -1)) {
		const headEnd = part.indexOf('\r\n\r\n');
		const name = /name="([^"]*)"/.exec(part.slice(0, headEnd))?.[1];
		if (name !== undefined) fields.set(name, Buffer.from(part.slice(headEnd + 4, part.length - 2), 'latin1'));
	}
	const file = fields.get(upload.field);
	if (file === undefined) {
		const sent = [...fields.keys()].map((name) => `"${name}"`).join(', ');
		if (request.unknownNames === 'refuse' || fields.size === 0) {
			throw new HttpError(422, 'missing_file', `No CSV file in the form field "${upload.field}"${sent ? `; the form had ${sent}` : ''}.`);
		}
		throw new HttpError(422, 'missing_file', `The form field "${upload.field}" is missing: attach the CSV file there.`);
	}
	return file;
}

/** A JSON body the Service received, in the documented names (what tests compare with). */
export function documentedBody(request: RequestDialect, scope: string, text: string): Record<string, unknown> {
	return canonicalBody({ ...request, unknownNames: 'ignore' }, scope, JSON.parse(text) as Record<string, unknown>);
}

/** The CSV file of an import request the Service received, whatever the upload form. */
export function uploadedCsv(request: RequestDialect, received: { headers: Record<string, unknown>; body: string }): string {
	return importFile(request, String(received.headers['content-type'] ?? ''), Buffer.from(received.body, 'utf8')).toString('utf8');
}
