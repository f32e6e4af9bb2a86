/**
 * An address the Service names (a redirect's Location, a job's status or result URL) checked as the
 * URL that would be requested: after parsing, which drops tabs and line breaks, reads `\` as `/`,
 * resolves `./` and `x/../`, and splits off a user name and password (a client would send those as
 * `Authorization: Basic`). Pure: no n8n types.
 */

export type NamedUrl = { url: URL } | { refused: 'unreadable' | 'userinfo' | 'token' };

/** A percent-decoding that never throws: a malformed escape leaves the text as it is. */
function decoded(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

/**
 * `reference` read against `base`, refused when it cannot be read, carries a user name or password,
 * or holds the access token in any part (host, path, query, fragment) as sent, as parsed or decoded.
 */
export function namedUrl(reference: string, base: string, holdsToken: (text: string) => boolean): NamedUrl {
	if (holdsToken(reference)) return { refused: 'token' };
	if (reference.trim() === '' || !URL.canParse(reference, base)) return { refused: 'unreadable' };
	const url = new URL(reference, base);
	if (url.username !== '' || url.password !== '') return { refused: 'userinfo' };
	const parts = [url.href, url.host, url.pathname, url.search, url.hash];
	if (parts.some((part) => holdsToken(part) || holdsToken(decoded(part)))) return { refused: 'token' };
	return { url };
}
