/**
 * The published digest of a record (docs/service-choices.md: Verification): SHA-256, SHA-384 or
 * SHA-512, in hex, base64 or base64url, bare, as `alg=value` / `alg:value` (RFC 3230 `Digest`, RFC 9530
 * `Content-Digest` with `:base64:`, SRI's `sha512-`), or an object naming the algorithm. Pure: no n8n types.
 */
import { createHash } from 'node:crypto';

import { compact, decodeBytes, firstOwn, isRecord, kindOf, named, UnreadableVerification, withoutPadding, type Fields } from './encodings';

export type DigestAlgorithm = 'sha256' | 'sha384' | 'sha512';
export const DIGEST_SIZES: Record<DigestAlgorithm, number> = { sha256: 32, sha384: 48, sha512: 64 };
export const DIGEST_LABELS: Record<DigestAlgorithm, string> = { sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };
const READ = 'SHA-256, SHA-384 and SHA-512 are read';
/** Strongest first: of several digests in one value, the strongest known one is checked. */
const STRENGTH: readonly DigestAlgorithm[] = ['sha512', 'sha384', 'sha256'];

/** Where a digest object names its algorithm, and where it keeps the value. */
const DIGEST_ALGORITHM_KEYS = ['alg', 'algorithm', 'type', 'hash_algorithm', 'hashAlgorithm', 'digest_algorithm', 'digestAlgorithm', 'name'];
const DIGEST_VALUE_KEYS = ['value', 'digest', 'hash', 'hex', 'base64', 'b64', 'base64url', 'sha256', 'sha384', 'sha512', 'checksum'];

/** A digest algorithm as Services name it (SHA-512, sha512, sha-512, sha_512, SHA2-512), or undefined. */
export function digestAlgorithmNamed(name: string): DigestAlgorithm | undefined {
	switch (compact(name)) {
		case 'sha256':
		case 'sha2256':
			return 'sha256';
		case 'sha384':
		case 'sha2384':
			return 'sha384';
		case 'sha512':
		case 'sha2512':
			return 'sha512';
		default:
			return undefined;
	}
}

/** The algorithm a field's own name says (`sha512`, `content_sha256`, `sha256_hex`), if any. */
export function digestAlgorithmOfFieldName(field: string): DigestAlgorithm | undefined {
	const name = compact(field);
	return STRENGTH.find((algorithm) => name.includes(algorithm));
}

export function digestOf(bytes: Buffer, algorithm: DigestAlgorithm): Buffer {
	return createHash(algorithm).update(bytes).digest();
}

export interface PublishedDigest {
	algorithm: DigestAlgorithm;
	bytes: Buffer;
}

/** An algorithm said somewhere: where, and in what words. */
export interface Declared {
	field: string;
	value: unknown;
}

/**
 * The digest in `field`'s value. `declared`: the algorithm said elsewhere (a sibling field, the field's
 * own name). Not said anywhere, it is the one whose size the bytes have (32, 48 or 64); anything that
 * cannot be read, or algorithms that disagree, throw UnreadableVerification naming the field.
 */
export function publishedDigest(field: string, value: unknown, declared: readonly Declared[]): PublishedDigest {
	const said: { field: string; algorithm: DigestAlgorithm }[] = [];
	const say = (where: string, name: unknown) => {
		const algorithm = typeof name === 'string' ? digestAlgorithmNamed(name) : undefined;
		if (algorithm === undefined) {
			throw new UnreadableVerification(where, `The Service's ${where} names the digest algorithm ${named(name)}, which cannot be checked here (${READ})`);
		}
		said.push({ field: where, algorithm });
	};
	for (const entry of declared) say(entry.field, entry.value);

	const found = digestText(field, value, say);
	const text = found.text.trim();
	const entries = text.includes(',') ? text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '') : [text];
	const read = entries.map((entry) => prefixed(entry));
	// Of several `alg=value` entries (RFC 9530 allows a list), the strongest one known is checked.
	const known = read.filter((entry) => entry.algorithm === undefined || digestAlgorithmNamed(entry.algorithm) !== undefined);
	if (known.length === 0) say(found.field, read[0].algorithm);
	const chosen = [...known].sort((a, b) => rank(a.algorithm) - rank(b.algorithm))[0];
	if (chosen.algorithm !== undefined) say(found.field, chosen.algorithm);

	const algorithms = [...new Set(said.map((entry) => entry.algorithm))];
	if (algorithms.length > 1) {
		const words = said.map((entry) => `${entry.field} says ${DIGEST_LABELS[entry.algorithm]}`).join(', ');
		throw new UnreadableVerification(said[said.length - 1].field, `The Service's digest algorithms disagree (${words}), so the copy cannot be checked`);
	}
	const lengths = algorithms.length === 1 ? [DIGEST_SIZES[algorithms[0]]] : STRENGTH.map((algorithm) => DIGEST_SIZES[algorithm]);
	const bytes = decodeBytes(structuredBytes(chosen.value), lengths);
	if (bytes === undefined) {
		const wanted = algorithms.length === 1 ? `a ${DIGEST_LABELS[algorithms[0]]} digest (${lengths[0]} bytes` : 'a SHA-256, SHA-384 or SHA-512 digest (32, 48 or 64 bytes';
		throw new UnreadableVerification(
			found.field,
			`The Service's ${found.field} could not be read as ${wanted} in hex, base64 or base64url): it is ${kindOf(chosen.value)}`
				+ (algorithms.length === 1 ? '' : '. Where no algorithm is named, only those sizes tell it'),
		);
	}
	const algorithm = algorithms[0] ?? STRENGTH.find((candidate) => DIGEST_SIZES[candidate] === bytes.length)!;
	return { algorithm, bytes };
}

function rank(algorithm: string | undefined): number {
	const known = algorithm === undefined ? undefined : digestAlgorithmNamed(algorithm);
	return known === undefined ? STRENGTH.length : STRENGTH.indexOf(known);
}

/** The digest's text: flat, or in an object naming its algorithm (`{alg, value}`, `{"sha-512": ...}`), at most three deep. */
function digestText(field: string, value: unknown, say: (where: string, name: unknown) => void, depth = 0): { field: string; text: string } {
	if (typeof value === 'string') return { field, text: value };
	if (!isRecord(value) || depth > 2) {
		throw new UnreadableVerification(field, `The Service's ${field} could not be read as a digest: it is ${kindOf(value)}`);
	}
	const algorithm = firstOwn(value, DIGEST_ALGORITHM_KEYS);
	const inner = firstOwn(value, DIGEST_VALUE_KEYS);
	if (inner !== undefined) {
		if (algorithm !== undefined) say(`${field}.${algorithm.name}`, algorithm.value);
		const byName = digestAlgorithmOfFieldName(inner.name);
		if (byName !== undefined) say(`${field}.${inner.name}`, byName);
		return digestText(`${field}.${inner.name}`, inner.value, say, depth + 1);
	}
	// Keyed by algorithm (`{"sha-512": "..."}`): the strongest known one.
	const keyed = Object.keys(value).filter((key) => digestAlgorithmNamed(key) !== undefined && typeof (value as Fields)[key] === 'string');
	if (keyed.length > 0) {
		const key = keyed.sort((a, b) => rank(a) - rank(b))[0];
		say(`${field}.${key}`, key);
		return { field: `${field}.${key}`, text: value[key] as string };
	}
	throw new UnreadableVerification(field, `The Service's ${field} could not be read as a digest: it is ${kindOf(value)}, none of them a digest value`);
}

/**
 * `alg=value` or `alg:value` split; a bare value is returned whole. Base64 holds no `:` and `=` only at
 * its end, so an `=` or `:` with more text after it can only end an algorithm's name.
 */
function prefixed(entry: string): { algorithm?: string; value: string } {
	// Subresource Integrity (`sha512-<base64>`, as npm's `integrity`): a dash, which base64url also holds, so only these names.
	const sri = /^sha(256|384|512)-/i.exec(entry);
	if (sri !== null) return { algorithm: `sha${sri[1]}`, value: entry.slice(sri[0].length) };
	let cut = -1;
	for (let index = 0; index < entry.length; index++) {
		if (entry[index] === '=' || entry[index] === ':') {
			cut = index;
			break;
		}
	}
	if (cut <= 0) return { value: entry };
	const rest = entry.slice(cut + 1);
	if (entry[cut] === '=' && withoutPadding(rest) === '') return { value: entry };
	return { algorithm: entry.slice(0, cut).trim(), value: rest.trim() };
}

/** An RFC 8941 byte sequence (`:base64:`, as RFC 9530 writes digests) less its colons. */
function structuredBytes(text: string): string {
	return text.length >= 2 && text.startsWith(':') && text.endsWith(':') ? text.slice(1, -1) : text;
}
