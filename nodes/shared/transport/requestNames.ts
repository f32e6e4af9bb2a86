/**
 * The names the nodes put in requests where the spec does not show them (docs/service-choices.md:
 * "What the nodes send"). Callers write bodies and queries in the documented names; `spokenRequest`
 * renames them as the credential's Request Names say, in one place, and `namesHint` words a
 * refusal that names a field the node did (or did not) send. Pure: no n8n types.
 */
import { randomBytes } from 'node:crypto';

import { isRecord } from '../answerShape';
import { clashIn, namePath, placed } from './envelopes';
import { CONCEPT_IDS, conceptLabel, documentedName, REQUEST_CONCEPTS, type RequestConcept, type RequestScope } from '../settings/requestConcepts';
import { parseExactJson } from '../exactJson';

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

const MAX_SCANNED = 4000;
const FIELD_KEYS = new Set(['field', 'fields', 'param', 'parameter', 'parameters', 'name', 'pointer', 'path', 'loc', 'location', 'property', 'attribute', 'key']);
const normalised = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The words of an error body that may name a field: its message and code, and values under field-like keys, capped. */
export function errorBodyWords(text: string, message: string | undefined, code: string | undefined): string {
	const parts: string[] = [];
	if (message) parts.push(message);
	let parsed: unknown;
	try {
		parsed = parseExactJson(text);
	} catch {
		if (!message) parts.push(text);
	}
	// Field names of problem+json `invalid-params`, JSON:API `source.pointer`, `errors[].field` and the like.
	let level: unknown[] = [parsed];
	for (let depth = 0; depth < 5 && level.length > 0 && parts.join(' ').length < MAX_SCANNED; depth++) {
		const next: unknown[] = [];
		for (const value of level.slice(0, 200)) {
			if (Array.isArray(value)) next.push(...value);
			else if (isRecord(value)) {
				for (const [key, inner] of Object.entries(value)) {
					// A JSON pointer (`/data/attributes/url`) also as the dotted path a Request Name takes, and its last part.
					if (typeof inner === 'string' && FIELD_KEYS.has(key.toLowerCase()) && inner.startsWith('/')) parts.push(`"${pointerPath(inner).split('.').pop()}" "${pointerPath(inner)}"`);
					else if (typeof inner === 'string' && FIELD_KEYS.has(key.toLowerCase())) parts.push(`"${inner}"`);
					else if (Array.isArray(inner) && FIELD_KEYS.has(key.toLowerCase())) parts.push(...inner.filter((s): s is string => typeof s === 'string').map((s) => `"${s}"`));
					else if (typeof inner === 'string' && /^(message|detail|title|description|error_description|reason)$/i.test(key) && inner !== message) parts.push(inner);
					else if (typeof inner === 'object' && inner !== null) next.push(inner);
				}
			}
		}
		level = next;
	}
	const words = parts.join(' ').slice(0, MAX_SCANNED);
	return code ? words.split(code).join(' ') : words;
}

/** A JSON pointer as a dotted path (`/data/attributes/url` → `data.attributes.url`), `~1` and `~0` decoded. */
function pointerPath(pointer: string): string {
	return pointer.split('/').filter((part) => part !== '').map((part) => part.split('~1').join('/').split('~0').join('~')).join('.');
}

/** Quoted segments and identifier-like words (snake_case, camelCase, kebab-case) of `words`, and media types. */
function namesIn(words: string): { quoted: Set<string>; identifiers: Set<string>; mediaTypes: Set<string>; plain: Set<string> } {
	const quoted = new Set<string>();
	const identifiers = new Set<string>();
	const plain = new Set<string>();
	const mediaTypes = new Set<string>();
	// Linear scans only: the Service controls these words.
	for (const quote of ['"', '`', "'", '\u201c']) {
		const close = quote === '\u201c' ? '\u201d' : quote;
		let at = words.indexOf(quote);
		while (at >= 0) {
			const end = words.indexOf(close, at + 1);
			if (end < 0) break;
			const inner = words.slice(at + 1, end).trim();
			if (inner !== '' && inner.length <= 100 && !/\s/.test(inner)) quoted.add(inner.replace(/^\/+/, ''));
			at = words.indexOf(quote, end + 1);
		}
	}
	for (const token of words.split(/[^A-Za-z0-9_.\-/+]+/)) {
		if (token.length === 0 || token.length > 100) continue;
		if (/^[a-z]+\/[a-z0-9.+-]+$/i.test(token)) mediaTypes.add(token.toLowerCase());
		for (const part of token.split(/[/.]/)) {
			plain.add(part);
			if (part.length > 1 && (part.includes('_') || /[a-z][A-Z]/.test(part)) && /^[A-Za-z][\w-]*$/.test(part)) identifiers.add(part);
		}
	}
	return { quoted, identifiers, mediaTypes, plain };
}

/**
 * When a refusal (400, 415, 422) names a field, a parameter or a media type, the words that say
 * which setting maps it; undefined when its words name nothing the node can tie to a setting.
 */
export function namesHint(status: number, words: string, request: SentRequest): string | undefined {
	if (status !== 400 && status !== 415 && status !== 422) return undefined;
	const { quoted, identifiers, mediaTypes, plain } = namesIn(words);
	const hints: string[] = [];
	const upload = request.upload;
	if (upload) {
		const wantsForm = [...mediaTypes].some((type) => type.startsWith('multipart/')) || /\bmultipart\b/i.test(words);
		const wantsCsv = mediaTypes.has('text/csv') || mediaTypes.has('application/csv');
		if (upload.form === 'csv' && (wantsForm || (status === 415 && !wantsCsv))) {
			hints.push(`The Service answered ${status}${wantsForm ? ' naming a multipart form' : ' (unsupported media type)'}, but the node sent the CSV as the body (text/csv): set ${IMPORT_UPLOAD_SETTING} to Multipart Form, with the form field the Service names.`);
		} else if (upload.form === 'multipart' && (wantsCsv || (status === 415 && !wantsForm))) {
			hints.push(`The Service answered ${status}${wantsCsv ? ' naming text/csv' : ' (unsupported media type)'}, but the node sent a multipart form: set ${IMPORT_UPLOAD_SETTING} to CSV Body.`);
		} else if (upload.form === 'multipart') {
			const others = [...quoted].filter((name) => name !== upload.field && !name.includes('/') && !/\.csv$/i.test(name));
			if (others.length === 1) {
				hints.push(`The Service answered ${status} naming the form field \`${others[0]}\`, but the node sent the file in \`${upload.field}\`: set Import Form Field (${IMPORT_UPLOAD_SETTING}) to \`${others[0]}\`.`);
			} else if (quoted.has(upload.field) || identifiers.has(upload.field)) {
				hints.push(`The Service answered ${status} naming the form field \`${upload.field}\` the node sent the file in: if it expects another, set Import Form Field (${IMPORT_UPLOAD_SETTING}).`);
			}
		}
	}
	if (request.scope !== undefined) {
		const scope = request.scope;
		const concepts = CONCEPT_IDS.filter((id) => REQUEST_CONCEPTS[id].scope === scope && REQUEST_CONCEPTS[id].where !== 'type');
		const sentNames = new Set(request.sent.map((s) => s.name));
		// A name the node sent counts as named even as a plain word ("format must be csv").
		const mentioned = (name: string) => quoted.has(name) || plain.has(name);
		const unsent = [...new Set([...quoted, ...identifiers])].filter((name) => !sentNames.has(name) && /^[A-Za-z][\w.-]*$/.test(name));
		const pairs: Array<{ concept: RequestConcept; name: string }> = [];
		const paired = new Set<string>();
		for (const name of unsent) {
			// A path (`data.attributes.url`) reads as its last part.
			const last = normalised(name.split('.').pop() ?? name);
			const concept = concepts.find((id) => [documentedName(id), request.sent.find((s) => s.concept === id)?.name ?? ''].some((known) => normalised(known) === normalised(name) || normalised(known.split('.').pop() ?? '') === last));
			if (concept !== undefined && !pairs.some((p) => p.concept === concept)) {
				pairs.push({ concept, name });
				paired.add(name);
			}
		}
		// Or by what it is ("The work email is missing"): the label's last part, as whole words.
		const spoken = ` ${words.toLowerCase().split(/[^a-z0-9]+/).join(' ')} `;
		const named = (concept: RequestConcept) => spoken.includes(` ${conceptLabel(concept).split('> ').pop()!.toLowerCase()} `);
		const refusedSent = request.sent.filter((s) => (mentioned(s.name) || named(s.concept)) && !pairs.some((p) => p.concept === s.concept));
		const leftover = [...quoted].filter((name) => unsent.includes(name) && !paired.has(name));
		const single = refusedSent.length === 1 ? refusedSent[0].concept : request.sent.length === 1 && !pairs.some((p) => p.concept === request.sent[0].concept) ? request.sent[0].concept : undefined;
		if (single !== undefined && leftover.length === 1) {
			pairs.push({ concept: single, name: leftover[0] });
			paired.add(leftover[0]);
		}
		// Several fields named by what they are, each followed by its name ("The work email is missing: fill in "email""): paired in order.
		const lower = words.toLowerCase();
		const byWords = refusedSent.filter((s) => !mentioned(s.name) && named(s.concept) && !pairs.some((p) => p.concept === s.concept));
		const rest = leftover.filter((name) => !paired.has(name));
		if (byWords.length > 1 && byWords.length === rest.length) {
			const at = (s: SentName) => lower.indexOf(conceptLabel(s.concept).split('> ').pop()!.toLowerCase());
			const ordered = [...byWords].sort((a, b) => at(a) - at(b));
			const names = [...rest].sort((a, b) => words.indexOf(a) - words.indexOf(b));
			ordered.forEach((s, i) => {
				pairs.push({ concept: s.concept, name: names[i] });
				paired.add(names[i]);
			});
		}
		for (const { concept, name } of pairs) {
			const sentAs = request.sent.find((s) => s.concept === concept)?.name;
			hints.push(
				`The Service answered ${status} naming \`${name}\`, which the node did not send${sentAs ? ` (it sent ${conceptLabel(concept)} as \`${sentAs}\`)` : ''}: map ${conceptLabel(concept)} to \`${name}\` in ${REQUEST_NAMES_SETTING}.`,
			);
		}
		// Named by name beside names the node did not send: the Service reads other names (a value problem names only the field).
		const unexplained = refusedSent.filter((s) => mentioned(s.name) && !pairs.some((p) => p.concept === s.concept));
		const others = leftover.filter((name) => !paired.has(name));
		if (unexplained.length > 0 && others.length > 0) {
			const list = unexplained.map((s) => `\`${s.name}\` (${conceptLabel(s.concept)})`).join(', ');
			hints.push(
				`The Service answered ${status} naming ${list}, which the node sent, and ${others.map((n) => `\`${n}\``).join(', ')}, which it did not: if the Service calls ${unexplained.length > 1 ? 'them' : 'it'} otherwise, map ${unexplained.length > 1 ? 'each' : 'it'} in ${REQUEST_NAMES_SETTING}.`,
			);
		} else if (unexplained.length > 0 && pairs.length === 0) {
			// Only names the node sent (a 400 naming `window`): the name or its value; the setting that maps it either way.
			const list = unexplained.map((s) => `\`${s.name}\` (${conceptLabel(s.concept)})`).join(', ');
			hints.push(
				`The Service answered ${status} naming ${list}, which the node sent: if the Service reads ${unexplained.length > 1 ? 'them' : 'it'} under another name, map ${unexplained.length > 1 ? 'each' : 'it'} in ${REQUEST_NAMES_SETTING}; otherwise check the value sent.`,
			);
		}
	}
	return hints.length ? hints.join(' ') : undefined;
}

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
