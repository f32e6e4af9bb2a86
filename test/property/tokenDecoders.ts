/**
 * Decoders a reader of stored run data or logs might apply (URL, JSON, HTML entities, and all three in
 * one pass), written independently of the node's matcher, and the check that the token is in none of
 * their results. Regular expressions are fine here: the inputs are the tests' own.
 */
const NAMED = new Map([
	['sol', '/'], ['plus', '+'], ['period', '.'], ['lowbar', '_'], ['underbar', '_'], ['equals', '='], ['percnt', '%'], ['amp', '&'], ['bsol', '\\'],
]);

const named = (m: string, name: string) => NAMED.get(name.toLowerCase()) ?? m;

export const decodeUrl = (text: string) =>
	text.replace(/%u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
export const decodeJson = (text: string) => text.replace(/\\u([0-9a-f]{4})|\\\//gi, (_, h?: string) => (h ? String.fromCharCode(parseInt(h, 16)) : '/'));
export const decodeHtml = (text: string) =>
	text.replace(/&#x([0-9a-f]+);?|&#([0-9]+);?|&([a-z]+);/gi, (m, h?: string, d?: string, n?: string) =>
		h ? String.fromCodePoint(parseInt(h, 16)) : d ? String.fromCodePoint(parseInt(d, 10)) : named(m, n!),
	);
export const decodeMixed = (text: string) =>
	text.replace(/%u([0-9a-f]{4})|%([0-9a-f]{2})|\\u([0-9a-f]{4})|\\\/|&#x([0-9a-f]+);?|&#([0-9]+);?|&([a-z]+);/gi, (m, u?: string, p?: string, j?: string, h?: string, d?: string, n?: string) => {
		const value = u ?? p ?? j ?? h;
		if (value !== undefined) return String.fromCodePoint(parseInt(value, 16));
		if (d !== undefined) return String.fromCodePoint(parseInt(d, 10));
		if (n !== undefined) return named(m, n);
		return '/';
	});
export const DECODERS = [(text: string) => text, decodeUrl, decodeJson, decodeHtml, decodeMixed];

/** The token is nowhere in `seen`, nor in what any decoder makes of it, nor made safe (`/` and `\` as `_`). */
export function expectNoToken(seen: string, secret: string): void {
	for (const decode of DECODERS) {
		const decoded = decode(seen);
		expect(decoded).not.toContain(secret);
		expect(decoded.replace(/[\\/]/g, '_')).not.toContain(secret.replace(/[\\/]/g, '_'));
	}
}

/** No run of `part` characters of the token, in any decoding: a shortened text keeps no piece of it either. */
export function expectNoTokenPart(seen: string, secret: string, part = 8): void {
	for (const decode of DECODERS) {
		const decoded = decode(seen);
		const pieces = Array.from({ length: secret.length - part + 1 }, (_, at) => secret.slice(at, at + part));
		expect(pieces.filter((piece) => decoded.includes(piece))).toEqual([]);
	}
}

/** Everything n8n could keep of a value: every own field, enumerable or not (an error's message, stack, cause). */
export function allFields(value: unknown, seen = new Set<unknown>()): unknown {
	if (value === null || typeof value !== 'object' || seen.has(value)) return value;
	seen.add(value);
	if (Buffer.isBuffer(value)) return value.toString('latin1');
	if (Array.isArray(value)) return value.map((inner) => allFields(inner, seen));
	const out: Record<string, unknown> = {};
	for (const key of Object.getOwnPropertyNames(value)) {
		if (key === 'node') continue;
		out[key] = allFields((value as Record<string, unknown>)[key], seen);
	}
	return out;
}
