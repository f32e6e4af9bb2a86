/**
 * The verdict on one delivery: accepted, or refused with its reason. The one entry point,
 * `deliveryVerdict`, takes what the delivery brings and where keys come from, and asks for keys
 * only once the header has passed. HMAC-SHA256 with a decoded signing secret over `t` exactly as
 * sent, a full stop, then the exact raw body (spec section 5.4). Pure: no n8n types; it throws
 * only what the key source throws.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

import type { FreshSignatureHeader, HeaderProblem, TimestampUnitSetting } from './signatureHeader';
import { readSignatureHeader } from './signatureHeader';

export type SignatureEncoding = 'auto' | 'hex' | 'base64';

/** What a delivery brings. */
export interface Delivery {
	/** The Service-Signature header as the HTTP layer hands it over (repeated headers may arrive as an array). */
	header: string | string[] | undefined;
	/** The request body exactly as received. */
	rawBody: Buffer;
	/** The receiver's clock, in unix milliseconds. */
	clock: () => number;
}

/** Where keys came from: secrets sealed at activation, or the credential's Webhook Signing Secret. */
export type KeyOrigin = 'stored' | 'credential';

/** Keys to verify with, and the credential's settings read with them. */
export interface HeldKeys {
	/** Candidate HMAC keys; a delivery passes when any key produces any of its `v1` values. */
	keys: Buffer[];
	signatureEncoding: SignatureEncoding;
	/** Signature Timestamp Unit (absent: auto). */
	timestampUnit?: TimestampUnitSetting;
	source: KeyOrigin;
	/** With Secret Encoding set: the secret's other readings, tried only on a mismatch to say which setting would work. */
	alternatives?: Array<{ setting: string; key: Buffer }>;
	/** Told when a key other than the first verified (Detect learning the secret's reading). */
	learned?: (key: Buffer) => void;
}

/** Why the credential and the sealed static data gave no key. */
export type KeyProblem = 'credential' | 'secret' | 'no_endpoint' | 'token_changed';

/** Where keys come from (triggerKeys.ts is the trigger's). */
export interface KeySource {
	/** Keys read from the credential a moment ago, if any (recentKeys.ts says when they settle a delivery). */
	remembered(nowMs: number): HeldKeys | undefined;
	/** The credential and the sealed secrets, read now; a read's keys are remembered as of `clock()`. */
	read(clock: () => number): Promise<HeldKeys | { problem: KeyProblem; detail?: string }>;
}

export type RefusalReason =
	| HeaderProblem
	| 'no_signature'
	| 'mismatch'
	| 'no_key'
	| 'unit_seconds'
	| 'unit_milliseconds'
	| 'secret_encoding'
	| KeyProblem;

/** `detail`: the credential's own complaint (it names no secret), when a KeyProblem has one. */
export type Verdict = { ok: true; timestamp: number } | { ok: false; reason: RefusalReason; detail?: string };

export async function deliveryVerdict(delivery: Delivery, keys: KeySource): Promise<Verdict> {
	// 1. A missing, unreadable or stale t is refused from the header alone, before any key is asked for.
	const header = readSignatureHeader(delivery.header, Math.floor(delivery.clock() / 1000));
	if ('problem' in header) return { ok: false, reason: header.problem };

	// 2. Keys read a moment ago settle a mismatch, and a match on sealed keys, without the credential (recentKeys.ts).
	const recent = keys.remembered(delivery.clock());
	if (recent) {
		const quick = check(header, delivery.rawBody, recent);
		if (!quick.ok || recent.source === 'stored') return quick;
	}

	// 3. The credential, and the secrets sealed in static data.
	const read = await keys.read(delivery.clock);
	if ('problem' in read) return { ok: false, reason: read.problem, detail: read.detail };
	return check(header, delivery.rawBody, read);
}

/** The signature on a header already read, with the settings read beside the keys. */
function check(header: FreshSignatureHeader, rawBody: Buffer, held: HeldKeys): Verdict {
	const setting = held.timestampUnit ?? 'auto';
	// A t in another unit than Signature Timestamp Unit pins is refused, naming both.
	if (setting !== 'auto' && setting !== header.unit) {
		return { ok: false, reason: header.unit === 'seconds' ? 'unit_seconds' : 'unit_milliseconds' };
	}
	const { parts, timestamp } = header;
	const candidates = parts.signatures
		.map((value) => decodeSignature(value, held.signatureEncoding))
		.filter((value): value is Buffer => value !== undefined);
	if (candidates.length === 0) return { ok: false, reason: 'no_signature' };
	if (held.keys.length === 0 && !held.alternatives?.length) return { ok: false, reason: 'no_key' };

	// The signed text uses `t` exactly as sent, so leading zeros or the like still verify.
	const signs = (key: Buffer) => {
		const expected = createHmac('sha256', keyObject(key)).update(`${parts.timestamps[0]}.`).update(rawBody).digest();
		let equal = false;
		// timingSafeEqual throws on unequal lengths; the length is public anyway (always 32).
		for (const candidate of candidates) if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) equal = true;
		return equal;
	};
	// The first key that verifies ends the search: once the reading is learned, it is the only key (one HMAC a delivery).
	const at = held.keys.findIndex(signs);
	if (at >= 0 && held.keys.length > 1) held.learned?.(held.keys[at]);
	if (at >= 0) return { ok: true, timestamp };
	// Refused all the same; said when another reading of the secret would have verified.
	const other = held.alternatives?.find(({ key }) => signs(key));
	return other === undefined ? { ok: false, reason: 'mismatch' } : { ok: false, reason: 'secret_encoding', detail: other.setting };
}

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const BASE64_SHA256 = /^(?:[A-Za-z0-9+/]{43}|[A-Za-z0-9_-]{43})=?$/;

/** The signature bytes of one `v1` value, or undefined when it is not a well-formed SHA-256 digest. */
function decodeSignature(value: string, encoding: SignatureEncoding): Buffer | undefined {
	// The two forms cannot be confused: a SHA-256 is 64 characters in hex, 43 or 44 in base64.
	if (encoding !== 'base64' && HEX_SHA256.test(value)) return Buffer.from(value, 'hex');
	if (encoding !== 'hex' && BASE64_SHA256.test(value)) {
		const bytes = Buffer.from(value, 'base64');
		// The last character carries two unused bits: only their canonical (zero) form is the signature.
		// 32 bytes are 43 characters and one `=` in base64.
		const canonical = bytes.toString('base64').slice(0, 43);
		return canonical === value.replace(/=$/, '').replace(/-/g, '+').replace(/_/g, '/') ? bytes : undefined;
	}
	return undefined;
}

// A KeyObject, not a Buffer, keys the HMAC: about 4x faster on Node 24 (docs/performance.md); made once per key.
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObject(key: Buffer): KeyObject {
	let made = keyObjects.get(key);
	if (made === undefined) {
		made = createSecretKey(key);
		keyObjects.set(key, made);
	}
	return made;
}
