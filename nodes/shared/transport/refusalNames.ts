/**
 * A refused request (400, 415, 422) whose answer names fields, in any shape (JSON:API `source.pointer`,
 * `errors[]` with field, name or path, RFC 9457 with an `errors` extension, `{"errors": {"email": [...]}}`,
 * "Missing required fields: a, b", "Unknown field x", "x is required"), worded as the Request Names rows
 * (or Import Upload) to set, each one (docs/service-choices.md: "What the nodes send"). The names are
 * paired with what the node sent in namePairing.ts. Linear scans of what the Service wrote. Pure.
 */
import { isRecord } from '../answerShape';
import { parseExactJson } from '../exactJson';
import { pairNames, type PairingRow } from './namePairing';
import { conceptLabel, CONCEPT_IDS, documentedName, REQUEST_CONCEPTS, type RequestConcept } from '../settings/requestConcepts';
import { IMPORT_UPLOAD_SETTING, REQUEST_NAMES_SETTING, type SentName, type SentRequest } from './requestNames';

const MAX_SCANNED = 4000;
const FIELD_KEYS = new Set(['field', 'fields', 'param', 'parameter', 'parameters', 'name', 'pointer', 'path', 'loc', 'location', 'property', 'attribute', 'key']);
/** Where an error body keys its messages by field name (`{"errors": {"email": ["is required"]}}`). */
const KEYED_BY_FIELD = new Set(['errors', 'fields', 'field_errors', 'fielderrors', 'invalid_fields', 'validation_errors', 'validationerrors', 'details']);
const WORD_KEYS = new Set(['message', 'detail', 'title', 'description', 'error_description', 'reason']);

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
					const lower = key.toLowerCase();
					// A JSON pointer (`/data/attributes/url`) also as the dotted path a Request Name takes, and its last part.
					if (typeof inner === 'string' && FIELD_KEYS.has(lower) && inner.startsWith('/')) parts.push(`"${pointerPath(inner).split('.').pop()}" "${pointerPath(inner)}"`);
					else if (typeof inner === 'string' && FIELD_KEYS.has(lower)) parts.push(`"${inner}"`);
					else if (Array.isArray(inner) && FIELD_KEYS.has(lower)) parts.push(...inner.filter((s): s is string => typeof s === 'string').map((s) => `"${s}"`));
					else if (typeof inner === 'string' && WORD_KEYS.has(lower) && inner !== message) parts.push(inner);
					else if (isRecord(inner) && KEYED_BY_FIELD.has(lower) && keyedByField(inner)) {
						for (const [field, said] of Object.entries(inner)) parts.push(`"${field}" ${[said].flat().filter((s) => typeof s === 'string').join(' ')}`);
					} else if (typeof inner === 'object' && inner !== null) next.push(inner);
				}
			}
		}
		level = next;
	}
	const words = parts.join(' ').slice(0, MAX_SCANNED);
	return code ? words.split(code).join(' ') : words;
}

/** `{"email": ["is required"], "name": "is too long"}`: every value words (a text or a list of texts). */
function keyedByField(record: Record<string, unknown>): boolean {
	const values = Object.values(record);
	return values.length > 0 && values.every((value) => typeof value === 'string' || (Array.isArray(value) && value.every((s) => typeof s === 'string')));
}

/** A JSON pointer as a dotted path (`/data/attributes/url` → `data.attributes.url`), `~1` and `~0` decoded. */
function pointerPath(pointer: string): string {
	return pointer.split('/').filter((part) => part !== '').map((part) => part.split('~1').join('/').split('~0').join('~')).join('.');
}

interface Token {
	text: string;
	quoted: boolean;
	/** A run of name characters (letters, digits, `_ . - /`), as opposed to punctuation. */
	word: boolean;
}

const QUOTES: ReadonlyMap<string, string> = new Map([['"', '"'], ['`', '`'], ["'", "'"], ['\u201c', '\u201d'], ['\u2018', '\u2019']]);
const isNameChar = (char: string) => (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || (char >= '0' && char <= '9') || '_.-/$+'.includes(char);

/** The words, quoted names and punctuation of `words`, in one pass. */
function tokens(words: string): Token[] {
	const out: Token[] = [];
	for (let at = 0; at < words.length; ) {
		const char = words[at];
		const close = QUOTES.get(char);
		if (close !== undefined) {
			const end = words.indexOf(close, at + 1);
			const inner = end < 0 ? '' : words.slice(at + 1, end);
			// A quoted name: short, one word (an apostrophe in "don't" is no quote).
			if (end > at + 1 && end - at <= 101 && ![...inner].some((c) => c.trim() === '')) {
				out.push({ text: inner.replace(/^\/+/, ''), quoted: true, word: true });
				at = end + 1;
				continue;
			}
		}
		if (isNameChar(char)) {
			let end = at;
			while (end < words.length && isNameChar(words[end])) end++;
			let text = words.slice(at, end);
			// A sentence's full stop or a dash after a word is not part of it.
			while (text.length > 1 && '.-/'.includes(text[text.length - 1])) text = text.slice(0, -1);
			out.push({ text, quoted: false, word: true });
			at = end;
			continue;
		}
		if (char.trim() !== '') out.push({ text: char, quoted: false, word: false });
		at++;
	}
	return out;
}

/** Words that introduce a list of names ("Missing required fields: a, b", "Unknown field x"). */
const LIST_WORDS = new Set(['field', 'fields', 'parameter', 'parameters', 'param', 'params', 'attribute', 'attributes', 'property', 'properties', 'key', 'keys', 'member', 'members', 'column', 'columns']);
/** What a name is said to be, after "is" or "are" ("x is required", "a and b are missing"). */
const STATES = new Set(['required', 'missing', 'mandatory', 'needed', 'unknown', 'unexpected', 'absent', 'blank', 'empty', 'undefined', 'null', 'unrecognised', 'unrecognized', 'expected', 'allowed', 'permitted', 'supported', 'recognised', 'recognized', 'invalid']);
const UNKNOWN_WORDS = new Set(['unknown', 'unexpected', 'unrecognised', 'unrecognized', 'extra', 'additional', 'unsupported', 'disallowed', 'forbidden']);
/** Words that are never a field's name in a sentence. */
const NOT_NAMES = new Set(['is', 'are', 'was', 'were', 'be', 'been', 'must', 'should', 'shall', 'can', 'cannot', 'may', 'the', 'a', 'an', 'of', 'for', 'in', 'on', 'not', 'has', 'have', 'with', 'to', 'that', 'this', 'these', 'those', 'it', 'its', 'and', 'or', 'nor', 'but', 'please', 'value', 'values', 'required', 'missing', 'unknown', 'following', 'all', 'any', 'some', 'one', 'more', 'no', 'none', 'request', 'body', 'payload', 'json', 'field', 'fields']);
const SEPARATORS = new Set([',', 'and', 'or', '&', '+']);
const DETERMINERS = new Set(['the', 'a', 'an', 'field', 'parameter', 'property', 'attribute', 'key', 'column', 'missing', 'required', 'unknown']);

const nameShaped = (text: string) => text.length <= 100 && /^[A-Za-z_$][\w.$-]*$/.test(text);
/** Written as code: snake_case, camelCase or dotted, never an English word (kebab-case is also prose: "free-mail"). */
const codeShaped = (text: string) => text.length > 1 && (text.includes('_') || /[a-z][A-Z]/.test(text) || (text.includes('.') && !text.endsWith('.')));

/** The names a refusal's words give: quoted, shaped like code, or listed ("fields: a, b") or said ("x is required"). */
export interface RefusalNames {
	/** In the order the words give them. */
	names: string[];
	/** Those said to be unknown to the Service (it does not read them). */
	unknown: Set<string>;
	/** Those listed or said to be missing, unknown or required ("fields: a, b", "x is required"). */
	listed: Set<string>;
	/** Every plain word (to find a name the node sent said as a plain word). */
	plain: Set<string>;
	quoted: Set<string>;
	mediaTypes: Set<string>;
}

export function refusalNames(words: string): RefusalNames {
	const all = tokens(words);
	const names: string[] = [];
	const unknown = new Set<string>();
	const listed = new Set<string>();
	const plain = new Set<string>();
	const quoted = new Set<string>();
	const mediaTypes = new Set<string>();
	const add = (token: Token, isUnknown: boolean, isListed = true) => {
		if (!nameShaped(token.text) || (!token.quoted && NOT_NAMES.has(token.text.toLowerCase()))) return;
		names.push(token.text);
		if (isUnknown) unknown.add(token.text);
		if (isListed) listed.add(token.text);
	};
	const lower = (i: number) => all[i]?.text.toLowerCase() ?? '';
	all.forEach((token, i) => {
		if (token.quoted) quoted.add(token.text);
		if (!token.word) return;
		if (!token.quoted) for (const part of token.text.split(/[/.]/)) if (part !== '') plain.add(part);
		if (/^[a-z]+\/[a-z0-9.+-]+$/i.test(token.text)) mediaTypes.add(token.text.toLowerCase());
		if (token.quoted || codeShaped(token.text)) add(token, [i - 1, i - 2, i - 3].some((j) => UNKNOWN_WORDS.has(lower(j))), false);
		const word = token.text.toLowerCase();
		// "Missing required fields: a, b and c", "Unknown field x": the names listed after the word.
		if (LIST_WORDS.has(word) && !token.quoted) {
			const isUnknown = [i - 1, i - 2, i - 3].some((j) => UNKNOWN_WORDS.has(lower(j)));
			let at = i + 1;
			while (at < all.length && [':', '(', '['].includes(all[at].text)) at++;
			while (at < all.length && all[at].word && (all[at].quoted || !NOT_NAMES.has(lower(at)))) {
				add(all[at], isUnknown);
				if (!SEPARATORS.has(lower(at + 1))) break;
				at += lower(at + 2) === 'and' || lower(at + 2) === 'or' ? 3 : 2;
			}
		}
		// "x is required", "a, b and c are missing", "x is not allowed": the names before the verb.
		if ((word === 'is' || word === 'are') && (STATES.has(lower(i + 1)) || (lower(i + 1) === 'not' && STATES.has(lower(i + 2))))) {
			const isUnknown = UNKNOWN_WORDS.has(lower(i + 1)) || ['allowed', 'permitted', 'supported', 'recognised', 'recognized', 'expected'].includes(lower(i + 2));
			for (let at = i - 1; at >= 0 && all[at].word; ) {
				// A noun after another word ("the work email is missing") is what the field is, not its name.
				const before = lower(at - 1);
				const prose = !all[at].quoted && !codeShaped(all[at].text) && at > 0 && all[at - 1].word && !DETERMINERS.has(before) && !SEPARATORS.has(before);
				if (!prose) add(all[at], isUnknown);
				if (word === 'is' || !SEPARATORS.has(before)) break;
				at -= 2;
			}
		}
	});
	return { names, unknown, listed, plain, quoted, mediaTypes };
}

/** The hint for an upload refused for its form (multipart or CSV body) or its form field. */
function uploadHint(status: number, words: string, found: RefusalNames, upload: NonNullable<SentRequest['upload']>): string | undefined {
	const { quoted, names, mediaTypes } = found;
	const wantsForm = [...mediaTypes].some((type) => type.startsWith('multipart/')) || /\bmultipart\b/i.test(words);
	const wantsCsv = mediaTypes.has('text/csv') || mediaTypes.has('application/csv');
	if (upload.form === 'csv' && (wantsForm || (status === 415 && !wantsCsv))) {
		return `The Service answered ${status}${wantsForm ? ' naming a multipart form' : ' (unsupported media type)'}, but the node sent the CSV as the body (text/csv): set ${IMPORT_UPLOAD_SETTING} to Multipart Form, with the form field the Service names.`;
	}
	if (upload.form === 'multipart' && (wantsCsv || (status === 415 && !wantsForm))) {
		return `The Service answered ${status}${wantsCsv ? ' naming text/csv' : ' (unsupported media type)'}, but the node sent a multipart form: set ${IMPORT_UPLOAD_SETTING} to CSV Body.`;
	}
	if (upload.form !== 'multipart') return undefined;
	const others = [...quoted].filter((name) => name !== upload.field && !name.includes('/') && !/\.csv$/i.test(name));
	if (others.length === 1) {
		return `The Service answered ${status} naming the form field \`${others[0]}\`, but the node sent the file in \`${upload.field}\`: set Import Form Field (${IMPORT_UPLOAD_SETTING}) to \`${others[0]}\`.`;
	}
	if (quoted.has(upload.field) || names.includes(upload.field)) {
		return `The Service answered ${status} naming the form field \`${upload.field}\` the node sent the file in: if it expects another, set Import Form Field (${IMPORT_UPLOAD_SETTING}).`;
	}
	return undefined;
}

/** Words saying a name itself is refused, not its value. */
const NAME_WORDS = ['unknown', 'unexpected', 'unrecognised', 'unrecognized', 'not allowed', 'not permitted', 'not supported', 'unsupported', 'no such'];

const rowOf = (concept: RequestConcept) => `Request Names > ${conceptLabel(concept)}`;
const listed = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');

/**
 * When a refusal (400, 415, 422) names a field, a parameter or a media type, the words that say
 * which setting maps it, row by row; undefined when its words name nothing the node can tie to a setting.
 */
export function namesHint(status: number, words: string, request: SentRequest): string | undefined {
	return refusalHint(status, words, request)?.text;
}

/**
 * `namesHint`, and whether a setting leads (`leads`): false when the refusal names only fields the node
 * sent under their mapped names, where the Service's words about the value come first.
 */
export function refusalHint(status: number, words: string, request: SentRequest): { text: string; leads: boolean } | undefined {
	if (status !== 400 && status !== 415 && status !== 422) return undefined;
	const found = refusalNames(words);
	const hints: string[] = [];
	let leads = false;
	if (request.upload) {
		const upload = uploadHint(status, words, found, request.upload);
		if (upload) hints.push(upload);
		leads ||= upload !== undefined;
	}
	if (request.scope !== undefined) {
		const scoped = scopeHint(status, words, found, request);
		if (scoped) hints.push(scoped.text);
		leads ||= scoped?.leads === true;
	}
	return hints.length ? { text: hints.join(' '), leads } : undefined;
}

function scopeHint(status: number, words: string, found: RefusalNames, request: SentRequest): { text: string; leads: boolean } | undefined {
	const concepts = CONCEPT_IDS.filter((id) => REQUEST_CONCEPTS[id].scope === request.scope && REQUEST_CONCEPTS[id].where !== 'type');
	const sentAs = (concept: RequestConcept) => request.sent.find((s) => s.concept === concept)?.name;
	const sentNames = new Set(request.sent.map((s) => s.name));
	// A JSON:API pointer's `data.attributes.x` is the field `x` (the node puts it there); a path also read as its last name is that name.
	const stripped = found.names.map((name) => (name.startsWith('data.attributes.') ? name.slice('data.attributes.'.length) : name));
	const candidates = [...new Set(stripped)].filter((name) => !sentNames.has(name) && !found.unknown.has(name) && name !== 'data' && name !== 'attributes');
	const unsent = candidates.filter((name) => !(name.includes('.') && candidates.includes(name.split('.').pop()!)));
	const rows: PairingRow[] = concepts.map((id) => ({ id, documented: documentedName(id), label: conceptLabel(id), sent: sentAs(id) }));
	const { pairs, open } = pairNames(unsent, rows);
	const paired = (concept: RequestConcept) => pairs.some((p) => p.row === concept);
	const used = new Set([...pairs.map((p) => p.name), ...open.map((o) => o.name)]);

	// A name the node sent counts as named even as a plain word ("format must be csv"); a row also by what it is ("the work email").
	const mentioned = (name: string) => found.quoted.has(name) || found.plain.has(name);
	const spoken = ` ${words.toLowerCase().split(/[^a-z0-9]+/).join(' ')} `;
	const labelWords = (concept: RequestConcept) => conceptLabel(concept).split('> ').pop()!.toLowerCase();
	const named = (concept: RequestConcept) => spoken.includes(` ${labelWords(concept)} `);
	const refusedSent = request.sent.filter((s) => (mentioned(s.name) || named(s.concept)) && !paired(s.concept));
	const leftover = [...found.quoted].filter((name) => unsent.includes(name) && !used.has(name));
	// The one field sent (or the one the refusal names), beside one name of the Service's own: that name.
	const single = refusedSent.length === 1 ? refusedSent[0].concept : request.sent.length === 1 && !paired(request.sent[0].concept) ? request.sent[0].concept : undefined;
	if (single !== undefined && leftover.length === 1) {
		pairs.push({ name: leftover[0], row: single });
		used.add(leftover[0]);
	}
	// Several fields named by what they are, each followed by its name ("The work email is missing: fill in "email""): paired in order.
	const byWords = refusedSent.filter((s) => !mentioned(s.name) && named(s.concept) && !paired(s.concept));
	const rest = leftover.filter((name) => !used.has(name));
	if (byWords.length > 1 && byWords.length === rest.length) {
		const lower = words.toLowerCase();
		const ordered = [...byWords].sort((a, b) => lower.indexOf(labelWords(a.concept)) - lower.indexOf(labelWords(b.concept)));
		const names = [...rest].sort((a, b) => words.indexOf(a) - words.indexOf(b));
		ordered.forEach((s, i) => {
			pairs.push({ name: names[i], row: s.concept });
			used.add(names[i]);
		});
	}
	// A name the Service requires that reads like no row: the rows it sent that no name was found for, as candidates.
	const unpairedSent = request.sent.filter((s) => !paired(s.concept) && !open.some((o) => o.rows.includes(s.concept)) && REQUEST_CONCEPTS[s.concept].path.length === 1);
	const strays = [...new Set([...leftover, ...unsent.filter((name) => codeShaped(name) || found.quoted.has(name) || found.listed.has(name))])].filter((name) => !used.has(name));
	if (unpairedSent.length > 0 && unpairedSent.length <= 4) {
		// A name the Service lists as a field stands for one of them; a name only shaped like code, when others paired.
		for (const name of strays) if (found.listed.has(name) || pairs.length + open.length > 0) open.push({ name, rows: unpairedSent.map((s) => s.concept) });
	}

	const parts: string[] = [];
	if (pairs.length + open.length > 0) {
		const names = [...pairs.map((p) => p.name), ...open.map((o) => o.name)];
		parts.push(`The Service answered ${status} naming ${listed(names)}, which the node did not send.`);
		for (const { name, row } of pairs) {
			const concept = row as RequestConcept;
			const sent = sentAs(concept);
			parts.push(`Set ${rowOf(concept)} to \`${name}\`${sent ? ` (sent as \`${sent}\`)` : ' (the node sent no value for it)'}.`);
		}
		for (const { name, rows } of open) {
			const choices = rows.map((row) => rowOf(row as RequestConcept));
			parts.push(
				choices.length === 1
					? `\`${name}\` may be what ${choices[0].slice('Request Names > '.length)} is: if so, set ${choices[0]} to \`${name}\`.`
					: `\`${name}\` may be any of ${choices.map((c) => c.slice('Request Names > '.length)).join(', ')}: set the one it is (${choices.join(' or ')}) to \`${name}\`.`,
			);
		}
		parts.push(`(${REQUEST_NAMES_SETTING}.)`);
	}
	// Named by name beside names the node did not send: the Service reads other names (a value problem names only the field).
	const unexplained = refusedSent.filter((s) => mentioned(s.name) && !paired(s.concept) && !open.some((o) => o.rows.includes(s.concept)));
	const others = leftover.filter((name) => !used.has(name));
	const them = (list: readonly SentName[]) => (list.length > 1 ? ['them', 'each'] : ['it', 'it']);
	if (unexplained.length > 0 && others.length > 0) {
		const list = unexplained.map((s) => `\`${s.name}\` (${conceptLabel(s.concept)})`).join(', ');
		const [pronoun, each] = them(unexplained);
		parts.push(`The Service answered ${status} naming ${list}, which the node sent, and ${listed(others)}, which it did not: if the Service calls ${pronoun} otherwise, map ${each} in ${REQUEST_NAMES_SETTING}.`);
	} else if (unexplained.length > 0 && pairs.length === 0 && open.length === 0) {
		// Only names the node sent (a 400 naming `window`): the name or its value; the setting that maps it either way.
		const list = unexplained.map((s) => `\`${s.name}\` (${conceptLabel(s.concept)})`).join(', ');
		const [pronoun, each] = them(unexplained);
		parts.push(`The Service answered ${status} naming ${list}, which the node sent: if the Service reads ${pronoun} under another name, map ${each} in ${REQUEST_NAMES_SETTING}; otherwise check the value sent.`);
		// "Unknown parameter: window" is about the name (the setting leads); "is not a work email address" about the value.
		const lower = words.toLowerCase();
		return { text: parts.join(' '), leads: NAME_WORDS.some((word) => lower.includes(word)) };
	}
	return parts.length ? { text: parts.join(' '), leads: true } : undefined;
}
