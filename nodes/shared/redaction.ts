/**
 * The access token taken out of what the Service sent back: text, bytes, parsed answers, file names
 * and errors. "The token" is every form that decodes to it (tokenMatch.ts). Pure: no n8n types.
 */
import { TokenMatch } from './tokenMatch';

export interface TokenRedactors {
	/** Text with every form of the access token replaced by `***`. */
	redact: (text: string) => string;
	/** The same on bytes, in place of the token's bytes (no decoding); the bytes themselves when it is not in them. */
	redactBytes: (bytes: Buffer) => Buffer;
	/** Every string (and key) of a parsed answer, at any depth; copies only what changed. */
	redactValue: (value: unknown) => unknown;
	/** A file name, also against the token with `/` and `\` made `_` (a name made safe). */
	redactFileName: (name: string) => string;
	/** Every own field of an error, its causes and what they hold, changed in place (see `redactError`). */
	redactError: (error: unknown) => void;
}

/** A token shorter than this is not a real token and would blank out ordinary words. */
export const SHORTEST_TOKEN = 8;
const MASK = '***';
const MASK_BYTES = Buffer.from(MASK, 'latin1');
/** How much of an error is walked: a deeper or larger one loses the rest, unread. */
const MAX_DEPTH = 16;
const MAX_VALUES = 20_000;
export const NOT_CHECKED = '[not shown: too deep to check for the access token]';

const identity: TokenRedactors = {
	redact: (text) => text,
	redactBytes: (bytes) => bytes,
	redactValue: (value) => value,
	redactFileName: (name) => name,
	redactError: () => undefined,
};

/**
 * Text cut at its end (a body read up to a cap, words shortened) with a start of the token of
 * SHORTEST_TOKEN characters or more left at the cut masked too: redact first, then cut, then this.
 */
export function maskCutToken(text: string, token: string): string {
	const secret = token.trim();
	if (secret.length < SHORTEST_TOKEN) return text;
	for (let length = Math.min(secret.length - 1, text.length); length >= SHORTEST_TOKEN; length--) {
		if (text.endsWith(secret.slice(0, length))) return `${text.slice(0, text.length - length)}${MASK}`;
	}
	return text;
}

/** A JSON string literal's value, `"` to `"`; a literal cut at the text's end read up to its last whole escape. */
function literalValue(literal: string, closed: boolean): string | undefined {
	const tries = closed ? [literal] : Array.from({ length: 6 }, (_, cut) => `${literal.slice(0, literal.length - cut)}"`);
	for (const attempt of tries) {
		try {
			const value: unknown = JSON.parse(attempt);
			if (typeof value === 'string') return value;
		} catch {
			// A cut escape: try one character shorter.
		}
	}
	return undefined;
}

/**
 * `text` (bytes read as latin1) with every JSON string literal whose escapes hid the token (`\\u005F`
 * decodes to `\u005F`, which decodes to `_`) written again with it masked; the rest as it was. Only
 * literals with a backslash are parsed: the bytes' own redaction has seen the others whole. A linear scan.
 */
export function redactJsonStrings(text: string, token: string): string {
	const secret = token.trim();
	if (secret.length < SHORTEST_TOKEN || !text.includes('\\')) return text;
	const { redact } = tokenRedactors(secret);
	let out = '';
	let kept = 0;
	let at = text.indexOf('"');
	while (at >= 0) {
		let end = at + 1;
		while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
		const closed = end < text.length;
		const literal = text.slice(at, closed ? end + 1 : text.length);
		const value = literal.includes('\\') ? literalValue(literal, closed) : undefined;
		if (value !== undefined) {
			const clean = closed ? redact(value) : maskCutToken(redact(value), secret);
			if (clean !== value) {
				// Characters past latin1 escaped, so that the text stays one byte per character.
				const written = JSON.stringify(clean).replace(/[\u0100-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
				out += text.slice(kept, at) + (closed ? written : written.slice(0, -1));
				kept = closed ? end + 1 : text.length;
			}
		}
		at = closed ? text.indexOf('"', end + 1) : -1;
	}
	return out + text.slice(kept);
}

export function tokenRedactors(token: string): TokenRedactors {
	const secret = token.trim();
	if (secret.length < SHORTEST_TOKEN) return identity;
	const match = new TokenMatch(secret);

	const masked = (text: string, ranges: Array<[number, number]>) => {
		if (ranges.length === 0) return text;
		let out = '';
		let at = 0;
		for (const [start, end] of ranges) {
			out += text.slice(at, start) + MASK;
			at = end;
		}
		return out + text.slice(at);
	};
	const redact = (text: string) => masked(text, match.rangesInText(text));
	const redactFileName = (name: string) => masked(name, match.rangesInText(name, { foldSlashes: true }));
	const redactBytes = (bytes: Buffer) => {
		const ranges = match.rangesInBytes(bytes);
		if (ranges.length === 0) return bytes;
		const parts: Buffer[] = [];
		let at = 0;
		for (const [start, end] of ranges) {
			parts.push(bytes.subarray(at, start), MASK_BYTES);
			at = end;
		}
		parts.push(bytes.subarray(at));
		return Buffer.concat(parts);
	};
	// Copies only what holds the token: a 100,000-row export is not held twice in memory.
	const redactValue = (value: unknown): unknown => {
		if (typeof value === 'string') return redact(value);
		if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return value;
		if (Array.isArray(value)) {
			const redacted = value.map(redactValue);
			return redacted.some((inner, index) => inner !== value[index]) ? redacted : value;
		}
		const entries = Object.entries(value).map(([key, inner]) => [redact(key), redactValue(inner), key, inner] as const);
		const changed = entries.some(([key, inner, oldKey, oldInner]) => key !== oldKey || inner !== oldInner);
		return changed ? Object.fromEntries(entries.map(([key, inner]) => [key, inner])) : value;
	};
	return { redact, redactBytes, redactValue, redactFileName, redactError: (error) => redactError(error, redact, redactBytes) };
}

/**
 * Walks every own field of an error (enumerable or not: message, description, stack, context,
 * errorResponse, cause, messages, httpCode...), the causes' fields in turn and every object or array
 * they hold, at any depth up to a bound; errors are changed in place (n8n keeps the object it was
 * thrown), other objects replaced by redacted copies when they hold the token. The node's own
 * definition (`node`) is the user's, not the Service's, and is left as it is.
 */
function redactError(error: unknown, redact: (text: string) => string, redactBytes: (bytes: Buffer) => Buffer): void {
	const seen = new WeakSet<object>();
	let budget = MAX_VALUES;
	const clean = (value: unknown, depth: number): unknown => {
		if (typeof value === 'string') return redact(value);
		if (value === null || typeof value !== 'object') return value;
		if (Buffer.isBuffer(value)) return redactBytes(value);
		if (seen.has(value)) return value;
		if (depth > MAX_DEPTH || --budget < 0) return NOT_CHECKED;
		seen.add(value);
		if (value instanceof Error) {
			cleanInPlace(value, depth);
			return value;
		}
		if (Array.isArray(value)) {
			const cleaned = value.map((inner) => clean(inner, depth + 1));
			return cleaned.some((inner, index) => inner !== value[index]) ? cleaned : value;
		}
		if (value instanceof Date) return value;
		const entries = Object.entries(value).map(([key, inner]) => [redact(key), clean(inner, depth + 1), key, inner] as const);
		const changed = entries.some(([key, inner, oldKey, oldInner]) => key !== oldKey || inner !== oldInner);
		if (!changed) return value;
		const copy: Record<string, unknown> = Object.create(null);
		for (const [key, inner] of entries) copy[key] = inner;
		return { ...copy };
	};
	const cleanInPlace = (target: Error, depth: number) => {
		const fields = target as unknown as Record<string, unknown>;
		for (const key of Object.getOwnPropertyNames(target)) {
			if (key === 'node') continue;
			const descriptor = Object.getOwnPropertyDescriptor(target, key);
			if (descriptor === undefined || !('value' in descriptor)) continue;
			const cleaned = clean(descriptor.value, depth + 1);
			if (cleaned === descriptor.value) continue;
			if (descriptor.writable) fields[key] = cleaned;
			else if (descriptor.configurable) Object.defineProperty(target, key, { ...descriptor, value: cleaned });
		}
	};
	if (error !== null && typeof error === 'object') clean(error, 0);
}
