import { createHash, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

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

/** The public key as a verify route of `form` publishes it. */
export function publicKeyAs(form: 'spki-base64' | 'spki-hex' | 'pem' | 'jwk' | 'raw-hex' | 'raw-base64url'): unknown {
	const { publicKey } = key();
	const der = publicKey.export({ format: 'der', type: 'spki' });
	switch (form) {
		case 'spki-base64':
			return der.toString('base64');
		case 'spki-hex':
			return der.toString('hex');
		case 'pem':
			return publicKey.export({ format: 'pem', type: 'spki' }).toString();
		case 'jwk':
			return { ...publicKey.export({ format: 'jwk' }), use: 'sig', kid: 'sandbox-1' };
		case 'raw-hex':
			return der.subarray(12).toString('hex');
		case 'raw-base64url':
			return der.subarray(12).toString('base64url');
	}
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
