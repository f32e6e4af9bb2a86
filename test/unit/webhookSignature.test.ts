import { createHmac } from 'node:crypto';

import { refusalWords } from '../../nodes/ServiceTrigger/verify/refusalLog';
import { parseSignatureHeader } from '../../nodes/ServiceTrigger/verify/signatureHeader';
import { deliveryVerdict, type SignatureEncoding } from '../../nodes/ServiceTrigger/verify/verdict';
import { newSigningSecret, secretKey, signatureHeader } from '../sandbox/signing';
import { keysAtHand } from './keysAtHand';

// The sandbox's signer is a separate implementation of the assumptions in docs/service-choices.md: the verifier
// must agree with it, not with itself.
const secret = newSigningSecret();
const key = secretKey(secret);
const now = 1_760_000_000;
const body = Buffer.from('{"event_type":"ledger_high","alert_id":"al_1","ids":{"organisation":"KE-1"},"severity":"high","occurred_at":"2026-01-01T00:00:00.000Z"}');

function check(header: string | string[] | undefined, overrides: { rawBody?: Buffer; keys?: Buffer[]; signatureEncoding?: SignatureEncoding } = {}) {
	const { rawBody = body, keys = [key], signatureEncoding = 'hex' } = overrides;
	return deliveryVerdict({ header, rawBody, clock: () => now * 1000 }, keysAtHand(keys, signatureEncoding));
}

const v1Of = (header: string) => /v1=([0-9a-f]+)/.exec(header)![1];

describe('parseSignatureHeader', () => {
	it('reads t and every v1, tolerating whitespace and unknown parts', () => {
		expect(parseSignatureHeader(' t = 12 , v1=aa,v0=zz, v1= bb ,junk')).toEqual({ timestamps: ['12'], signatures: ['aa', 'bb'] });
	});

	it('returns nothing for a header without parts', () => {
		expect(parseSignatureHeader('')).toEqual({ timestamps: [], signatures: [] });
	});
});

describe('deliveryVerdict', () => {
	it('accepts a delivery signed by the sandbox', async () => {
		expect(await check(signatureHeader(secret, now, body))).toEqual({ ok: true, timestamp: now });
	});

	it('accepts whitespace around parts and a header split into several values', async () => {
		const v1 = v1Of(signatureHeader(secret, now, body));
		expect((await check(`  t=${now} ,\tv1=${v1}  `)).ok).toBe(true);
		expect((await check([`t=${now}`, `v1=${v1}`])).ok).toBe(true);
	});

	it('accepts a valid v1 beside invalid ones (secret rotation)', async () => {
		const v1 = v1Of(signatureHeader(secret, now, body));
		const other = v1Of(signatureHeader(newSigningSecret(), now, body));
		expect((await check(`t=${now},v1=${other},v1=${v1},v1=zz`)).ok).toBe(true);
	});

	it('accepts with any of several keys (credential secret and stored secret)', async () => {
		const header = signatureHeader(secret, now, body);
		expect((await check(header, { keys: [secretKey(newSigningSecret()), key] })).ok).toBe(true);
	});

	it.each([
		['missing header', undefined, 'no_header'],
		['empty header', '   ', 'no_header'],
		['missing t', 'v1=00', 'no_timestamp'],
		['non-numeric t', 't=abc,v1=00', 'bad_timestamp'],
		['t with a fraction', `t=${now}.5,v1=00`, 'bad_timestamp'],
		['t in exponent form', 't=1.76e9,v1=00', 'bad_timestamp'],
		['negative t', `t=-${now},v1=00`, 'bad_timestamp'],
		['two t parts', `t=${now},t=${now},v1=00`, 'bad_timestamp'],
		['empty v1', `t=${now},v1=`, 'no_signature'],
		['no v1 at all', `t=${now}`, 'no_signature'],
	])('refuses: %s', async (_name, header, reason) => {
		expect(await check(header)).toEqual({ ok: false, reason });
	});

	it('refuses t more than 300 s in the past or future, accepts exactly 300 s', async () => {
		expect(await check(signatureHeader(secret, now - 301, body))).toEqual({ ok: false, reason: 'stale' });
		expect(await check(signatureHeader(secret, now + 301, body))).toEqual({ ok: false, reason: 'future' });
		expect((await check(signatureHeader(secret, now - 300, body))).ok).toBe(true);
		expect((await check(signatureHeader(secret, now + 300, body))).ok).toBe(true);
	});

	it('refuses a tampered body, a tampered t, a wrong secret and a truncated v1', async () => {
		const header = signatureHeader(secret, now, body);
		const v1 = v1Of(header);
		expect((await check(header, { rawBody: Buffer.from(body.toString().replace('KE-1', 'KE-2')) })).ok).toBe(false);
		expect(await check(`t=${now - 1},v1=${v1}`)).toEqual({ ok: false, reason: 'mismatch' });
		expect(await check(signatureHeader(newSigningSecret(), now, body))).toEqual({ ok: false, reason: 'mismatch' });
		expect(await check(`t=${now},v1=${v1.slice(0, -2)}`)).toEqual({ ok: false, reason: 'no_signature' });
	});

	it('refuses the same JSON re-serialised with different whitespace', async () => {
		const header = signatureHeader(secret, now, body);
		const reserialised = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
		expect(await check(header, { rawBody: reserialised })).toEqual({ ok: false, reason: 'mismatch' });
	});

	it('refuses when no key is available', async () => {
		expect(await check(signatureHeader(secret, now, body), { keys: [] })).toEqual({ ok: false, reason: 'no_key' });
	});

	it('verifies base64 signatures when Signature Encoding is Base64', async () => {
		const v1 = createHmac('sha256', key).update(`${now}.`).update(body).digest('base64');
		expect((await check(`t=${now},v1=${v1}`, { signatureEncoding: 'base64' })).ok).toBe(true);
		// The hex form is not a base64 digest: a mismatch of settings shows as no usable signature.
		expect(await check(signatureHeader(secret, now, body), { signatureEncoding: 'base64' })).toEqual({ ok: false, reason: 'no_signature' });
	});

	it('names every refusal in words that hold no signature', () => {
		const header = signatureHeader(secret, now, body);
		for (const reason of ['no_header', 'no_timestamp', 'bad_timestamp', 'stale', 'future', 'no_signature', 'mismatch', 'no_key'] as const) {
			const words = refusalWords(reason);
			expect(words.length).toBeGreaterThan(10);
			expect(words).not.toContain(v1Of(header));
		}
	});
});
