/**
 * What the verification parts share: the loud error naming a field, byte decoding (hex, base64,
 * base64url), and words for a value that never repeat the value itself. Pure: no n8n types.
 */

/** What the Service sent that the check cannot read: names the field; the check did not run. */
export class UnreadableVerification extends Error {
	constructor(
		readonly field: string,
		message: string,
	) {
		super(message);
	}
}

export type Fields = Record<string, unknown>;
export const isRecord = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value);
export const own = (record: Fields, name: string) => Object.prototype.hasOwnProperty.call(record, name);

/** The first of `names` the object holds (not null), with its name. */
export function firstOwn(record: Fields, names: readonly string[]): { name: string; value: unknown } | undefined {
	for (const name of names) if (own(record, name) && record[name] !== null && record[name] !== undefined) return { name, value: record[name] };
	return undefined;
}

/**
 * Text as bytes of one of `lengths`: hex (any case), or canonical base64 or base64url (padding optional).
 * Hex is read first: 64 hex characters are 32 bytes, never base64 of 48 (a base64 text of only hex
 * digits happens about once in 10^30), so nothing is guessed.
 */
export function decodeBytes(text: string, lengths: readonly number[]): Buffer | undefined {
	const value = text.trim();
	if (/^[0-9a-fA-F]+$/.test(value) && value.length % 2 === 0 && lengths.includes(value.length / 2)) return Buffer.from(value, 'hex');
	const bytes = decodeBase64(value);
	return bytes !== undefined && lengths.includes(bytes.length) ? bytes : undefined;
}

/** Canonical base64 or base64url, padded or not: the text must be exactly what its bytes encode to. */
export function decodeBase64(text: string): Buffer | undefined {
	if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
	const unpadded = withoutPadding(text).replace(/-/g, '+').replace(/_/g, '/');
	const bytes = Buffer.from(unpadded, 'base64');
	return withoutPadding(bytes.toString('base64')) === unpadded ? bytes : undefined;
}

/** Hex (an even number of hex digits) or else canonical base64/base64url, of any length. */
export function decodeAnyBytes(text: string): Buffer | undefined {
	const value = text.trim();
	if (/^[0-9a-fA-F]+$/.test(value) && value.length % 2 === 0) return Buffer.from(value, 'hex');
	return decodeBase64(value);
}

/** Base64 text less its trailing `=` padding. */
export function withoutPadding(text: string): string {
	let end = text.length;
	while (end > 0 && text[end - 1] === '=') end--;
	return text.slice(0, end);
}

/** A value in a few words, never the value itself (it may be long, or a secret sent by mistake). */
export function kindOf(value: unknown): string {
	if (typeof value === 'string') {
		const bytes = decodeAnyBytes(value);
		return bytes === undefined ? `text of ${value.length} characters` : `text of ${value.length} characters (${bytes.length} bytes decoded)`;
	}
	if (value === null) return 'null';
	if (Array.isArray(value)) return `a list of ${value.length}`;
	if (isRecord(value)) return `an object with the fields ${Object.keys(value).slice(0, 10).join(', ')}`;
	return `a ${typeof value}`;
}

/** A short name (an algorithm's) quoted; anything longer said by its kind. */
export function named(value: unknown): string {
	return typeof value === 'string' && value.length <= 40 && /^[\x20-\x7e]*$/.test(value) ? JSON.stringify(value) : kindOf(value);
}

/** A name reduced to its letters and digits, lower case: `SHA-512`, `sha_512` and `sha512` alike. */
export function compact(name: string): string {
	return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}
