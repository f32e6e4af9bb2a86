/**
 * Checks a locally held copy of a signed record against the Service's verification answer
 * (docs/service-choices.md: Verification). Pure: no n8n types; node's crypto only.
 * Both checks run on the exact bytes: a copy that was re-serialised or re-encoded fails, which is
 * the point, since the signature covers the file as published.
 */
import { createHash, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';

export type VerificationAnswer = Record<string, unknown>;

export interface CopyCheck {
	copy_matches: boolean;
	copy_reason: string;
	copy_sha256: string;
}

/** What the Service sent that the check cannot read: names the field; the check did not run. */
export class UnreadableVerification extends Error {
	constructor(
		readonly field: string,
		message: string,
	) {
		super(message);
	}
}

// DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Where the answer may hold each part, flat or as an object (`{"digest": {"alg", "value"}}`). */
const KEY_NAMES = ['public_key', 'publicKey', 'verification_key', 'verificationKey', 'signing_key', 'jwk', 'key'];
const DIGEST_NAMES = ['sha256', 'sha_256', 'sha256_hex', 'digest', 'hash', 'content_sha256', 'checksum'];
const SIGNATURE_NAMES = ['signature', 'sig', 'signature_value', 'signatureValue'];
const ALGORITHM_NAMES = ['algorithm', 'alg', 'signature_algorithm', 'signatureAlgorithm'];
/** Where an object holding one value keeps it (`{"value": ...}`). */
const VALUE_NAMES = ['value', 'sha256', 'hex', 'base64', 'b64', 'base64url', 'digest', 'signature', 'pem', 'der', 'raw', 'key', 'public_key', 'publicKey', 'jwk'];

type Fields = Record<string, unknown>;
const isRecord = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value);
const own = (record: Fields, name: string) => Object.prototype.hasOwnProperty.call(record, name);

/**
 * Text as bytes of one of `lengths`: hex, or canonical base64 or base64url (padding optional). Which one
 * is plain from the length (64 hex characters are 32 bytes, never base64 of 48), so nothing is guessed.
 */
export function decodeBytes(text: string, lengths: readonly number[]): Buffer | undefined {
	const value = text.trim();
	if (/^[0-9a-fA-F]+$/.test(value) && lengths.includes(value.length / 2)) return Buffer.from(value, 'hex');
	if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return undefined;
	const unpadded = withoutPadding(value);
	const bytes = Buffer.from(unpadded.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
	if (!lengths.includes(bytes.length)) return undefined;
	// Canonical only: the text must be exactly what the bytes encode to.
	const canonical = withoutPadding(bytes.toString('base64'));
	return canonical === unpadded.replace(/-/g, '+').replace(/_/g, '/') ? bytes : undefined;
}

/** Base64 text less its trailing `=` padding. */
function withoutPadding(text: string): string {
	let end = text.length;
	while (end > 0 && text[end - 1] === '=') end--;
	return text.slice(0, end);
}

/** The first of `names` the answer holds (not null), with its name. */
function part(answer: Fields, names: readonly string[]): { name: string; value: unknown } | undefined {
	for (const name of names) if (own(answer, name) && answer[name] !== null && answer[name] !== undefined) return { name, value: answer[name] };
	return undefined;
}

/** A value given flat or in an object holding it (`{"value": ...}`, `{"alg": ..., "hex": ...}`), as text. */
function textOf(value: unknown, depth = 0): string | undefined {
	if (typeof value === 'string') return value;
	if (!isRecord(value) || depth > 2) return undefined;
	const inner = part(value, VALUE_NAMES);
	return inner === undefined ? undefined : textOf(inner.value, depth + 1);
}

/** The Ed25519 public key from a JWK (OKP, `x` base64url), a JWK set of one key, PEM, or DER SPKI / raw 32 bytes in hex, base64 or base64url. */
export function ed25519PublicKey(value: unknown, depth = 0): KeyObject {
	let key: KeyObject;
	if (isRecord(value) && own(value, 'kty')) {
		key = createPublicKey({ key: value as JsonWebKey, format: 'jwk' });
	} else if (isRecord(value) && Array.isArray(value.keys) && value.keys.length === 1) {
		return ed25519PublicKey(value.keys[0], depth + 1);
	} else if (isRecord(value) && depth < 3) {
		const inner = part(value, VALUE_NAMES);
		if (inner === undefined) throw new Error(`an object with the fields ${Object.keys(value).slice(0, 10).join(', ')}, none of them a key`);
		return ed25519PublicKey(inner.value, depth + 1);
	} else if (typeof value === 'string') {
		const text = value.trim();
		if (text.startsWith('-----BEGIN')) key = createPublicKey(text);
		else {
			// Raw 32 bytes, or DER SPKI (44 bytes for Ed25519; any other length is said as what it is below).
			const bytes = decodeBytes(text, [32, 44]) ?? decodeDer(text);
			if (bytes === undefined) throw new Error('text that is neither PEM nor hex, base64 or base64url of a 32-byte key or a DER SPKI key');
			key = createPublicKey({ key: bytes.length === 32 ? Buffer.concat([ED25519_SPKI_PREFIX, bytes]) : bytes, format: 'der', type: 'spki' });
		}
	} else {
		throw new Error(`a ${value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value}, not a key`);
	}
	if (key.asymmetricKeyType !== 'ed25519') {
		throw new Error(`the key is ${key.asymmetricKeyType ?? 'of an unknown type'}, not Ed25519`);
	}
	return key;
}

/** DER of another key type (an RSA key, say), so the error can say which type it is. */
function decodeDer(text: string): Buffer | undefined {
	const value = text.trim();
	const bytes = /^[0-9a-fA-F]+$/.test(value) && value.length % 2 === 0 ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
	return bytes.length > 44 && bytes[0] === 0x30 ? bytes : undefined;
}

function short(hex: string): string {
	return hex.length > 16 ? `${hex.slice(0, 16)}…` : hex;
}

/** The algorithm the answer names, top level or beside the signature or in the key (`crv`). */
function algorithmOf(answer: Fields, signature: unknown, key: unknown): { field: string; value: string } | undefined {
	const top = part(answer, ALGORITHM_NAMES);
	if (top && typeof top.value === 'string') return { field: top.name, value: top.value };
	if (isRecord(signature)) {
		const inner = part(signature, ALGORITHM_NAMES);
		if (inner && typeof inner.value === 'string') return { field: `signature.${inner.name}`, value: inner.value };
	}
	if (isRecord(key) && typeof key.crv === 'string') return { field: 'crv', value: key.crv };
	return undefined;
}

/**
 * The check of `copy` against the verification `answer`: `copy_matches` false only when it ran and the
 * copy is not the signed file. What the Service sent that cannot be read throws UnreadableVerification
 * naming the field: no check ran, so nothing may read as "tampered".
 */
export function checkRecordCopy(copy: Uint8Array, answer: VerificationAnswer): CopyCheck {
	const bytes = Buffer.from(copy.buffer, copy.byteOffset, copy.byteLength);
	const copySha256 = createHash('sha256').update(bytes).digest('hex');
	const result = (matches: boolean, reason: string): CopyCheck => ({ copy_matches: matches, copy_reason: reason, copy_sha256: copySha256 });
	const names = Object.keys(answer).slice(0, 20).join(', ');

	const keyPart = part(answer, KEY_NAMES);
	const digestPart = part(answer, DIGEST_NAMES);
	const signaturePart = part(answer, SIGNATURE_NAMES);
	const algorithm = algorithmOf(answer, signaturePart?.value, keyPart?.value);
	if (algorithm !== undefined && !/^(ed25519|eddsa)$/i.test(algorithm.value.trim())) {
		throw new UnreadableVerification(algorithm.field, `The Service signs with ${algorithm.value} (field ${algorithm.field}); only Ed25519 signatures can be checked here`);
	}
	const missing = [!digestPart && 'sha256 (or digest)', !signaturePart && 'signature', !keyPart && 'public_key'].filter(Boolean);
	if (missing.length > 0) {
		throw new UnreadableVerification(
			String(missing[0]),
			`The Service's verification has no ${missing.join(', ')}, so the copy cannot be checked (it sent the fields ${names})`,
		);
	}

	const digestAlgorithm = isRecord(digestPart!.value) ? part(digestPart!.value, ['alg', 'algorithm', 'type'])?.value : undefined;
	if (typeof digestAlgorithm === 'string' && !/^sha-?256$/i.test(digestAlgorithm.trim())) {
		throw new UnreadableVerification(`${digestPart!.name}.alg`, `The Service's digest is ${digestAlgorithm} (field ${digestPart!.name}); only a SHA-256 digest can be checked here`);
	}
	const digestText = textOf(digestPart!.value);
	const published = digestText === undefined ? undefined : decodeBytes(digestText, [32]);
	if (published === undefined) {
		throw new UnreadableVerification(
			digestPart!.name,
			`The Service's ${digestPart!.name} could not be read as a SHA-256 digest (32 bytes in hex, base64 or base64url): ${sample(digestPart!.value)}`,
		);
	}
	const signatureText = textOf(signaturePart!.value);
	const signature = signatureText === undefined ? undefined : decodeBytes(signatureText, [64]);
	if (signature === undefined) {
		throw new UnreadableVerification(
			signaturePart!.name,
			`The Service's ${signaturePart!.name} could not be read as an Ed25519 signature (64 bytes in hex, base64 or base64url): ${sample(signaturePart!.value)}`,
		);
	}
	let key: KeyObject | undefined;
	let keyProblem = '';
	try {
		key = ed25519PublicKey(keyPart!.value);
	} catch (error) {
		keyProblem = (error as Error).message;
	}
	if (key === undefined) {
		throw new UnreadableVerification(
			keyPart!.name,
			`The Service's ${keyPart!.name} could not be read as an Ed25519 public key (${keyProblem}); it is read as a JWK, PEM, or DER or the raw 32 bytes in hex, base64 or base64url`,
		);
	}

	const publishedHex = published.toString('hex');
	if (copySha256 !== publishedHex) {
		return result(
			false,
			`The copy's SHA-256 (${short(copySha256)}) differs from the published one (${short(publishedHex)}): the copy is not the signed file. It was changed, re-saved or re-encoded; download the record again.`,
		);
	}
	if (!verify(null, bytes, key, signature)) {
		return result(false, 'The copy has the published SHA-256 but the Ed25519 signature does not verify with the Service\'s public key.');
	}
	return result(true, 'The copy is byte for byte the signed file: its SHA-256 matches and the Ed25519 signature verifies.');
}

function sample(value: unknown): string {
	const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
	return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
