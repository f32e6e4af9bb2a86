import { createHmac } from 'node:crypto';
import fc from 'fast-check';

import type { TimestampUnitSetting } from '../../nodes/ServiceTrigger/verify/signatureHeader';
import { decodeSigningSecret, type SecretEncoding } from '../../nodes/ServiceTrigger/verify/signingSecret';
import { deliveryVerdict, type SignatureEncoding } from '../../nodes/ServiceTrigger/verify/verdict';
import { runs } from '../property/fc';
import { keysAtHand } from './keysAtHand';

/**
 * The Service-Signature reader under generated header dialects (docs/service-choices.md): the
 * separator, the unit of t, the encodings of the secret and of v1, the order of the parts, extra
 * v1 values and unknown parts. The signer here is written from the spec, not from the reader.
 */

const now = 1_760_000_000;
const clock = () => now * 1000;

interface Dialect {
	unit: 'seconds' | 'milliseconds';
	separator: string;
	v1Encoding: 'hex' | 'HEX' | 'base64' | 'base64url';
	secretEncoding: SecretEncoding;
	order: number[];
	unknownParts: Array<[string, string]>;
	decoys: number;
}

const dialect: fc.Arbitrary<Dialect> = fc.record({
	unit: fc.constantFrom('seconds', 'milliseconds'),
	separator: fc.constantFrom(',', ';', ', ', '; ', ' ', '\t', ' ,', ' ; '),
	v1Encoding: fc.constantFrom('hex', 'HEX', 'base64', 'base64url'),
	secretEncoding: fc.constantFrom('base64', 'hex', 'raw'),
	order: fc.shuffledSubarray([0, 1, 2, 3, 4, 5, 6, 7], { minLength: 8, maxLength: 8 }),
	unknownParts: fc.array(
		fc.tuple(
			fc.stringMatching(/^[a-z0-9_]{1,6}$/).filter((name) => name !== 't' && name !== 'v1'),
			fc.stringMatching(/^[A-Za-z0-9=_.-]{0,12}$/),
		),
		{ maxLength: 3 },
	),
	decoys: fc.integer({ min: 0, max: 2 }),
});

/** The secret as the Service hands it out, and the key bytes it stands for. */
const secret = (encoding: SecretEncoding) =>
	encoding === 'raw'
		? fc.stringMatching(/^[A-Za-z0-9_-]{16,48}$/).map((text) => ({ text, key: Buffer.from(text, 'utf8') }))
		: fc.uint8Array({ minLength: 16, maxLength: 64 }).map((bytes) => {
				const key = Buffer.from(bytes);
				return { text: encoding === 'hex' ? key.toString('hex') : `whsec_${key.toString('base64')}`, key };
			});

function sign(key: Buffer, t: string, body: Buffer, encoding: Dialect['v1Encoding']): string {
	const digest = createHmac('sha256', key).update(`${t}.`).update(body).digest();
	if (encoding === 'HEX') return digest.toString('hex').toUpperCase();
	return digest.toString(encoding);
}

/** `t` as the dialect writes it, `offsetMs` from now. */
function timestamp(unit: Dialect['unit'], offsetMs: number): string {
	return unit === 'milliseconds' ? String(now * 1000 + offsetMs) : String(now + Math.trunc(offsetMs / 1000));
}

function header(d: Dialect, key: Buffer, t: string, body: Buffer, decoyKeys: Buffer[]): string {
	const parts = [`t=${t}`, `v1=${sign(key, t, body, d.v1Encoding)}`];
	for (const decoy of decoyKeys.slice(0, d.decoys)) parts.push(`v1=${sign(decoy, t, body, d.v1Encoding)}`);
	for (const [name, value] of d.unknownParts) parts.push(`${name}=${value}`);
	const ordered = d.order.filter((index) => index < parts.length).map((index) => parts[index]);
	return ordered.join(d.separator);
}

const case_ = fc
	.record({ d: dialect, body: fc.uint8Array({ maxLength: 256 }), offsetMs: fc.integer({ min: -299_000, max: 299_000 }) })
	.chain(({ d, body, offsetMs }) =>
		fc.record({
			d: fc.constant(d),
			body: fc.constant(Buffer.from(body)),
			offsetMs: fc.constant(offsetMs),
			secret: secret(d.secretEncoding),
			decoyKeys: fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b)), { minLength: 2, maxLength: 2 }),
		}),
	);

function verify(d: Dialect, headerValue: string, body: Buffer, secretText: string, pinned = false) {
	const signatureEncoding: SignatureEncoding = pinned ? (d.v1Encoding.startsWith('base64') ? 'base64' : 'hex') : 'auto';
	const timestampUnit: TimestampUnitSetting = pinned ? d.unit : 'auto';
	const key = decodeSigningSecret(secretText, d.secretEncoding);
	return deliveryVerdict({ header: headerValue, rawBody: body, clock }, keysAtHand([key], signatureEncoding, timestampUnit));
}

describe('Service-Signature reader, generated dialects', () => {
	test('a genuine delivery verifies in every dialect, with the settings on Detect and pinned to the dialect', async () => {
		await fc.assert(
			fc.asyncProperty(case_, fc.boolean(), async ({ d, body, offsetMs, secret: s, decoyKeys }, pinned) => {
				const t = timestamp(d.unit, offsetMs);
				expect(await verify(d, header(d, s.key, t, body, decoyKeys), body, s.text, pinned)).toMatchObject({ ok: true });
			}),
			runs(500),
		);
	});

	test('any change to the body, t, v1 or the secret is refused', async () => {
		const mutation = fc.constantFrom('body byte', 'body longer', 't', 'v1 character', 'secret', 'v1 dropped');
		await fc.assert(
			fc.asyncProperty(case_, mutation, fc.nat(), async ({ d, body, offsetMs, secret: s, decoyKeys }, what, at) => {
				const t = timestamp(d.unit, offsetMs);
				const genuine = header(d, s.key, t, body, decoyKeys);
				let sent = genuine;
				let sentBody = body;
				let secretText = s.text;
				if (what === 'body byte' && body.length > 0) {
					sentBody = Buffer.from(body);
					sentBody[at % body.length] ^= 1 + (at % 255);
				} else if (what === 'body byte' || what === 'body longer') {
					sentBody = Buffer.concat([body, Buffer.from([at % 256])]);
				} else if (what === 't') {
					sent = genuine.replace(`t=${t}`, `t=${BigInt(t) + BigInt(1 + (at % 5))}`);
				} else if (what === 'v1 character') {
					const v1 = sign(s.key, t, body, d.v1Encoding);
					const index = at % v1.length;
					const alphabet = d.v1Encoding === 'base64url' ? 'AB' : d.v1Encoding === 'HEX' ? 'AB' : d.v1Encoding === 'hex' ? 'ab' : 'AB';
					const replacement = v1[index] === alphabet[0] ? alphabet[1] : alphabet[0];
					sent = genuine.replace(v1, `${v1.slice(0, index)}${replacement}${v1.slice(index + 1)}`);
				} else if (what === 'secret') {
					sent = header(d, decoyKeys[1], t, body, [decoyKeys[0]]);
				} else {
					sent = genuine.replace(`v1=${sign(s.key, t, body, d.v1Encoding)}`, 'v1=');
				}
				expect(await verify(d, sent, sentBody, secretText)).toMatchObject({ ok: false });
				secretText = '';
			}),
			runs(500),
		);
	});

	test('a t outside 300 seconds, counted in the unit it was sent in, is refused as stale or future', async () => {
		await fc.assert(
			fc.asyncProperty(case_, fc.integer({ min: 301_000, max: 10_000_000 }), fc.boolean(), async ({ d, body, secret: s, decoyKeys }, distanceMs, past) => {
				const t = timestamp(d.unit, past ? -distanceMs : distanceMs);
				const verdict = await verify(d, header(d, s.key, t, body, decoyKeys), body, s.text);
				expect(verdict).toEqual({ ok: false, reason: past ? 'stale' : 'future' });
			}),
			runs(300),
		);
	});

	test('a t in the other unit than Signature Timestamp Unit pins is refused, naming the setting', async () => {
		await fc.assert(
			fc.asyncProperty(case_, async ({ d, body, offsetMs, secret: s, decoyKeys }) => {
				const t = timestamp(d.unit, offsetMs);
				const key = decodeSigningSecret(s.text, d.secretEncoding);
				const verdict = await deliveryVerdict(
					{ header: header(d, s.key, t, body, decoyKeys), rawBody: body, clock },
					keysAtHand([key], 'auto', d.unit === 'seconds' ? 'milliseconds' : 'seconds'),
				);
				expect(verdict).toEqual({ ok: false, reason: d.unit === 'seconds' ? 'unit_seconds' : 'unit_milliseconds' });
			}),
			runs(200),
		);
	});

	test('any header text is refused without throwing', async () => {
		const key = Buffer.alloc(32, 7);
		const text = fc.oneof(
			fc.string({ maxLength: 200 }),
			fc.array(fc.constantFrom('t', 'v1', '=', ',', ';', ' ', '\t', '0', '9', 'a', 'f', '1760000000', '1760000000000', 'é', '\u0000'), { maxLength: 40 }).map((p) => p.join('')),
		);
		await fc.assert(
			fc.asyncProperty(fc.oneof(text, fc.array(text, { maxLength: 3 })), fc.uint8Array({ maxLength: 64 }), async (value, body) => {
				const verdict = await deliveryVerdict({ header: value, rawBody: Buffer.from(body), clock }, keysAtHand([key], 'auto'));
				expect(verdict.ok).toBe(false);
			}),
			runs(2000),
		);
	});
});
