import { constants, createHash, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

import type { DigestSuite, SignatureSuiteName, VerificationForms } from './answerShapes';
import type { Company, Finding } from './types';

/** A company's signed record as the Service holds it. */
export interface SignedRecord {
	ke: string;
	ks: string;
	/** The exact file bytes that were signed. */
	signedBytes: Buffer;
	/** The bytes served by the export route; differ from signedBytes only after tamperRecord. */
	servedBytes: Buffer;
	sha256: string;
	signature: string;
	signedAt: string;
}

interface SigningKey {
	privateKey: KeyObject;
	publicKey: KeyObject;
	/** Base64 DER SPKI, as the verify route publishes it. */
	publicKeyBase64: string;
}

let signingKey: SigningKey | undefined;

function key(): SigningKey {
	if (!signingKey) {
		const pair = generateKeyPairSync('ed25519');
		signingKey = {
			...pair,
			publicKeyBase64: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
		};
	}
	return signingKey;
}

export function publicKeyBase64(): string {
	return key().publicKeyBase64;
}

/** The key pairs of the other signature suites, made once per process (one RSA key signs PS* and RS*). */
const suiteKeys = new Map<string, { privateKey: KeyObject; publicKey: KeyObject }>();

function suiteKey(suite: SignatureSuiteName): { privateKey: KeyObject; publicKey: KeyObject } {
	if (suite === 'Ed25519') return key();
	const family = suite.startsWith('ES') ? suite : 'RSA';
	let pair = suiteKeys.get(family);
	if (pair === undefined) {
		pair = family === 'RSA'
			? generateKeyPairSync('rsa', { modulusLength: 2048 })
			: generateKeyPairSync('ec', { namedCurve: family === 'ES256' ? 'prime256v1' : 'secp384r1' });
		suiteKeys.set(family, pair);
	}
	return pair;
}

/** The public key as a verify route of `form` publishes it, for `suite` (Ed25519 as documented). */
export function publicKeyAs(form: VerificationForms['publicKey'], suite: SignatureSuiteName = 'Ed25519'): unknown {
	const { publicKey } = suiteKey(suite);
	const der = publicKey.export({ format: 'der', type: 'spki' });
	const jwk = { ...publicKey.export({ format: 'jwk' }), ...(suite === 'Ed25519' ? {} : { alg: suite }), use: 'sig', kid: 'sandbox-1' };
	const raw = () => {
		if (suite === 'Ed25519') return der.subarray(12);
		// An EC key's uncompressed point (0x04 ‖ x ‖ y); an RSA key's PKCS#1 DER.
		if (suite.startsWith('ES')) return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
		return publicKey.export({ format: 'der', type: 'pkcs1' });
	};
	switch (form) {
		case 'spki-base64':
			return der.toString('base64');
		case 'spki-hex':
			return der.toString('hex');
		case 'pem':
			return publicKey.export({ format: 'pem', type: 'spki' }).toString();
		case 'pkcs1-pem':
			return publicKey.export({ format: 'pem', type: /^[PR]S/.test(suite) ? 'pkcs1' : 'spki' }).toString();
		case 'jwk':
			return jwk;
		case 'jwk-text':
			return JSON.stringify(jwk);
		case 'raw-hex':
			return raw().toString('hex');
		case 'raw-base64url':
			return raw().toString('base64url');
	}
}

/** The digest of `bytes` in `suite`. */
export function digestIn(bytes: Buffer, suite: DigestSuite): Buffer {
	return createHash(suite).update(bytes).digest();
}

/** Signatures already made: ECDSA and PSS are randomised, and a route answers the same each time. */
const suiteSignatures = new Map<string, Buffer>();

/** The signature over the exact `bytes` in `suite` (ECDSA as DER or r‖s). */
export function signatureIn(bytes: Buffer, suite: SignatureSuiteName, ecdsaEncoding: 'der' | 'p1363'): Buffer {
	const memo = `${suite}:${ecdsaEncoding}:${createHash('sha256').update(bytes).digest('hex')}`;
	let signature = suiteSignatures.get(memo);
	if (signature === undefined) {
		const { privateKey } = suiteKey(suite);
		const hash = `sha${suite.slice(2)}`;
		if (suite === 'Ed25519') signature = sign(null, bytes, privateKey);
		else if (suite.startsWith('ES')) signature = sign(hash, bytes, { key: privateKey, dsaEncoding: ecdsaEncoding === 'p1363' ? 'ieee-p1363' : 'der' });
		else if (suite.startsWith('PS')) signature = sign(hash, bytes, { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
		else signature = sign(hash, bytes, privateKey);
		suiteSignatures.set(memo, signature);
	}
	return signature;
}

/** Findings for a company, derived from its KE so they are stable; findings only, never a verdict. */
export function findingsFor(company: Company): Finding[] {
	const findings: Finding[] = [
		{ code: 'register_status', text: `Company register status is ${company.status}.` },
		{ code: 'accounts_filed', text: 'Latest annual accounts were filed on time.' },
	];
	if (company.status !== 'active') {
		findings.push({ code: 'register_change', text: `The register shows the company as ${company.status}.` });
	}
	return findings;
}

/**
 * Renders the record with a deliberate layout (three-space indent, a space before colons, CRLF after the
 * first line, non-ASCII text) so that any client that re-serialises or re-encodes the file breaks its signature.
 */
export function renderRecord(company: Company, signedAt: string): Buffer {
	const field = (name: string, value: unknown) => `   "${name}" : ${JSON.stringify(value)}`;
	const findings = findingsFor(company)
		.map((f) => `      { "code" : ${JSON.stringify(f.code)}, "text" : ${JSON.stringify(f.text)} }`)
		.join(',\n');
	const text = [
		'{\r\n',
		`${field('ks', company.ks)},\n`,
		`${field('ke', company.ke)},\n`,
		`${field('company_name', company.name)},\n`,
		`${field('registration_number', company.registrationNumber)},\n`,
		`${field('register_status', company.status)},\n`,
		`${field('issued_at', signedAt)},\n`,
		`${field('issuer', 'Service Sandbox – signed record (Ed25519) · ünïcödé ✓')},\n`,
		'   "findings" : [\n',
		`${findings}\n`,
		'   ]\n',
		'}\n',
	].join('');
	return Buffer.from(text, 'utf8');
}

export function signRecord(company: Company, signedAt: string): SignedRecord {
	const bytes = renderRecord(company, signedAt);
	return {
		ke: company.ke,
		ks: company.ks,
		signedBytes: bytes,
		servedBytes: bytes,
		sha256: createHash('sha256').update(bytes).digest('hex'),
		signature: sign(null, bytes, key().privateKey).toString('base64'),
		signedAt,
	};
}

export function signatureValid(record: SignedRecord): boolean {
	return verify(null, record.signedBytes, key().publicKey, Buffer.from(record.signature, 'base64'));
}

/** A copy of the bytes with one character changed, keeping valid JSON. */
export function tamperedCopy(bytes: Buffer): Buffer {
	const text = bytes.toString('utf8');
	const changed = text.replace('register_status" : "', 'register_status" : "X');
	return Buffer.from(changed === text ? `${text} ` : changed, 'utf8');
}
