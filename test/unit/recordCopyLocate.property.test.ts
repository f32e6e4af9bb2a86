import fc from 'fast-check';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

import { checkRecordCopy, UnreadableVerification, type VerificationFields } from '../../nodes/ServiceReader/actions/record/copy/recordCopy';
import { runs } from '../property/fc';

/**
 * Check Copy finds the key, digest and signature by what they are, whatever the Service names them
 * and however deep (docs/service-choices.md: Verification): drawn answers put each part under a drawn
 * name at a drawn depth, beside fields that are none of them. The genuine copy matches, or the error
 * names the two fields that fit a part and setting Verification Fields to the true one makes it match;
 * a changed copy is copy_matches false, never an error.
 */

type Suite = 'Ed25519' | 'ES256' | 'ES384' | 'RS256' | 'PS512';
const pairs = {
	Ed25519: generateKeyPairSync('ed25519'),
	ES256: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }),
	ES384: generateKeyPairSync('ec', { namedCurve: 'secp384r1' }),
	RSA: generateKeyPairSync('rsa', { modulusLength: 2048 }),
};
const decoy = generateKeyPairSync('ed25519').publicKey;
const pairOf = (suite: Suite) => (suite === 'RS256' || suite === 'PS512' ? pairs.RSA : pairs[suite]);

function signed(bytes: Buffer, suite: Suite): Buffer {
	const { privateKey } = pairOf(suite);
	if (suite === 'Ed25519') return sign(null, bytes, privateKey);
	if (suite === 'PS512') return sign('sha512', bytes, { key: privateKey, padding: 6, saltLength: 64 });
	return sign(`sha${suite.slice(2)}`, bytes, privateKey);
}

/** A key as Services write it; an RSA one says its algorithm (the key alone cannot). */
function keyValue(key: KeyObject, suite: Suite, form: number): unknown {
	const jwk = { ...key.export({ format: 'jwk' }), ...(suite.startsWith('RS') || suite.startsWith('PS') ? { alg: suite } : {}) };
	const spki = key.export({ format: 'der', type: 'spki' });
	return [jwk, JSON.stringify(jwk), key.export({ format: 'pem', type: 'spki' }).toString(), spki.toString('base64'), spki.toString('hex'), { keys: [jwk] }][form];
}

const encode = (bytes: Buffer, form: number) => [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')][form];
const digestText = (bytes: Buffer, algorithm: string, form: number) =>
	form < 3 ? encode(createHash(algorithm).update(bytes).digest(), form) : `${algorithm.replace('sha', 'sha-')}=${createHash(algorithm).update(bytes).digest('base64')}`;

/** Names a Service may give a part: telling ones and ones that say nothing. */
const NAMES = { key: ['public_key_pem', 'verification_key', 'pk', 'signer', 'k1', 'material'], digest: ['content_sha', 'hash_value', 'fingerprint', 'd', 'x1'], signature: ['sig', 'signature_b64', 'proof', 's', 'x2'] };
const WRAPPERS = ['verification', 'meta', 'result', 'data'];

const drawn = fc.record({
	file: fc.uint8Array({ minLength: 1, maxLength: 64 }),
	suite: fc.constantFrom<Suite>('Ed25519', 'ES256', 'ES384', 'RS256', 'PS512'),
	keyForm: fc.nat(5),
	digestAlgorithm: fc.constantFrom('sha256', 'sha384', 'sha512'),
	digestForm: fc.nat(3),
	signatureForm: fc.nat(2),
	names: fc.record({ key: fc.constantFrom(...NAMES.key), digest: fc.constantFrom(...NAMES.digest), signature: fc.constantFrom(...NAMES.signature) }),
	/** Each part's wrappers, outermost first: 0 to 2 deep. */
	depths: fc.record({ key: fc.array(fc.constantFrom(...WRAPPERS), { maxLength: 2 }), digest: fc.array(fc.constantFrom(...WRAPPERS), { maxLength: 2 }), signature: fc.array(fc.constantFrom(...WRAPPERS), { maxLength: 2 }) }),
	/** A second key (a rotation's next one) beside the signing one. */
	otherKey: fc.boolean(),
	noise: fc.dictionary(fc.constantFrom('id', 'ks', 'signed_at', 'valid', 'issuer', 'url'), fc.oneof(fc.string({ maxLength: 12 }), fc.boolean(), fc.integer()), { maxKeys: 4 }),
});
type Drawn = typeof drawn extends fc.Arbitrary<infer T> ? T : never;

/** The answer, and the path of each part in it. */
function answerOf(d: Drawn, bytes: Buffer): { answer: Record<string, unknown>; paths: Required<VerificationFields> } {
	const answer: Record<string, unknown> = { ...d.noise };
	const put = (wrappers: string[], name: string, value: unknown): string => {
		let holder = answer;
		for (const wrapper of wrappers) holder = (holder[wrapper] ??= {}) as Record<string, unknown>;
		// Two parts drawn under one name at one place: the later takes a suffix, as a Service would name two fields.
		let unique = name;
		while (Object.prototype.hasOwnProperty.call(holder, unique)) unique = `${unique}_2`;
		holder[unique] = value;
		return [...wrappers, unique].join('.');
	};
	const key = put(d.depths.key, d.names.key, keyValue(pairOf(d.suite).publicKey, d.suite, d.keyForm));
	const digest = put(d.depths.digest, d.names.digest, digestText(bytes, d.digestAlgorithm, d.digestForm));
	const signature = put(d.depths.signature, d.names.signature, encode(signed(bytes, d.suite), d.signatureForm));
	// An RSA key signs two ways with three hashes: the Service says which (a JWK's alg, or this).
	if (d.suite === 'RS256' || d.suite === 'PS512') answer.alg = d.suite;
	if (d.otherKey) put([], 'next_key', decoy.export({ format: 'pem', type: 'spki' }).toString());
	return { answer, paths: { key: d.keyForm === 5 ? `${key}.keys[0]` : key, digest, signature } };
}

test('property: a key, digest and signature under any name at any depth are found, or the two fields a part may be are named', () => {
	fc.assert(
		fc.property(drawn, fc.nat(), (d, at) => {
			const bytes = Buffer.from(d.file);
			const { answer, paths } = answerOf(d, bytes);
			let check;
			try {
				check = checkRecordCopy(bytes, answer);
			} catch (error) {
				expect(error).toBeInstanceOf(UnreadableVerification);
				const message = (error as Error).message;
				// Named, never picked: each undecided part's fields, the true one among them; set, it matches.
				const named = [...message.matchAll(/may be the (public key|digest|signature) \(([^)]*)\)/g)];
				if (named.length === 0) throw new Error(`unexpected: ${message}`);
				expect(named.length).toBeGreaterThan(0);
				const fields: VerificationFields = {};
				for (const [, role, listed] of named) {
					const which = role === 'public key' ? 'key' : (role as 'digest' | 'signature');
					expect(listed.split(', ').length).toBeGreaterThan(1);
					fields[which] = paths[which];
				}
				check = checkRecordCopy(bytes, answer, fields);
			}
			expect(check.copy_matches).toBe(true);

			// A changed copy: false whatever the fields, the check having run.
			const changed = Buffer.from(bytes);
			changed[at % changed.length] ^= 0x01;
			expect(checkRecordCopy(changed, answer).copy_matches).toBe(false);
		}),
		runs(300),
	);
});

test('Verification Fields naming a part outright: that field, read for its error when it is no such part', () => {
	const bytes = Buffer.from('{"ks":"KS-1"}');
	const answer = { verification: { public_key_pem: pairs.Ed25519.publicKey.export({ format: 'pem', type: 'spki' }).toString(), sha512: createHash('sha512').update(bytes).digest('hex'), value: sign(null, bytes, pairs.Ed25519.privateKey).toString('hex') } };
	expect(checkRecordCopy(bytes, answer).copy_matches).toBe(true);
	expect(checkRecordCopy(bytes, answer, { signature: 'verification.value', digest: 'verification.sha512', key: 'verification.public_key_pem' }).copy_matches).toBe(true);
	expect(() => checkRecordCopy(bytes, answer, { signature: 'verification.public_key_pem' })).toThrow(expect.objectContaining({ field: 'verification.public_key_pem' }));
	expect(() => checkRecordCopy(bytes, answer, { key: 'verification.missing' })).toThrow('has no field verification.missing (Public Key Field under Verification Fields of this node)');
});

test('more fields that may be a part than are weighed: named, for Verification Fields to settle, never one picked', () => {
	const bytes = Buffer.from('{"ks":"KS-1"}');
	const keys = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`key_${i}`, generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }).toString()]));
	const answer = { ...keys, sha256: createHash('sha256').update(bytes).digest('hex'), signature: Buffer.alloc(64).toString('hex') };
	expect(() => checkRecordCopy(bytes, answer)).toThrow('has 5 fields that may be the public key (key_0, key_1, key_2, key_3, key_4): set Public Key Field under Verification Fields of this node');
	expect(checkRecordCopy(bytes, answer, { key: 'key_0' }).copy_matches).toBe(false);
});

test('a wrapper holding a `keys` list of texts is no JWK set: the parts inside it are read', () => {
	const bytes = Buffer.from('{"ks":"KS-1"}');
	const spki = pairs.Ed25519.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
	const answer = { data: { keys: [spki], sha256: createHash('sha256').update(bytes).digest('hex'), signature: sign(null, bytes, pairs.Ed25519.privateKey).toString('base64') } };
	expect(checkRecordCopy(bytes, answer).copy_matches).toBe(true);
});
