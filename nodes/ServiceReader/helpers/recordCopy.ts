/**
 * Checks a locally held copy of a signed record against the Service's verification answer
 * (docs/service-choices.md: Verification). Pure: no n8n types; node's crypto only.
 * Both checks run on the exact bytes: a copy that was re-serialised or re-encoded fails, which is
 * the point, since the signature covers the file as published.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';

export interface VerificationAnswer {
	algorithm?: unknown;
	sha256?: unknown;
	signature?: unknown;
	public_key?: unknown;
}

export interface CopyCheck {
	copy_matches: boolean;
	copy_reason: string;
	copy_sha256: string;
}

// DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The Ed25519 public key from PEM, base64 DER SPKI, or the raw 32-byte key in base64 or hex. */
export function ed25519PublicKey(value: string): KeyObject {
	const text = value.trim();
	if (text.startsWith('-----BEGIN')) return createPublicKey(text);
	const bytes = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
	const der = bytes.length === 32 ? Buffer.concat([ED25519_SPKI_PREFIX, bytes]) : bytes;
	const key = createPublicKey({ key: der, format: 'der', type: 'spki' });
	if (key.asymmetricKeyType !== 'ed25519') {
		throw new Error(`the key is ${key.asymmetricKeyType ?? 'of an unknown type'}, not Ed25519`);
	}
	return key;
}

function short(hex: string): string {
	return hex.length > 16 ? `${hex.slice(0, 16)}…` : hex;
}

export function checkRecordCopy(copy: Uint8Array, answer: VerificationAnswer): CopyCheck {
	const bytes = Buffer.from(copy.buffer, copy.byteOffset, copy.byteLength);
	const copySha256 = createHash('sha256').update(bytes).digest('hex');
	const result = (matches: boolean, reason: string): CopyCheck => ({
		copy_matches: matches,
		copy_reason: reason,
		copy_sha256: copySha256,
	});

	const algorithm = typeof answer.algorithm === 'string' ? answer.algorithm : 'Ed25519';
	if (algorithm.toLowerCase() !== 'ed25519') {
		return result(false, `The Service signs with ${algorithm}; only Ed25519 signatures can be checked here.`);
	}
	if (typeof answer.sha256 !== 'string' || typeof answer.signature !== 'string' || typeof answer.public_key !== 'string') {
		return result(false, 'The Service\'s verification has no sha256, signature or public_key, so the copy cannot be checked.');
	}

	const published = answer.sha256.trim().toLowerCase();
	if (copySha256 !== published) {
		return result(
			false,
			`The copy's SHA-256 (${short(copySha256)}) differs from the published one (${short(published)}): the copy is not the signed file. It was changed, re-saved or re-encoded; download the record again.`,
		);
	}

	let key: KeyObject;
	try {
		key = ed25519PublicKey(answer.public_key);
	} catch (error) {
		return result(false, `The Service's public key could not be read (${(error as Error).message}), so the signature cannot be checked.`);
	}
	const signature = Buffer.from(answer.signature.trim(), 'base64');
	let valid = false;
	try {
		valid = verify(null, bytes, key, signature);
	} catch {
		valid = false;
	}
	if (!valid) {
		return result(false, 'The copy has the published SHA-256 but the Ed25519 signature does not verify with the Service\'s public key.');
	}
	return result(true, 'The copy is byte for byte the signed file: its SHA-256 matches and the Ed25519 signature verifies.');
}
