/**
 * Finding what the node needs in an answer whose field names the spec does not show: by the
 * conventional names first, then by shape, and only then "absent", with a sample of what the
 * Service sent. Pure: no n8n types.
 */

export type Fields = Record<string, unknown>;

export function isRecord(value: unknown): value is Fields {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The list in an answer: the body itself, a list under one of `names`, or the one array-valued property. */
export function findList(body: unknown, names: readonly string[]): unknown[] | undefined {
	if (Array.isArray(body)) return body;
	if (!isRecord(body)) return undefined;
	for (const name of names) if (Array.isArray(body[name])) return body[name] as unknown[];
	const arrays = Object.values(body).filter((value) => Array.isArray(value));
	return arrays.length === 1 ? (arrays[0] as unknown[]) : undefined;
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
