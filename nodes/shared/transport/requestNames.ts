/**
 * The names the nodes put in requests where the spec does not show them (docs/service-choices.md:
 * "What the nodes send"). Callers write bodies and queries in the documented names; `spokenRequest`
 * renames them as the credential's Request Names say, in one place; a refusal naming a field is worded
 * in refusalNames.ts. Pure: no n8n types.
 */
import { randomBytes } from 'node:crypto';

import { isRecord } from '../answerShape';
import { clashIn, namePath, placed } from './envelopes';
import { CONCEPT_IDS, conceptLabel, documentedName, REQUEST_CONCEPTS, type RequestConcept, type RequestScope } from '../settings/requestConcepts';

export type { RequestConcept, RequestScope } from '../settings/requestConcepts';
export { CONCEPT_IDS, conceptLabel, documentedName, REQUEST_CONCEPTS } from '../settings/requestConcepts';

export const REQUEST_NAMES_SETTING = "Request Names under Advanced Settings in the Service API credential";
export const IMPORT_UPLOAD_SETTING = 'Import Upload under Advanced Settings in the Service API credential';

/** How an import file is uploaded: the CSV as the body (documented), or a multipart form with the file in one field. */
export type ImportUpload = { form: 'csv' } | { form: 'multipart'; field: string };

/** A name as the credential gives it: what makes it unusable in a request, if anything. */
export function requestNameProblem(name: string): string | undefined {
	if (name.length > 200) return 'is longer than 200 characters';
	// Control characters and quotes would break a form's header or a query; a name never holds them.
	if (/[\u0000-\u001f\u007f"\\]/.test(name)) return 'holds a quote, a backslash or a control character';
	return undefined;
}

/**
 * Request Names as the credential stores them (`{ name: [{ concept, serviceName }] }`) read into a
 * map, or the problem in words. A row without a name or with an unknown concept is skipped.
 */
export function readRequestNames(stored: unknown): { names: ReadonlyMap<RequestConcept, string> } | { problem: string } {
	const rows = isRecord(stored) && Array.isArray(stored.name) ? stored.name : [];
	const names = new Map<RequestConcept, string>();
	for (const row of rows) {
		if (!isRecord(row) || typeof row.concept !== 'string' || typeof row.serviceName !== 'string') continue;
		const concept = CONCEPT_IDS.find((id) => id === row.concept);
		const name = row.serviceName.trim();
		if (concept === undefined || name === '') continue;
		const problem = requestNameProblem(name);
		if (problem) return { problem: `Request Names: the name for ${conceptLabel(concept)} ${problem}. Enter the name exactly as the Service spells it.` };
		if (names.has(concept)) {
			return { problem: `Request Names maps ${conceptLabel(concept)} twice ("${names.get(concept)}" and "${name}"): keep one row for it.` };
		}
		names.set(concept, name);
	}
	// Two concepts of one request under one name would send one value in place of the other.
	for (const concept of names.keys()) {
		const other = CONCEPT_IDS.find(
			(id) => id !== concept && sameRequestLevel(id, concept) && (names.get(id) ?? documentedName(id)) === names.get(concept),
		);
		if (other !== undefined) {
			return {
				problem: `Request Names sends ${conceptLabel(concept)} and ${conceptLabel(other)} under the same name "${names.get(concept)}": give each its own name.`,
			};
		}
	}
	return { names };
}

function sameRequestLevel(a: RequestConcept, b: RequestConcept): boolean {
	const ca = REQUEST_CONCEPTS[a];
	const cb = REQUEST_CONCEPTS[b];
	return ca.scope === cb.scope && ca.where === cb.where && ca.path.slice(0, -1).join('.') === cb.path.slice(0, -1).join('.');
}

/** A concept put on the wire under a name. */
export interface SentName {
	concept: RequestConcept;
	name: string;
}

export class RequestNamesError extends Error {}

export interface SpokenRequest {
	body?: unknown;
	qs?: Record<string, unknown>;
	/** The concepts this request carries and the names they went under. */
	sent: SentName[];
}

export interface SpeakOptions {
	names: ReadonlyMap<RequestConcept, string>;
	/** The `format` value asking for JSON (credential: JSON Format Value). */
	jsonFormat: string;
}

/**
 * The body and query of a call of `scope` under the names the Service uses: each documented name
 * renamed per Request Names; everything else as it is. A query's `format=json` is asked as the
 * JSON Format Parameter with the JSON Format Value; `format=csv` is the spec's own and stays.
 * Throws RequestNamesError when a renamed field would take the place of another field of the body.
 */
export function spokenRequest(scope: RequestScope | undefined, body: unknown, qs: Record<string, unknown> | undefined, options: SpeakOptions): SpokenRequest {
	const sent: SentName[] = [];
	const nameOf = (concept: RequestConcept) => options.names.get(concept) ?? documentedName(concept);
	if (scope === undefined || Buffer.isBuffer(body) || typeof body === 'string') return { body, qs, sent };
	const concepts = CONCEPT_IDS.filter((id) => REQUEST_CONCEPTS[id].scope === scope);
	const rename = (value: unknown, path: readonly string[]): unknown => {
		if (Array.isArray(value)) return value.map((entry) => rename(entry, path));
		if (!isRecord(value)) return value;
		const level = concepts.filter((id) => REQUEST_CONCEPTS[id].where === 'body' && REQUEST_CONCEPTS[id].path.length === path.length + 1 && path.every((part, i) => REQUEST_CONCEPTS[id].path[i] === part));
		// Every name an own property, a name with dots a path (`data.attributes.url`): envelopes.ts `placed`.
		const out: Array<readonly [readonly string[], unknown]> = [];
		const taken = new Map<string, RequestConcept | undefined>();
		for (const [key, inner] of Object.entries(value)) {
			const concept = level.find((id) => documentedName(id) === key);
			const name = concept === undefined ? key : nameOf(concept);
			const where = concept === undefined ? [key] : namePath(name);
			const clash = [...taken.keys()].find((other) => other === where.join('.') || other.startsWith(`${where.join('.')}.`) || where.join('.').startsWith(`${other}.`));
			if (clash !== undefined) {
				const which = taken.get(clash) ?? concept;
				throw new RequestNamesError(
					`The request would carry two fields named "${name}"${which ? ` (${conceptLabel(which)} is sent under that name)` : ''}: change that row of ${REQUEST_NAMES_SETTING}, or the other field's name.`,
				);
			}
			taken.set(where.join('.'), concept);
			if (concept !== undefined && !sent.some((s) => s.concept === concept)) sent.push({ concept, name });
			out.push([where, rename(inner, concept === undefined ? [...path, key] : REQUEST_CONCEPTS[concept].path)]);
		}
		const clash = clashIn(out);
		if (clash !== undefined) throw new RequestNamesError(`The request would carry two values at "${clash}": change that row of ${REQUEST_NAMES_SETTING}.`);
		return placed(out);
	};
	let spokenQs = qs;
	if (qs !== undefined) {
		// Own properties only: a parameter named `__proto__` is a name like any other, never the prototype.
		const entries: Array<[string, unknown]> = [];
		for (const [key, value] of Object.entries(qs)) {
			let concept: RequestConcept | undefined;
			let spokenValue = value;
			if (key === 'format' && value === 'json' && concepts.includes('export.json_format')) {
				concept = 'export.json_format';
				spokenValue = options.jsonFormat;
			} else if (key !== 'format') {
				concept = concepts.find((id) => REQUEST_CONCEPTS[id].where === 'query' && documentedName(id) === key);
			}
			const name = concept === undefined ? key : nameOf(concept);
			if (concept !== undefined) sent.push({ concept, name });
			entries.push([name, spokenValue]);
		}
		spokenQs = Object.fromEntries(entries);
	}
	return { body: rename(body, []), qs: spokenQs, sent };
}

/** A multipart/form-data body holding one file in `field`, built here (no runtime dependencies). */
export function multipartBody(field: string, fileName: string, type: string, bytes: Buffer): { body: Buffer; contentType: string } {
	const boundary = `----ServiceReader${randomBytes(12).toString('hex')}`;
	const head = `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: ${type}\r\n\r\n`;
	return {
		body: Buffer.concat([Buffer.from(head, 'utf8'), bytes, Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8')]),
		contentType: `multipart/form-data; boundary=${boundary}`,
	};
}

/** What a refused request carried that the Service's words can be held against. */
export interface SentRequest {
	scope?: RequestScope;
	sent: SentName[];
	/** Set for an upload: how the file went. */
	upload?: ImportUpload;
}

const normalised = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The concepts whose value the Service's answer gives back empty although it was sent, under
 * the name sent or one that reads the same (`readerReference` for `reader_reference`): a Service
 * that ignores a field it does not know stores it empty, and this is how that shows.
 */
export function unechoedConcepts(spokenBody: unknown, sent: SentName[], answer: unknown): SentName[] {
	if (!isRecord(spokenBody) || !isRecord(answer)) return [];
	const holder = isRecord(answer.data) && Object.keys(answer).length === 1 ? answer.data : answer;
	const answered = new Map<string, unknown>();
	for (const [key, value] of Object.entries(holder)) answered.set(normalised(key), value);
	return sent.filter(({ concept, name }) => {
		if (REQUEST_CONCEPTS[concept].path.length !== 1 || REQUEST_CONCEPTS[concept].where !== 'body') return false;
		const value = spokenBody[name];
		if (typeof value !== 'string' || value.trim() === '') return false;
		const candidates = [name, documentedName(concept)].map(normalised);
		const found = candidates.find((key) => answered.has(key));
		if (found === undefined) return false;
		// Only an empty value counts: a Service may well store what it got normalised (case, spaces).
		const back = answered.get(found);
		return back === null || back === '';
	});
}
