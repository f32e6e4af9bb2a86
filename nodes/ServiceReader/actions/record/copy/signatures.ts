/**
 * The signature over a record's exact bytes (docs/service-choices.md: Verification): Ed25519, ECDSA
 * P-256/P-384 (DER or raw r‖s), RSA-PSS and RSA PKCS#1 v1.5, with the suite from the algorithm the
 * Service names and the key it publishes (JWK, PEM, DER). Node's crypto only. Pure: no n8n types.
 */
import { constants, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';

import { compact, decodeAnyBytes, decodeBytes, firstOwn, isRecord, kindOf, named, own, UnreadableVerification } from './encodings';
import type { Declared } from './digests';
import { parseExactJson } from '../../../../shared/exactJson';

export type HashName = 'sha256' | 'sha384' | 'sha512';
type Scheme = 'ed25519' | 'ecdsa' | 'rsa-pss' | 'rsa-pkcs1';
export type Curve = 'P-256' | 'P-384';

export interface SignatureSuite {
	scheme: Scheme;
	/** The hash signed over the bytes (none for Ed25519, which hashes itself). */
	hash?: HashName;
	curve?: Curve;
}

const READ = 'Ed25519, ES256, ES384, PS256/384/512 and RS256/384/512 are read';
const HASH_LABELS: Record<HashName, string> = { sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };
const CURVES = new Map<string, Curve>([['prime256v1', 'P-256'], ['secp384r1', 'P-384']]);
const KEY_WORDS = new Map<string, string>([['ed25519', 'an Ed25519 key'], ['rsa', 'an RSA key'], ['rsa-pss', 'an RSA-PSS key']]);
/** OpenSSL's OPENSSL_RSA_MAX_MODULUS_BITS: a longer key never verifies, whatever the signature. */
const MAX_RSA_BITS = 16_384;
const CURVE_SIZES: Record<Curve, number> = { 'P-256': 32, 'P-384': 48 };
const CURVE_HASHES: Record<Curve, HashName> = { 'P-256': 'sha256', 'P-384': 'sha384' };
// DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Where an object holding a key keeps it (`{"value": ...}`, `{"pem": ...}`). */
const KEY_VALUE_NAMES = ['value', 'key', 'public_key', 'publicKey', 'jwk', 'pem', 'der', 'raw', 'spki', 'base64', 'b64', 'base64url', 'hex'];

const UNPARSED = Symbol('unparsed');

/** What a key value is instead of a key, in words; the caller names the field. */
export class UnreadableKey extends Error {}

/** The suite's name in a reason: `Ed25519`, `ECDSA P-256 SHA-256 (ES256)`, `RSA-PSS SHA-512 (PS512)`. */
export function suiteLabel(suite: SignatureSuite): string {
	if (suite.scheme === 'ed25519') return 'Ed25519';
	const hash = HASH_LABELS[suite.hash!];
	const bits = suite.hash!.slice(3);
	if (suite.scheme === 'ecdsa') return suite.hash === CURVE_HASHES[suite.curve!] ? `ECDSA ${suite.curve} ${hash} (ES${bits})` : `ECDSA ${suite.curve} ${hash}`;
	return suite.scheme === 'rsa-pss' ? `RSA-PSS ${hash} (PS${bits})` : `RSA PKCS#1 v1.5 ${hash} (RS${bits})`;
}

/** What a signature algorithm's name says, or undefined when it names none read here. */
export function signatureAlgorithmNamed(name: string): { scheme: Scheme | 'rsa'; hash?: HashName; curve?: string } | undefined {
	const n = compact(name);
	if (n === 'ed25519' || n === 'eddsa') return { scheme: 'ed25519' };
	const jws = /^([epr]s)(256|384|512)$/.exec(n);
	if (jws !== null) {
		const hash = `sha${jws[2]}` as HashName;
		if (jws[1] === 'es') return { scheme: 'ecdsa', hash, curve: { sha256: 'P-256', sha384: 'P-384', sha512: 'P-521' }[hash] };
		return { scheme: jws[1] === 'ps' ? 'rsa-pss' : 'rsa-pkcs1', hash };
	}
	const hash = (['sha512', 'sha384', 'sha256'] as const).find((candidate) => n.includes(candidate));
	if (n.includes('ecdsa')) {
		const curve = ['p256', 'prime256v1', 'secp256r1'].some((c) => n.includes(c)) ? 'P-256'
			: ['p384', 'secp384r1'].some((c) => n.includes(c)) ? 'P-384'
				: ['p521', 'secp521r1'].some((c) => n.includes(c)) ? 'P-521' : undefined;
		return { scheme: 'ecdsa', hash, curve };
	}
	if (n.includes('pss')) return { scheme: 'rsa-pss', hash };
	if (n.includes('rsa')) return { scheme: n.includes('pkcs1') || hash !== undefined ? 'rsa-pkcs1' : 'rsa', hash };
	return undefined;
}

/**
 * The public key from a JWK (object or JSON text; a JWK set of one key), PEM (SPKI, PKCS#1 `RSA PUBLIC KEY`,
 * a certificate), DER (SPKI or PKCS#1), a raw Ed25519 key (32 bytes) or EC point (65 or 97 bytes), in hex,
 * base64 or base64url, flat or in an object (`{"pem": ...}`). Throws an Error saying what it is instead.
 * `raw` false: not the forms other values share (32 bytes, a digest's size; bare PKCS#1, a DER signature's shape).
 */
export function publicKeyOf(value: unknown, depth = 0, raw = true): KeyObject {
	if (isRecord(value) && own(value, 'kty')) return fromNode(() => createPublicKey({ key: value as JsonWebKey, format: 'jwk' }), 'a JWK');
	if (isRecord(value) && Array.isArray(value.keys)) {
		if (value.keys.length !== 1) throw new UnreadableKey(`a JWK set of ${value.keys.length} keys, where one key is read`);
		return publicKeyOf(value.keys[0], depth + 1, raw);
	}
	if (isRecord(value) && depth < 3) {
		const inner = firstOwn(value, KEY_VALUE_NAMES);
		if (inner === undefined) throw new UnreadableKey(`${kindOf(value)}, none of them a key`);
		return publicKeyOf(inner.value, depth + 1, raw);
	}
	if (typeof value !== 'string') throw new UnreadableKey(`${kindOf(value)}, not a key`);
	const text = value.trim();
	if (text.startsWith('{')) {
		let parsed: unknown = UNPARSED;
		try {
			parsed = parseExactJson(text);
		} catch {
			// Said below, outside the catch.
		}
		if (parsed === UNPARSED) throw new UnreadableKey(`${kindOf(value)} starting with { that is not JSON`);
		return publicKeyOf(parsed, depth + 1, raw);
	}
	if (text.startsWith('-----BEGIN')) return fromNode(() => createPublicKey(text), 'PEM');
	// 32 bytes are a raw Ed25519 key only where the field says it holds a key: as many bytes are a SHA-256 digest.
	const ed25519 = raw ? decodeBytes(text, [32]) : undefined;
	if (ed25519 !== undefined) return fromNode(() => createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, ed25519]), format: 'der', type: 'spki' }), 'a raw Ed25519 key');
	const bytes = decodeAnyBytes(text);
	if (bytes !== undefined && bytes[0] === 0x04 && (bytes.length === 65 || bytes.length === 97)) {
		// An uncompressed EC point (0x04 ‖ x ‖ y): its size says the curve.
		const size = (bytes.length - 1) / 2;
		const jwk = { kty: 'EC', crv: size === 32 ? 'P-256' : 'P-384', x: bytes.subarray(1, 1 + size).toString('base64url'), y: bytes.subarray(1 + size).toString('base64url') };
		return fromNode(() => createPublicKey({ key: jwk, format: 'jwk' }), 'a raw EC point');
	}
	if (bytes === undefined || bytes[0] !== 0x30) throw new UnreadableKey(`${kindOf(value)} that is neither PEM, a JWK, nor hex, base64 or base64url of a DER key or a raw key`);
	try {
		return createPublicKey({ key: bytes, format: 'der', type: 'spki' });
	} catch {
		// Not SPKI: read as PKCS#1 below.
	}
	// PKCS#1 is a SEQUENCE of two INTEGERs, as a DER ECDSA signature is: a key only where the field says so.
	if (!raw) throw new UnreadableKey('DER that is not SPKI');
	return fromNode(() => createPublicKey({ key: bytes, format: 'der', type: 'pkcs1' }), 'DER (neither SPKI nor PKCS#1)');
}

/** The `alg` a JWK key says (an object, a JWK set of one, or its JSON text), if any. */
export function jwkAlgorithm(value: unknown): string | undefined {
	let jwk = value;
	if (typeof jwk === 'string' && jwk.trim().startsWith('{')) {
		try {
			jwk = parseExactJson(jwk);
		} catch {
			return undefined;
		}
	}
	if (isRecord(jwk) && Array.isArray(jwk.keys) && jwk.keys.length === 1) jwk = jwk.keys[0];
	return isRecord(jwk) && own(jwk, 'kty') && typeof jwk.alg === 'string' ? jwk.alg : undefined;
}

/** Node's reading of a key; its refusal said in a few words (Node's own, which never quote the key). */
function fromNode(read: () => KeyObject, form: string): KeyObject {
	let problem = '';
	try {
		return read();
	} catch (error) {
		problem = (error as Error).message.slice(0, 100);
	}
	throw new UnreadableKey(`${form} Node cannot read: ${problem}`);
}

/** The key's type in words: `an Ed25519 key`, `an EC key on P-256`, `an RSA key`. */
export function keyWords(key: KeyObject): string {
	const type = key.asymmetricKeyType ?? 'unknown';
	if (type === 'ec') return `an EC key on ${key.asymmetricKeyDetails?.namedCurve ?? 'an unknown curve'}`;
	return KEY_WORDS.get(type) ?? `a key of type ${type}`;
}

/**
 * The suite from the algorithms the Service names (in `declared` order: the first decides, the others
 * must agree) and the key's type. What the names and the key leave open, or disagree on, throws
 * UnreadableVerification naming the field: an RSA key signs two ways with three hashes.
 */
export function signatureSuite(declared: readonly Declared[], key: KeyObject, keyField: string): SignatureSuite {
	let said: { field: string; words: string; scheme: Scheme | 'rsa'; hash?: HashName; curve?: string } | undefined;
	for (const entry of declared) {
		const reading = typeof entry.value === 'string' ? signatureAlgorithmNamed(entry.value) : undefined;
		if (reading === undefined || typeof entry.value !== 'string') throw new UnreadableVerification(entry.field, `The Service's ${entry.field} names the signature algorithm ${named(entry.value)}, which cannot be checked here (${READ})`);
		const words = `${entry.value.length <= 40 ? entry.value : kindOf(entry.value)} (field ${entry.field})`;
		if (said === undefined) {
			said = { field: entry.field, words, ...reading };
			continue;
		}
		const schemes = [said.scheme, reading.scheme];
		const sameScheme = said.scheme === reading.scheme || (schemes.includes('rsa') && schemes.some((scheme) => scheme.startsWith('rsa-')));
		if (!sameScheme || (said.hash && reading.hash && said.hash !== reading.hash) || (said.curve && reading.curve && said.curve !== reading.curve)) {
			throw new UnreadableVerification(entry.field, `The Service names two signature algorithms, ${said.words} and ${words}, so the copy cannot be checked`);
		}
		said = { ...said, scheme: said.scheme === 'rsa' ? reading.scheme : said.scheme, hash: said.hash ?? reading.hash, curve: said.curve ?? reading.curve };
	}
	const type = key.asymmetricKeyType;
	// A key that does not fit the named algorithm is the key's field: the algorithm alone was readable.
	const refuse = (why: string) => new UnreadableVerification(keyField, said === undefined ? `The Service's ${keyField} is ${keyWords(key)}: ${why}` : `The Service signs with ${said.words} but its ${keyField} is ${keyWords(key)}${why ? `: ${why}` : ''}`);
	if (type === 'ed25519') {
		if (said !== undefined && said.scheme !== 'ed25519') throw refuse('');
		return { scheme: 'ed25519' };
	}
	if (type === 'ec') {
		const curveName = key.asymmetricKeyDetails?.namedCurve ?? 'unknown';
		const curve = CURVES.get(curveName);
		if (curve === undefined) throw new UnreadableVerification(keyField, `The Service's ${keyField} is ${keyWords(key)}, a curve that cannot be checked here (P-256 and P-384 are read)`);
		if (said !== undefined && (said.scheme !== 'ecdsa' || (said.curve !== undefined && said.curve !== curve))) throw refuse('');
		return { scheme: 'ecdsa', curve, hash: said?.hash ?? CURVE_HASHES[curve] };
	}
	if (type === 'rsa' || type === 'rsa-pss') {
		if (said !== undefined && !said.scheme.startsWith('rsa')) throw refuse('');
		// OpenSSL answers "does not verify" for a key it will not use: said as a check that could not run, never as a mismatch.
		const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
		const exponent = key.asymmetricKeyDetails?.publicExponent ?? 0n;
		if (bits > MAX_RSA_BITS) throw new UnreadableVerification(keyField, `The Service's ${keyField} is an RSA key of ${bits} bits: over ${MAX_RSA_BITS.toLocaleString('en')} bits OpenSSL checks no signature, so the check could not run`);
		if (bits > 3072 && exponent >= 2n ** 64n) throw new UnreadableVerification(keyField, `The Service's ${keyField} is an RSA key of ${bits} bits with a public exponent over 64 bits, which OpenSSL does not use, so the check could not run`);
		const keyHashName = type === 'rsa-pss' ? key.asymmetricKeyDetails?.hashAlgorithm?.replace('-', '') : undefined;
		const keyHash = (['sha256', 'sha384', 'sha512'] as const).find((name) => name === keyHashName);
		if (keyHashName !== undefined && keyHash === undefined) throw refuse(`its parameters sign with ${keyHashName}, which cannot be checked here (${READ})`);
		const scheme = type === 'rsa-pss' ? 'rsa-pss' : said?.scheme;
		if (type === 'rsa-pss' && said?.scheme === 'rsa-pkcs1') throw refuse('a PSS key never signs PKCS#1 v1.5');
		if (keyHash !== undefined && said?.hash !== undefined && said.hash !== keyHash) throw refuse(`its parameters sign with ${HASH_LABELS[keyHash]} only`);
		const hash = said?.hash ?? keyHash;
		if (scheme === undefined || scheme === 'rsa' || hash === undefined) {
			throw refuse('an RSA key signs with PKCS#1 v1.5 or PSS and SHA-256, SHA-384 or SHA-512, and the verification does not say which (an algorithm field such as RS256 or PS256, or the JWK\'s alg, does)');
		}
		return { scheme: scheme as Scheme, hash };
	}
	throw new UnreadableVerification(keyField, `The Service's ${keyField} is ${keyWords(key)}, which cannot be checked here (${READ})`);
}

/** The signature's bytes, in the encodings the suite reads them: DER or raw r‖s for ECDSA. */
export interface PublishedSignature {
	bytes: Buffer;
	encodings: readonly ('der' | 'ieee-p1363')[];
}

/** The signature's text as bytes of the sizes the suite signs; throws UnreadableVerification naming the field. */
export function publishedSignature(field: string, text: string | undefined, suite: SignatureSuite, key: KeyObject, value: unknown): PublishedSignature {
	const trimmed = text?.trim();
	const body = trimmed !== undefined && trimmed.length >= 2 && trimmed.startsWith(':') && trimmed.endsWith(':') ? trimmed.slice(1, -1) : trimmed;
	const label = suiteLabel(suite);
	if (suite.scheme === 'ecdsa') {
		const raw = 2 * CURVE_SIZES[suite.curve!];
		const lengths = [raw];
		for (let length = 8; length <= raw + 9; length++) if (length !== raw) lengths.push(length);
		const bytes = body === undefined ? undefined : decodeBytes(body, lengths);
		const encodings = bytes === undefined ? [] : [...(strictDer(bytes) ? ['der' as const] : []), ...(bytes.length === raw ? ['ieee-p1363' as const] : [])];
		if (bytes !== undefined && encodings.length > 0) return { bytes, encodings };
		throw new UnreadableVerification(field, `The Service's ${field} could not be read as an ${label} signature (DER, or r‖s of ${raw} bytes, in hex, base64 or base64url): it is ${kindOf(value)}`);
	}
	const size = suite.scheme === 'ed25519' ? 64 : Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
	const bytes = body === undefined ? undefined : decodeBytes(body, [size]);
	if (bytes === undefined) {
		throw new UnreadableVerification(field, `The Service's ${field} could not be read as an ${label} signature (${size} bytes in hex, base64 or base64url): it is ${kindOf(value)}`);
	}
	return { bytes, encodings: ['der'] };
}

/**
 * Whether the signature verifies over the exact bytes (either ECDSA encoding it reads as). Node refusing
 * to check at all is not a verdict: UnreadableVerification naming `field`.
 */
export function signatureVerifies(bytes: Buffer, key: KeyObject, suite: SignatureSuite, signature: PublishedSignature, field: string): boolean {
	// OpenSSL answers "does not verify" for an RSA key it will not use (over 16,384 bits): that is no verdict either.
	const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
	if (suite.scheme !== 'ed25519' && suite.scheme !== 'ecdsa' && bits > RSA_MAX_BITS) {
		throw new UnreadableVerification(field, `The Service's ${field} could not be checked: its RSA key has ${bits} bits, more than the ${RSA_MAX_BITS} Node's crypto checks`);
	}
	let problem = '';
	try {
		return verifies(bytes, key, suite, signature);
	} catch (error) {
		problem = (error as Error).message.slice(0, 100);
	}
	throw new UnreadableVerification(field, `The Service's ${field} could not be checked as an ${suiteLabel(suite)} signature with its key (Node: ${problem})`);
}

/** The largest RSA modulus OpenSSL verifies with (OPENSSL_RSA_MAX_MODULUS_BITS). */
const RSA_MAX_BITS = 16_384;

function verifies(bytes: Buffer, key: KeyObject, suite: SignatureSuite, signature: PublishedSignature): boolean {
	if (suite.scheme === 'ed25519') return verify(null, bytes, key, signature.bytes);
	if (suite.scheme === 'ecdsa') return signature.encodings.some((dsaEncoding) => verify(suite.hash!, bytes, { key, dsaEncoding }, signature.bytes));
	const padding = suite.scheme === 'rsa-pss' ? constants.RSA_PKCS1_PSS_PADDING : constants.RSA_PKCS1_PADDING;
	const options = suite.scheme === 'rsa-pss' ? { key, padding, saltLength: constants.RSA_PSS_SALTLEN_AUTO } : { key, padding };
	return verify(suite.hash!, bytes, options, signature.bytes);
}

/** A DER ECDSA signature, strictly: SEQUENCE { INTEGER r, INTEGER s } filling the bytes exactly. */
function strictDer(bytes: Buffer): boolean {
	if (bytes.length < 8 || bytes[0] !== 0x30 || bytes[1] !== bytes.length - 2 || bytes[1] > 0x7f) return false;
	let at = 2;
	for (let integer = 0; integer < 2; integer++) {
		if (bytes[at] !== 0x02) return false;
		const length = bytes[at + 1];
		if (length === undefined || length === 0 || length > 0x7f || at + 2 + length > bytes.length) return false;
		at += 2 + length;
	}
	return at === bytes.length;
}
