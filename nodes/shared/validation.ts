/**
 * Checks for the identifiers that go into request paths (KE, KS, pack_id, webhook id).
 * Their format is not shown in the spec, so only what could change the path is refused.
 */

/** One path segment's characters, as a regex source: also the By KE mode's check in the editor. */
export const SAFE_SEGMENT_PATTERN = '[A-Za-z0-9._-]+';
const SAFE_SEGMENT = new RegExp(`^${SAFE_SEGMENT_PATTERN}$`);
/** Longer than any identifier a Service hands out: refused before sending (a path that long gets a 414 or 431). */
export const MAX_ID_LENGTH = 256;

/** What kind of value a parameter got, in words: "a number", "a list". */
export function kindOf(value: unknown): string {
	if (value === null || value === undefined) return 'nothing';
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Returns a problem in words, or undefined when `value` is usable as one path segment. */
export function pathSegmentProblem(label: string, value: unknown): string | undefined {
	if (value !== undefined && value !== null && typeof value !== 'string') {
		return `${label} must be text; got ${kindOf(value)}. Enter the ${label} exactly as the Service shows it (an expression may need .toString()).`;
	}
	if (typeof value !== 'string' || value.trim() === '') {
		return `${label} is empty. Enter the ${label} exactly as the Service shows it.`;
	}
	const trimmed = value.trim();
	if (trimmed.length > MAX_ID_LENGTH) {
		return `${label} is ${trimmed.length} characters long, longer than any identifier (at most ${MAX_ID_LENGTH}): check what the field is mapped to.`;
	}
	if (trimmed === '.' || trimmed === '..' || !SAFE_SEGMENT.test(trimmed)) {
		return `${label} "${trimmed}" is malformed: use only letters, digits, ".", "_" and "-".`;
	}
	return undefined;
}

/** Returns a problem in words, or undefined when `value` is an absolute https URL. */
export function httpsUrlProblem(label: string, value: unknown): string | undefined {
	if (value !== undefined && value !== null && typeof value !== 'string') {
		return `${label} must be text; got ${kindOf(value)}. Enter a full address starting with https://.`;
	}
	if (typeof value !== 'string' || value.trim() === '') {
		return `${label} is empty. Enter a full address starting with https://.`;
	}
	// What a parser would quietly repair or read differently is refused, so what is checked is what is sent.
	if (/[\u0000-\u001f\u007f\\]/.test(value.trim())) {
		return `${label} "${JSON.stringify(value.trim()).slice(1, -1)}" holds a backslash or a control character. Enter the address as plain text, with "/" only.`;
	}
	let url: URL;
	try {
		url = new URL(value.trim());
	} catch {
		return `${label} "${value}" is not a valid URL. Enter a full address starting with https://.`;
	}
	if (url.protocol !== 'https:') {
		return `${label} "${value}" uses ${url.protocol.replace(':', '')}; the Service accepts https only.`;
	}
	if (url.username !== '' || url.password !== '') {
		return `${label} holds a user name or password before the host ("user@"). The Service would send every event with them: leave them out.`;
	}
	return undefined;
}

/** The address as the URL parser reads it: what is checked is what is sent. Call after httpsUrlProblem. */
export function normalisedUrl(value: string): string {
	return new URL(value.trim()).href;
}
