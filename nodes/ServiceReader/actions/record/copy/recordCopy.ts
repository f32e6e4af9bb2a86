/**
 * Checks a locally held copy of a signed record against the Service's verification answer
 * (docs/service-choices.md: Verification). Pure: no n8n types; node's crypto only.
 * Both checks run on the exact bytes: a copy that was re-serialised or re-encoded fails, which is
 * the point, since the signature covers the file as published. The suites are read in
 * `recordCopy/digests.ts` and `recordCopy/signatures.ts`, the fields found by what they hold in
 * `recordCopy/locate.ts`; here the parts are put together and checked.
 */
import { createHash, type KeyObject } from 'node:crypto';

import { DIGEST_LABELS, digestAlgorithmNamed, digestAlgorithmOfFieldName, digestOf, publishedDigest, type Declared, type PublishedDigest } from './digests';
import { decodeAnyBytes, UnreadableVerification } from './encodings';
import { bestNamed, distinctKeys, leavesOf, nameFits, undecided, valueAt, within, type KeyCandidate, type Leaf, type Parts } from './locate';
import { jwkAlgorithm, publicKeyOf, publishedSignature, signatureSuite, signatureVerifies, suiteLabel, type PublishedSignature, type SignatureSuite } from './signatures';

export { decodeBytes, UnreadableVerification } from './encodings';
export { publicKeyOf } from './signatures';

export type VerificationAnswer = Record<string, unknown>;

export interface CopyCheck {
	copy_matches: boolean;
	copy_reason: string;
	copy_sha256: string;
}

/** Where the answer holds a part when no value reads as one: the field whose error says why (flat or an object: `{"digest": {"alg", "value"}}`). */
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

/** Fields of the answer the user names for a part (Record > Verify: Verification Fields), as dotted paths (`verification.keys[0]`). */
export interface VerificationFields {
	key?: string;
	digest?: string;
	signature?: string;
}

const FIELD_LABELS = { key: 'Public Key Field', digest: 'Digest Field', signature: 'Signature Field' } as const;
const ROLE_WORDS = { key: 'the public key', digest: 'the digest', signature: 'the signature' } as const;

/** A part set read: the key and its suite, the digest, the signature, each with its field. */
interface Reading {
	parts: Parts;
	key: KeyObject;
	suite: SignatureSuite;
	digest: PublishedDigest;
	signature: PublishedSignature;
}

/**
 * The check of `copy` against the verification `answer`: `copy_matches` false only when it ran and the
 * copy is not the signed file. The key, digest and signature are found by what their values are, at
 * any depth; where two fields fit a part as well and the verdict depends on which, or what the Service
 * sent cannot be read, it throws UnreadableVerification naming the fields: no check ran, so nothing
 * may read as "tampered". `fields` names a part's field outright.
 */
export function checkRecordCopy(copy: Uint8Array, answer: VerificationAnswer, fields: VerificationFields = {}): CopyCheck {
	const bytes = Buffer.from(copy.buffer, copy.byteOffset, copy.byteLength);
	const copySha256 = createHash('sha256').update(bytes).digest('hex');
	const readings = readingsOf(answer, fields);
	const verdicts = readings.map((reading) => verdict(bytes, copySha256, reading));
	// Fields that fit as well and give the same verdict: which one it is changes nothing said.
	if (verdicts.every((v) => v.copy_matches === verdicts[0].copy_matches)) return verdicts[0];
	const open = undecided(readings.map((reading) => reading.parts));
	const [first] = open;
	throw new UnreadableVerification(
		first.paths[0],
		`The Service's verification has ${open.map((entry) => `${entry.paths.length} fields that may be ${ROLE_WORDS[entry.role]} (${entry.paths.join(', ')})`).join(' and ')}, and the check's result depends on which: set ${open.map((entry) => FIELD_LABELS[entry.role]).join(' and ')} under Verification Fields of this node to the one it is`,
	);
}

function verdict(bytes: Buffer, copySha256: string, reading: Reading): CopyCheck {
	const result = (matches: boolean, reason: string): CopyCheck => ({ copy_matches: matches, copy_reason: reason, copy_sha256: copySha256 });
	const published = reading.digest;
	const digestLabel = DIGEST_LABELS[published.algorithm];
	const copyDigest = published.algorithm === 'sha256' ? copySha256 : digestOf(bytes, published.algorithm).toString('hex');
	const publishedHex = published.bytes.toString('hex');
	if (copyDigest !== publishedHex) {
		return result(
			false,
			`The copy's ${digestLabel} (${short(copyDigest)}) differs from the published one (${short(publishedHex)}): the copy is not the signed file. It was changed, re-saved or re-encoded; download the record again.`,
		);
	}
	const signatureLabel = suiteLabel(reading.suite);
	if (!signatureVerifies(bytes, reading.key, reading.suite, reading.signature, reading.parts.signature.path)) {
		return result(false, `The copy has the published ${digestLabel} but the ${signatureLabel} signature does not verify with the Service's public key.`);
	}
	return result(true, `The copy is byte for byte the signed file: its ${digestLabel} matches and the ${signatureLabel} signature verifies.`);
}

const tries = <T>(read: () => T): T | undefined => {
	try {
		return read();
	} catch {
		return undefined;
	}
};

/** More fields fit a part than are weighed (each set is checked): named, for the setting to settle. */
const MAX_FITTING = { key: 4, digest: 6, signature: 6 } as const;
function tooMany(role: keyof VerificationFields, found: readonly Leaf[]): void {
	if (found.length <= MAX_FITTING[role]) return;
	throw new UnreadableVerification(found[0].path, `The Service's verification has ${found.length} fields that may be ${ROLE_WORDS[role]} (${found.slice(0, 8).map((leaf) => leaf.path).join(', ')}${found.length > 8 ? ', …' : ''}): set ${FIELD_LABELS[role]} under Verification Fields of this node to the one it is`);
}

/** A user's field, or the error saying the answer has none at that path. */
function named(answer: Fields, path: string, role: keyof VerificationFields): Leaf {
	const leaf = valueAt(answer, path);
	if (leaf === undefined) throw new UnreadableVerification(path, `The Service's verification has no field ${path} (${FIELD_LABELS[role]} under Verification Fields of this node); it sent the fields ${Object.keys(answer).slice(0, 20).join(', ')}`);
	return leaf;
}

/** The part sets to check, best named first: at least one, or UnreadableVerification naming the field that could not be read. */
function readingsOf(answer: VerificationAnswer, fields: VerificationFields): Reading[] {
	const leaves = leavesOf(answer);
	const strings = leaves.filter((leaf) => typeof leaf.value === 'string');
	const keys = keyCandidates(answer, leaves, fields);
	const keyPaths = [...keys.map((k) => k.path), ...strongKeys(leaves).map((k) => k.path)];
	const outsideKeys = (leaf: Leaf) => !keyPaths.some((path) => within(leaf.path, path));

	const options: Reading[] = [];
	const byNames: Array<() => Reading[]> = [];
	let firstProblem: unknown;
	tooMany('key', keys);
	for (const candidate of keys) {
		const algorithms = algorithmsOf(answer, leaves, candidate);
		const digestSaid = algorithms.filter((entry) => typeof entry.value === 'string' && digestAlgorithmNamed(entry.value) !== undefined);
		const digestAlgorithmPart = part(answer, DIGEST_ALGORITHM_NAMES);
		if (digestAlgorithmPart) digestSaid.push({ field: digestAlgorithmPart.name, value: digestAlgorithmPart.value });
		let suite: SignatureSuite;
		try {
			suite = signatureSuite(algorithms.filter((entry) => !digestSaid.includes(entry)), candidate.key, candidate.path);
		} catch (error) {
			firstProblem ??= error;
			continue;
		}
		const readDigest = (leaf: Leaf) => publishedDigest(leaf.path, leaf.value, [...digestSaid, ...digestSaidAround(answer, leaf)]);
		const readSignature = (leaf: Leaf) => publishedSignature(leaf.path, textOf(leaf.value), suite, candidate.key, leaf.value);
		const digests = fields.digest !== undefined ? [named(answer, fields.digest, 'digest')] : strings.filter((leaf) => outsideKeys(leaf) && tries(() => readDigest(leaf)) !== undefined);
		const signatures = fields.signature !== undefined ? [named(answer, fields.signature, 'signature')] : strings.filter((leaf) => outsideKeys(leaf) && tries(() => readSignature(leaf)) !== undefined);
		tooMany('digest', digests);
		tooMany('signature', signatures);
		const combine = (digestLeaves: readonly Leaf[], signatureLeaves: readonly Leaf[]) => {
			const found: Reading[] = [];
			for (const digestLeaf of digestLeaves) {
				for (const signatureLeaf of signatureLeaves) {
					if (within(digestLeaf.path, signatureLeaf.path) || within(signatureLeaf.path, digestLeaf.path)) continue;
					// Read again: a field found by name alone throws here, its error naming it.
					found.push({ parts: { key: candidate, digest: digestLeaf, signature: signatureLeaf }, key: candidate.key, suite, digest: readDigest(digestLeaf), signature: readSignature(signatureLeaf) });
				}
			}
			return found;
		};
		options.push(...combine(digests, signatures));
		// Found by value with no key: the fields named like one too, whose errors say what they hold instead.
		const withNames = (leaves: readonly Leaf[], names: readonly string[]) => [...leaves, ...byName(answer, names).filter((leaf) => !leaves.some((other) => other.path === leaf.path))];
		byNames.push(() => combine(withNames(digests, DIGEST_NAMES), withNames(signatures, SIGNATURE_NAMES)));
	}
	if (options.length === 0) for (const read of byNames) options.push(...read());
	const best = bestNamed(options.map((option) => option.parts));
	const chosen = options.filter((option) => best.includes(option.parts));
	if (chosen.length > 0) return chosen;
	// A key whose suite cannot be told matters only where something could be its signature.
	const signatureLike = hasSignature(answer) || keys.some((candidate) => strings.some((leaf) => outsideKeys(leaf) && maySign(leaf.value as string, candidate.key)));
	if (firstProblem !== undefined && signatureLike) throw firstProblem;
	const missing = [!hasDigest(strings, answer) && 'sha256 (or digest)', !hasSignature(answer) && 'signature'].filter(Boolean);
	throw new UnreadableVerification(
		String(missing[0] ?? 'signature'),
		`The Service's verification has no ${missing.length > 0 ? missing.join(', ') : 'signature of its key\'s size apart from its digest'}, so the copy cannot be checked (it sent the fields ${Object.keys(answer).slice(0, 20).join(', ')}; every field was read by its value, at any depth)`,
	);
}

const hasDigest = (strings: readonly Leaf[], answer: Fields) => byName(answer, DIGEST_NAMES).length > 0 || strings.some((leaf) => tries(() => publishedDigest(leaf.path, leaf.value, [])) !== undefined);
/** Bytes of a size `key` signs with (RSA: its modulus; Ed25519: 64; ECDSA: DER or r‖s), whatever the suite. */
function maySign(text: string, key: KeyObject): boolean {
	const bytes = decodeAnyBytes(text.startsWith(':') && text.endsWith(':') ? text.slice(1, -1) : text);
	if (bytes === undefined) return false;
	const type = key.asymmetricKeyType;
	if (type === 'rsa' || type === 'rsa-pss') return bytes.length === Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
	if (type === 'ed25519') return bytes.length === 64;
	return bytes[0] === 0x30 || bytes.length === 64 || bytes.length === 96;
}

const hasSignature = (answer: Fields) => byName(answer, SIGNATURE_NAMES).length > 0;

/** The top-level field named like a part (the first of `names`), as a leaf; none when absent. */
function byName(answer: Fields, names: readonly string[]): Leaf[] {
	const found = part(answer, names);
	return found === undefined ? [] : [{ path: found.name, value: found.value }];
}

/** The values that read as a key by their form alone: text (PEM, JWK text, SPKI DER, an EC point), a JWK, a JWK set. */
function strongKeys(leaves: readonly Leaf[]): KeyCandidate[] {
	const jwk = (value: unknown) => isRecord(value) && Object.prototype.hasOwnProperty.call(value, 'kty');
	// A record holding a `keys` list is a JWK set only when the list holds JWKs: `{"data": {"keys": ["<PEM>"]}}` is not one.
	const keyForm = (value: unknown) => typeof value === 'string' || jwk(value) || (isRecord(value) && Array.isArray(value.keys) && value.keys.length > 0 && value.keys.every(jwk));
	return leaves.flatMap((leaf): KeyCandidate[] => {
		const key = keyForm(leaf.value) ? tries(() => publicKeyOf(leaf.value, 0, false)) : undefined;
		return key === undefined ? [] : [{ ...leaf, key }];
	});
}

/**
 * The keys: the user's field; else every value that reads as a key (PEM, JWK, DER, an EC point), the
 * same key once; else 32 bytes in a field named like a key (a raw Ed25519 key); else the field named
 * like one, read for its error. None at all: UnreadableVerification saying so.
 */
function keyCandidates(answer: Fields, leaves: readonly Leaf[], fields: VerificationFields): KeyCandidate[] {
	const read = (leaf: Leaf): KeyCandidate => {
		let problem = '';
		try {
			return { ...leaf, key: publicKeyOf(leaf.value) };
		} catch (error) {
			problem = (error as Error).message;
		}
		throw new UnreadableVerification(
			leaf.path,
			`The Service's ${leaf.path} could not be read as a public key (${problem}); it is read as a JWK (an object or its JSON text), PEM (SPKI or PKCS#1), or DER (SPKI or PKCS#1), a raw Ed25519 key or EC point in hex, base64 or base64url`,
		);
	};
	if (fields.key !== undefined) return [read(named(answer, fields.key, 'key'))];
	const strong = strongKeys(leaves);
	if (strong.length > 0) return distinctKeys(strong);
	const raw = leaves.filter((leaf) => typeof leaf.value === 'string' && nameFits(leaf.path, 'key') > 0).flatMap((leaf) => {
		const key = tries(() => publicKeyOf(leaf.value));
		return key === undefined ? [] : [{ ...leaf, key }];
	});
	if (raw.length > 0) return distinctKeys(raw);
	const keyPart = part(answer, KEY_NAMES);
	if (keyPart !== undefined) return [read({ path: keyPart.name, value: keyPart.value })];
	throw new UnreadableVerification('public_key', `The Service's verification has no public key (no value reads as a PEM, JWK or DER key, at any depth), so the copy cannot be checked (it sent the fields ${Object.keys(answer).slice(0, 20).join(', ')})`);
}

/** The algorithms named as text, in order: top level, then deeper (outside the key), then the key's own (a JWK's `alg`). */
function algorithmsOf(answer: Fields, leaves: readonly Leaf[], key: Leaf): Declared[] {
	const found: Declared[] = [];
	// Every name, not the first: `algorithm` may name the digest and `signature_algorithm` the signature.
	for (const name of ALGORITHM_NAMES) {
		const top = part(answer, [name]);
		if (top && typeof top.value === 'string') found.push({ field: top.name, value: top.value });
	}
	for (const leaf of leaves) {
		const last = leaf.path.split('.').pop()!;
		if (!leaf.path.includes('.') || typeof leaf.value !== 'string' || within(leaf.path, key.path) || !ALGORITHM_NAMES.includes(last)) continue;
		// A nested name naming a digest is its digest object's (`digest.alg`), read with that digest.
		if (digestAlgorithmNamed(leaf.value) === undefined) found.push({ field: leaf.path, value: leaf.value });
	}
	const alg = jwkAlgorithm(key.value);
	if (alg !== undefined) found.push({ field: `${key.path}.alg`, value: alg });
	return found;
}

/** What a digest's own field and its object say of its algorithm: `sha512: {hex}`, `{alg: "SHA-384", value}`. */
function digestSaidAround(answer: Fields, leaf: Leaf): Declared[] {
	const names = leaf.path.split('.');
	const said: Declared[] = [];
	const own = digestAlgorithmOfFieldName(names[names.length - 1]);
	if (own !== undefined) said.push({ field: leaf.path, value: own });
	if (names.length < 2) return said;
	const parentPath = names.slice(0, -1).join('.');
	const parent = valueAt(answer, parentPath)?.value;
	if (!isRecord(parent)) return said;
	const byParentName = digestAlgorithmOfFieldName(names[names.length - 2]);
	if (byParentName !== undefined) said.push({ field: parentPath, value: byParentName });
	for (const [name, value] of Object.entries(parent)) {
		if (`${parentPath}.${name}` === leaf.path) continue;
		// `alg` and the like name the algorithm whatever they say; `type` or `name` only when they name one.
		const explicit = ['alg', 'algorithm', 'hash_algorithm', 'hashAlgorithm', 'digest_algorithm', 'digestAlgorithm'].includes(name);
		if (explicit || (['type', 'name'].includes(name) && typeof value === 'string' && digestAlgorithmNamed(value) !== undefined)) said.push({ field: `${parentPath}.${name}`, value });
	}
	return said;
}
