import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';

import { learnedReadings, SecretReadings } from '../../nodes/ServiceTrigger/verify/secretReadings';
import type { SecretEncoding, SecretEncodingSetting } from '../../nodes/ServiceTrigger/verify/signingSecret';
import { deliveryVerdict, type HeldKeys, type KeySource } from '../../nodes/ServiceTrigger/verify/verdict';
import { runs } from '../property/fc';

/**
 * Secret Encoding: Detect accepts a delivery signed with the secret's true key whatever the Service
 * encoded it as (hex, base64, whsec_ + base64, base64url, the text itself), learns that reading so the
 * next delivery costs one HMAC, and a wrong set encoding still refuses, naming the value that works.
 * The signer here is written from the spec: HMAC-SHA256 over t, a full stop and the raw body.
 */
const nowMs = 1_760_000_000_000;
type Written = 'hex' | 'base64' | 'whsec' | 'base64url' | 'raw';
const TRUE_READING: Record<Written, SecretEncoding> = { hex: 'hex', base64: 'base64', whsec: 'base64', base64url: 'base64', raw: 'raw' };
const LABEL: Record<SecretEncoding, string> = { hex: 'Hex', base64: 'Base64 (Optional Whsec_ Prefix)', raw: 'Raw Text' };

function written(key: Buffer, as: Written): string {
	switch (as) {
		case 'hex':
			return key.toString('hex');
		case 'base64':
			return key.toString('base64');
		case 'whsec':
			return `whsec_${key.toString('base64')}`;
		case 'base64url':
			return key.toString('base64url');
		case 'raw':
			return key.toString('base64url').replace(/[-_]/g, 'x');
	}
}

/** The HMAC key the Service signs with: for a raw secret, its text. */
const signingKey = (secret: string, as: Written, key: Buffer) => (as === 'raw' ? Buffer.from(secret, 'utf8') : key);

function delivery(key: Buffer, body: string) {
	const t = String(nowMs / 1000);
	const v1 = createHmac('sha256', key).update(`${t}.`).update(body).digest('hex');
	return { header: `t=${t},v1=${v1}`, rawBody: Buffer.from(body), clock: () => nowMs };
}

/** A key source over one read, counting the HMAC keys tried through the order the read gives. */
function source(secret: string, setting: SecretEncodingSetting): { keys: KeySource; held: () => HeldKeys } {
	let last: HeldKeys | undefined;
	const read = () => {
		const readings = new SecretReadings(setting, () => nowMs);
		readings.add(secret);
		last = { ...readings.held(), signatureEncoding: 'auto', source: 'stored' };
		return last;
	};
	return { keys: { remembered: () => undefined, read: async () => read() }, held: () => last! };
}

const drawn = fc.record({ key: fc.uint8Array({ minLength: 16, maxLength: 64 }).map((bytes) => Buffer.from(bytes)), as: fc.constantFrom<Written>('hex', 'base64', 'whsec', 'base64url', 'raw') });

beforeEach(() => learnedReadings.clear());

test('Detect (the default) accepts a delivery signed under the secret however it was written, and learns that reading first', async () => {
	await fc.assert(
		fc.asyncProperty(drawn, async ({ key, as }) => {
			learnedReadings.clear();
			const secret = written(key, as);
			const signer = signingKey(secret, as, key);
			const first = source(secret, 'auto');
			expect(await deliveryVerdict(delivery(signer, '{"alert_id":"a1"}'), first.keys)).toEqual({ ok: true, timestamp: nowMs / 1000 });
			// Learned: the next read of the credential puts the key that verified first, so one HMAC settles a genuine delivery.
			const next = source(secret, 'auto');
			expect(await deliveryVerdict(delivery(signer, '{"alert_id":"a2"}'), next.keys)).toMatchObject({ ok: true });
			// Only that reading from then on: a forgery costs one HMAC, as under a set encoding.
			expect(next.held().keys.map((k) => k.equals(signer))).toEqual([true]);
			// A forgery (another key) is refused under Detect: no reading of the secret signs it.
			expect(await deliveryVerdict(delivery(randomBytes(32), '{"alert_id":"a3"}'), source(secret, 'auto').keys)).toEqual({ ok: false, reason: 'mismatch' });
		}),
		runs(200),
	);
});

test('a set Secret Encoding that does not fit still refuses a genuine delivery, and says which value would verify it', async () => {
	await fc.assert(
		fc.asyncProperty(drawn, fc.constantFrom<SecretEncoding>('hex', 'base64', 'raw'), async ({ key, as }, setting) => {
			const secret = written(key, as);
			const signer = signingKey(secret, as, key);
			const verdict = await deliveryVerdict(delivery(signer, '{"alert_id":"b1"}'), source(secret, setting).keys);
			if (setting === TRUE_READING[as]) {
				expect(verdict).toMatchObject({ ok: true });
			} else {
				expect(verdict).toEqual({ ok: false, reason: 'secret_encoding', detail: LABEL[TRUE_READING[as]] });
			}
		}),
		runs(200),
	);
});

test('a hex secret of 64 characters is read as hex first: one HMAC for the first delivery too', async () => {
	const key = randomBytes(32);
	const { keys, held } = source(key.toString('hex'), 'auto');
	expect(await deliveryVerdict(delivery(key, '{}'), keys)).toMatchObject({ ok: true });
	// Verified under hex: the other readings are dropped from the keys held, for this read too.
	expect(held().keys.map((k) => k.length)).toEqual([32]);
});

test('two secrets held at once (a second endpoint): learning one keeps every reading of the other', async () => {
	const first = randomBytes(32);
	const second = randomBytes(32);
	const readings = new SecretReadings('auto', () => nowMs);
	readings.add(first.toString('hex'));
	readings.add(second.toString('base64'));
	const held: HeldKeys = { ...readings.held(), signatureEncoding: 'auto', source: 'stored' };
	const keys: KeySource = { remembered: () => undefined, read: async () => held };
	expect(await deliveryVerdict(delivery(first, '{}'), keys)).toMatchObject({ ok: true });
	expect(held.keys[0].equals(first)).toBe(true);
	expect(held.keys.filter((k) => k.equals(second))).toHaveLength(1);
	expect(await deliveryVerdict(delivery(second, '{}'), keys)).toMatchObject({ ok: true });
	expect(held.keys.map((k) => k.equals(first) || k.equals(second))).toEqual([true, true]);
});
