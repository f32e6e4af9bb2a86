import fc from 'fast-check';
import { randomBytes } from 'node:crypto';

import { readCreatedEndpoint, secretShaped } from '../../nodes/shared/webhookEndpoint';
import { runs } from '../property/fc';

/**
 * The webhook create answer's signing secret is read by what it is (docs/service-choices.md: "Webhook
 * endpoint creation"): 16 to 64 random bytes as hex, base64 or base64url (or `whsec_…`), under any
 * name, however nested, beside an id, a URL, dates and names that are never taken for it. Where two
 * values fit and no name tells them apart, both fields are named and none is taken.
 */

const encodings = ['hex', 'base64', 'base64url', 'whsec'] as const;
function secretText(bytes: Buffer, encoding: (typeof encodings)[number]): string {
	if (encoding === 'whsec') return `whsec_${bytes.toString('base64')}`;
	return bytes.toString(encoding);
}

const NEUTRAL = ['value', 'material', 'v', 'data', 'credential'];
const NAMED = ['secret', 'signing_secret', 'hmac_key', 'signingKey'];
const WRAPPERS = ['endpoint', 'signing', 'data', 'webhook', 'result'];
/** Fields every answer may carry that are never the secret. */
const noise = fc.record({
	id: fc.constantFrom('wh_123', 'ep-9f2c', '7', '123e4567-e89b-12d3-a456-426614174000', '01HXYZABCDEFGHJKMNPQRSTVWX'),
	url: fc.constant('https://hooks.buyer.example/service/endpoint-for-production'),
	created_at: fc.constant('2026-11-29T01:02:03.456Z'),
	description: fc.constantFrom('buyer hooks production', 'Webhook endpoint for the procurement workflow'),
	name: fc.constantFrom('buyer_hooks_production_1', 'procurementAlertsEndpoint'),
});

test('property: a secret under any name at any depth is found, the id beside it', () => {
	fc.assert(
		fc.property(
			fc.integer({ min: 16, max: 64 }),
			fc.constantFrom(...encodings),
			fc.constantFrom(...NEUTRAL, ...NAMED),
			fc.array(fc.constantFrom(...WRAPPERS), { maxLength: 3 }),
			noise,
			(size, encoding, name, wrappers, extra) => {
				const secret = secretText(randomBytes(size), encoding);
				let inner: Record<string, unknown> = { [name]: secret };
				for (const wrapper of [...wrappers].reverse()) inner = { [wrapper]: inner };
				const body = { ...extra, ...inner };
				expect(readCreatedEndpoint(body)).toEqual({ id: extra.id, secret });
			},
		),
		runs(300),
	);
});

test('property: two secret-shaped values, neither named as a secret: both fields named, none taken; the field set settles it', () => {
	fc.assert(
		fc.property(fc.constantFrom(...encodings.slice(0, 3)), fc.constantFrom(...encodings.slice(0, 3)), fc.constantFrom('endpoint', 'data', 'webhook', 'result'), (a, b, wrapper) => {
			const first = secretText(randomBytes(32), a);
			const second = secretText(randomBytes(24), b);
			const body = { id: 'wh-1', value: first, [wrapper]: { material: second } };
			expect(readCreatedEndpoint(body)).toEqual({ id: 'wh-1', secret: undefined, secretFields: ['value', `${wrapper}.material`] });
			expect(readCreatedEndpoint(body, `${wrapper}.material`)).toEqual({ id: 'wh-1', secret: second });
			// A name breaks the tie.
			expect(readCreatedEndpoint({ id: 'wh-1', value: first, signing: { secret: second } }).secret).toBe(second);
		}),
		runs(100),
	);
});

test('what is shaped like a secret, and what is not', () => {
	expect(secretShaped(randomBytes(32).toString('hex'))).toBe(true);
	expect(secretShaped('whsec_abc')).toBe(true);
	for (const text of ['123e4567-e89b-12d3-a456-426614174000', 'https://hooks.buyer.example/x', '2026-11-29T01:02:03.456Z', 'buyer_hooks_production_1', 'procurementAlertsEndpoint', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123', randomBytes(8).toString('hex'), randomBytes(100).toString('base64')]) {
		expect([text, secretShaped(text)]).toEqual([text, false]);
	}
	// A secret named as one keeps its place even when it reads as nothing in particular.
	expect(readCreatedEndpoint({ id: 'wh-1', secret: 'short-secret' })).toEqual({ id: 'wh-1', secret: 'short-secret' });
	// The Service's nested hex secret (the fifth Service's answer).
	const hex = randomBytes(32).toString('hex');
	expect(readCreatedEndpoint({ endpoint: { id: 'ep-1', url: 'https://x.example', signing: { secret: hex } } })).toEqual({ id: 'ep-1', secret: hex });
});
