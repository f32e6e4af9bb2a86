/**
 * Checks for the identifiers that go into request paths (KE, KS, pack_id, webhook id).
 * Their format is not shown in the spec, so only what could change the path is refused.
 */

const SAFE_SEGMENT = /^[A-Za-z0-9._-]+$/;

/** Returns a problem in words, or undefined when `value` is usable as one path segment. */
export function pathSegmentProblem(label: string, value: unknown): string | undefined {
	if (typeof value !== 'string' || value.trim() === '') {
		return `${label} is empty. Enter the ${label} exactly as the Service shows it.`;
	}
	const trimmed = value.trim();
	if (trimmed === '.' || trimmed === '..' || !SAFE_SEGMENT.test(trimmed)) {
		return `${label} "${trimmed}" is malformed: use only letters, digits, ".", "_" and "-".`;
	}
	return undefined;
}

/** Returns a problem in words, or undefined when `value` is an absolute https URL. */
export function httpsUrlProblem(label: string, value: unknown): string | undefined {
	if (typeof value !== 'string' || value.trim() === '') {
		return `${label} is empty. Enter a full address starting with https://.`;
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
	return undefined;
}
