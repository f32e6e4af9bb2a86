/**
 * Finding what the node needs in an answer whose field names the spec does not show: by the
 * conventional names first, then by shape, and only then "absent", with a sample of what the
 * Service sent. Pure: no n8n types.
 */

export type Fields = Record<string, unknown>;

export function isRecord(value: unknown): value is Fields {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** How deep in an answer a list or a value is looked for (wrappers, envelopes). */
const MAX_DEPTH = 4;
/** Keys of an object that is a list keyed by id or type, e.g. {"ledger_high": {...}, "share_revoked": {...}}. */
const LIST_KEY = /^[A-Za-z0-9_.:@-]{1,200}$/;

/**
 * The list in an answer: the body itself, a list under one of `names`, the one array-valued
 * property, the same inside a wrapper object (`{"data": {...}}`, `{"anything": {...}}`), or, when
 * `keyName` is given, an object whose values are all objects: a list keyed by id or type, each item
 * then holding its key under `keyName` (unless it names it itself).
 */
export function findList(body: unknown, names: readonly string[], keyName?: string, depth = 0): unknown[] | undefined {
	if (Array.isArray(body)) return body;
	if (!isRecord(body) || depth > MAX_DEPTH) return undefined;
	for (const name of names) if (Array.isArray(body[name])) return body[name] as unknown[];
	const arrays = Object.values(body).filter((value) => Array.isArray(value));
	if (arrays.length === 1) return arrays[0] as unknown[];
	if (arrays.length > 1) return undefined;
	const entries = Object.entries(body);
	for (const name of names) {
		const inner = isRecord(body[name]) ? findList(body[name], names, keyName, depth + 1) : undefined;
		if (inner) return inner;
	}
	if (entries.length === 1 && isRecord(entries[0][1])) {
		const inner = findList(entries[0][1], names, keyName, depth + 1);
		if (inner) return inner;
	}
	if (keyName !== undefined && entries.length > 0 && entries.every(([key, value]) => LIST_KEY.test(key) && isRecord(value))) {
		return entries.map(([key, value]) => ({ [keyName]: key, ...(value as Fields) }));
	}
	return undefined;
}

/**
 * The record at any depth of an answer (breadth first, so the outermost wins) that holds one of
 * `names` as text or a number (or what `holds` finds).
 */
export function findRecordWith(body: unknown, names: readonly string[], holds: (record: Fields) => unknown = (record) => findId(record, names)): Fields | undefined {
	let level: Fields[] = isRecord(body) ? [body] : [];
	for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
		for (const record of level) if (holds(record) !== undefined) return record;
		level = level.flatMap((record) => Object.values(record).filter(isRecord));
	}
	return undefined;
}

/** The first string at any depth of an answer (breadth first) that `test` accepts. */
export function findStringDeep(body: unknown, test: (value: string) => boolean): string | undefined {
	let level: Fields[] = isRecord(body) ? [body] : [];
	for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
		for (const record of level) {
			const found = Object.values(record).find((value): value is string => typeof value === 'string' && test(value));
			if (found !== undefined) return found;
		}
		level = level.flatMap((record) => Object.values(record).filter(isRecord));
	}
	return undefined;
}

/**
 * A text field: the first of `names` holding a non-empty string, else the one non-empty string
 * property whose name is not in `exclude` (fields known to mean something else).
 */
export function findText(record: Fields, names: readonly string[], exclude: readonly string[] = []): string | undefined {
	for (const name of names) {
		const value = record[name];
		if (typeof value === 'string' && value.trim() !== '') return value.trim();
	}
	const skip = new Set([...names, ...exclude]);
	const strings = Object.entries(record).filter(([key, value]) => !skip.has(key) && typeof value === 'string' && value.trim() !== '');
	return strings.length === 1 ? (strings[0][1] as string).trim() : undefined;
}

/** The first of `names` holding a string or a number, as a string. */
export function findId(record: Fields, names: readonly string[]): string | undefined {
	for (const name of names) {
		const value = record[name];
		if ((typeof value === 'string' && value.trim() !== '') || typeof value === 'number') return String(value).trim();
	}
	return undefined;
}

/** What the Service sent, trimmed for an error message. */
export function sampleOf(body: unknown, max = 300): string {
	let text: string;
	try {
		text = typeof body === 'string' ? body : JSON.stringify(body);
	} catch {
		text = String(body);
	}
	text = (text ?? String(body)).replace(/\s+/g, ' ');
	return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Names under which services conventionally wrap a list. */
const LIST_NAMES = ['data', 'items', 'results', 'records', 'entries', 'event_types', 'events', 'rows'];

/**
 * The rows of a JSON list answer: a bare array, a list under a conventional name ({"data": [...]},
 * {"items": [...]}, ...), the one array-valued property of the answer, the same inside a wrapper,
 * or an object keyed by id or type, each item keeping its key under `keyName` (docs/service-choices.md).
 */
export function listFromBody(body: unknown, keyName = 'key'): unknown[] {
	// 204 No Content, an empty body (read as {}) or an empty object: a list of nothing.
	if (body === undefined || body === null || body === '' || (isRecord(body) && Object.keys(body).length === 0)) return [];
	const list = findList(body, LIST_NAMES, keyName);
	if (list) return list;
	throw new Error(`The Service answered with something other than a list: ${sampleOf(body)}`);
}
