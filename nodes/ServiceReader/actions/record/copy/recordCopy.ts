/**
 * Checks a locally held copy of a signed record against the Service's verification answer
 * (docs/service-choices.md: Verification). Pure: no n8n types; node's crypto only.
 * Both checks run on the exact bytes: a copy that was re-serialised or re-encoded fails, which is
 * the point, since the signature covers the file as published. The suites are read in
 * `recordCopy/digests.ts` and `recordCopy/signatures.ts`; here the answer's fields are found.
 */
import { createHash, type KeyObject } from 'node:crypto';

import { DIGEST_LABELS, digestAlgorithmNamed, digestAlgorithmOfFieldName, digestOf, publishedDigest, type Declared } from './digests';
import { UnreadableVerification } from './encodings';
import { jwkAlgorithm, publicKeyOf, publishedSignature, signatureSuite, signatureVerifies, suiteLabel } from './signatures';

export { decodeBytes, UnreadableVerification } from './encodings';
export { publicKeyOf } from './signatures';

export type VerificationAnswer = Record<string, unknown>;

export interface CopyCheck {
	copy_matches: boolean;
	copy_reason: string;
	copy_sha256: string;
}

/** Where the answer may hold each part, flat or as an object (`{"digest": {"alg", "value"}}`). */
const KEY_NAMES = ['public_key', 'publicKey', 'verification_key', 'verificationKey', 'signing_key', 'jwk', 'key'];
const DIGEST_NAMES = ['sha256', 'sha_256', 'sha256_hex', 'digest', 'hash', 'content_sha256', 'checksum', 'sha512', 'sha384', 'sha_512', 'sha_384', 'content_digest', 'contentDigest'];
const SIGNATURE_NAMES = ['signature', 'sig', 'signature_value', 'signatureValue'];
const ALGORITHM_NAMES = ['algorithm', 'alg', 'signature_algorithm', 'signatureAlgorithm'];
/** A sibling naming the digest's algorithm (`"digest_algorithm": "SHA-512"`). */
const DIGEST_ALGORITHM_NAMES = ['digest_algorithm', 'digestAlgorithm', 'hash_algorithm', 'hashAlgorithm', 'digest_alg'];
/** Where an object holding one value keeps it (`{"value": ...}`). */
const VALUE_NAMES = ['value', 'sha256', 'hex', 'base64', 'b64', 'base64url', 'digest', 'signature', 'pem', 'der', 'raw', 'key', 'public_key', 'publicKey', 'jwk'];

type Fields = Record<string, unknown>;
const isRecord = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value);
const own = (record: Fields, name: string) => Object.prototype.hasOwnProperty.call(record, name);

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

function short(hex: string): string {
	return hex.length > 16 ? `${hex.slice(0, 16)}…` : hex;
}

/** The algorithms the answer names as text, in order: top level, beside the signature, in the key (a JWK's `alg`); the key says the rest. */
function algorithmsOf(answer: Fields, signature: unknown, key: unknown, keyField = 'public_key'): Declared[] {
	const found: Declared[] = [];
	// Every name, not the first: `algorithm` may name the digest and `signature_algorithm` the signature.
	for (const name of ALGORITHM_NAMES) {
		const top = part(answer, [name]);
		if (top && typeof top.value === 'string') found.push({ field: top.name, value: top.value });
	}
	if (isRecord(signature)) {
		const inner = part(signature, ALGORITHM_NAMES);
		if (inner && typeof inner.value === 'string') found.push({ field: `signature.${inner.name}`, value: inner.value });
	}
	const alg = jwkAlgorithm(key);
	if (alg !== undefined) found.push({ field: `${keyField}.alg`, value: alg });
	return found;
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
	const digestAlgorithmPart = part(answer, DIGEST_ALGORITHM_NAMES);
	const algorithms = algorithmsOf(answer, signaturePart?.value, keyPart?.value, keyPart?.name);
	const missing = [!digestPart && 'sha256 (or digest)', !signaturePart && 'signature', !keyPart && 'public_key'].filter(Boolean);
	if (missing.length > 0) {
		throw new UnreadableVerification(
			String(missing[0]),
			`The Service's verification has no ${missing.join(', ')}, so the copy cannot be checked (it sent the fields ${names})`,
		);
	}

	// An `algorithm` naming a digest (`SHA-512`) says the digest's algorithm, not the signature's.
	const digestSaid: Declared[] = algorithms.filter((entry) => typeof entry.value === 'string' && digestAlgorithmNamed(entry.value) !== undefined);
	if (digestAlgorithmPart) digestSaid.push({ field: digestAlgorithmPart.name, value: digestAlgorithmPart.value });
	const byFieldName = digestAlgorithmOfFieldName(digestPart!.name);
	if (byFieldName !== undefined) digestSaid.push({ field: digestPart!.name, value: byFieldName });
	const published = publishedDigest(digestPart!.name, digestPart!.value, digestSaid);

	let key: KeyObject | undefined;
	let keyProblem = '';
	try {
		key = publicKeyOf(keyPart!.value);
	} catch (error) {
		keyProblem = (error as Error).message;
	}
	if (key === undefined) {
		throw new UnreadableVerification(
			keyPart!.name,
			`The Service's ${keyPart!.name} could not be read as a public key (${keyProblem}); it is read as a JWK (an object or its JSON text), PEM (SPKI or PKCS#1), or DER (SPKI or PKCS#1), a raw Ed25519 key or EC point in hex, base64 or base64url`,
		);
	}
	const suite = signatureSuite(algorithms.filter((entry) => !digestSaid.includes(entry)), key, keyPart!.name);
	const signature = publishedSignature(signaturePart!.name, textOf(signaturePart!.value), suite, key, signaturePart!.value);

	const digestLabel = DIGEST_LABELS[published.algorithm];
	const copyDigest = published.algorithm === 'sha256' ? copySha256 : digestOf(bytes, published.algorithm).toString('hex');
	const publishedHex = published.bytes.toString('hex');
	if (copyDigest !== publishedHex) {
		return result(
			false,
			`The copy's ${digestLabel} (${short(copyDigest)}) differs from the published one (${short(publishedHex)}): the copy is not the signed file. It was changed, re-saved or re-encoded; download the record again.`,
		);
	}
	const signatureLabel = suiteLabel(suite);
	if (!signatureVerifies(bytes, key, suite, signature, signaturePart!.name)) {
		return result(false, `The copy has the published ${digestLabel} but the ${signatureLabel} signature does not verify with the Service's public key.`);
	}
	return result(true, `The copy is byte for byte the signed file: its ${digestLabel} matches and the ${signatureLabel} signature verifies.`);
}
