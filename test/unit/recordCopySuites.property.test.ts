import fc from 'fast-check';
import { constants, createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

import { checkRecordCopy, UnreadableVerification } from '../../nodes/ServiceReader/actions/record/copy/recordCopy';
import { runs } from '../property/fc';

/**
 * Check Copy reads every verification suite it promises (docs/service-choices.md: Verification):
 * whatever the digest (algorithm × encoding × form) and the signature (suite × encoding × key format ×
 * where the algorithm is said), the genuine copy matches; one byte changed in the copy or the
 * signature is copy_matches false (the check ran); what cannot be read fails naming the field.
 */

type Suite = 'Ed25519' | 'ES256' | 'ES384' | 'PS256' | 'PS384' | 'PS512' | 'RS256' | 'RS384' | 'RS512';
type DigestAlgorithm = 'sha256' | 'sha384' | 'sha512';
const SUITES: Suite[] = ['Ed25519', 'ES256', 'ES384', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'];
const DIGEST_LABELS = { sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };

const pairs = {
	Ed25519: generateKeyPairSync('ed25519'),
	ES256: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }),
	ES384: generateKeyPairSync('ec', { namedCurve: 'secp384r1' }),
	RSA: generateKeyPairSync('rsa', { modulusLength: 2048 }),
};
const pairOf = (suite: Suite) => (suite === 'Ed25519' || suite === 'ES256' || suite === 'ES384' ? pairs[suite] : pairs.RSA);
const isRsa = (suite: Suite) => suite.startsWith('PS') || suite.startsWith('RS');

function signed(bytes: Buffer, suite: Suite, ecdsa: 'der' | 'ieee-p1363'): Buffer {
	const { privateKey } = pairOf(suite);
	const hash = `sha${suite.slice(2)}`;
	if (suite === 'Ed25519') return sign(null, bytes, privateKey);
	if (suite.startsWith('ES')) return sign(hash, bytes, { key: privateKey, dsaEncoding: ecdsa });
	if (suite.startsWith('PS')) return sign(hash, bytes, { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
	return sign(hash, bytes, privateKey);
}

const KEY_FORMATS = ['jwk', 'jwk-text', 'spki-pem', 'spki-base64', 'spki-hex', 'pkcs1-pem', 'pkcs1-base64', 'raw'] as const;
type KeyFormat = (typeof KEY_FORMATS)[number];

function keyIn(publicKey: KeyObject, suite: Suite, format: KeyFormat, jwkAlg: boolean): unknown {
	const jwk = { ...publicKey.export({ format: 'jwk' }), ...(jwkAlg ? { alg: suite === 'Ed25519' ? 'EdDSA' : suite } : {}) };
	const spki = publicKey.export({ format: 'der', type: 'spki' });
	switch (format) {
		case 'jwk':
			return jwk;
		case 'jwk-text':
			return JSON.stringify(jwk);
		case 'spki-pem':
			return publicKey.export({ format: 'pem', type: 'spki' }).toString();
		case 'spki-base64':
			return spki.toString('base64');
		case 'spki-hex':
			return spki.toString('hex').toUpperCase();
		case 'pkcs1-pem':
			return isRsa(suite) ? publicKey.export({ format: 'pem', type: 'pkcs1' }).toString() : { pem: publicKey.export({ format: 'pem', type: 'spki' }).toString() };
		case 'pkcs1-base64':
			return isRsa(suite) ? publicKey.export({ format: 'der', type: 'pkcs1' }).toString('base64') : { value: spki.toString('base64url') };
		case 'raw':
			if (suite === 'Ed25519') return spki.subarray(12).toString('base64url');
			if (suite.startsWith('ES')) return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]).toString('hex');
			return { der: spki.toString('base64') };
	}
}

const ENCODINGS = ['hex', 'HEX', 'base64', 'base64-unpadded', 'base64url', 'base64url-padded'] as const;
function encoded(bytes: Buffer, encoding: (typeof ENCODINGS)[number]): string {
	switch (encoding) {
		case 'hex':
			return bytes.toString('hex');
		case 'HEX':
			return bytes.toString('hex').toUpperCase();
		case 'base64':
			return bytes.toString('base64');
		case 'base64-unpadded':
			return bytes.toString('base64').replace(/=+$/, '');
		case 'base64url':
			return bytes.toString('base64url');
		case 'base64url-padded':
			return bytes.toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
	}
}

const DIGEST_FORMS = ['bare', 'named-field', 'prefixed', 'colon', 'structured', 'sri', 'object', 'keyed', 'sibling'] as const;
const SPELLINGS = (bits: string) => [`sha-${bits}`, `SHA-${bits}`, `sha${bits}`, `SHA${bits}`, `sha_${bits}`];

function digestFields(digest: Buffer, algorithm: DigestAlgorithm, form: (typeof DIGEST_FORMS)[number], encoding: (typeof ENCODINGS)[number], spelling: number, nameKey: number): Record<string, unknown> {
	const bits = algorithm.slice(3);
	const name = SPELLINGS(bits)[spelling % 5];
	const text = encoded(digest, encoding);
	switch (form) {
		case 'bare':
			return { digest: text };
		case 'named-field':
			return { [algorithm]: text };
		case 'prefixed':
			return { digest: `${name}=${text}` };
		case 'colon':
			return { hash: `${name}:${text}` };
		case 'structured':
			return { content_digest: `${name}=:${digest.toString('base64')}:` };
		case 'sri':
			return { checksum: `sha${bits}-${digest.toString('base64')}` };
		case 'object':
			return { digest: { [nameKey % 2 === 0 ? 'alg' : 'algorithm']: name.toUpperCase(), [nameKey % 3 === 0 ? 'digest' : 'value']: text } };
		case 'keyed':
			return { digest: { [name]: text } };
		case 'sibling':
			return { digest: text, digest_algorithm: name };
	}
}

const SIGNATURE_ENCODINGS = ['hex', 'base64', 'base64url', 'nested'] as const;
/** Where the algorithm is said: top-level `algorithm`, beside the signature, in the JWK (`alg`), or nowhere (the key says it). */
const ALGORITHM_PLACES = ['top', 'signature', 'jwk', 'none'] as const;

const drawn = fc.record({
	file: fc.uint8Array({ minLength: 1, maxLength: 300 }),
	suite: fc.constantFrom(...SUITES),
	ecdsa: fc.constantFrom<'der' | 'ieee-p1363'>('der', 'ieee-p1363'),
	digestAlgorithm: fc.constantFrom<DigestAlgorithm>('sha256', 'sha384', 'sha512'),
	digestForm: fc.constantFrom(...DIGEST_FORMS),
	digestEncoding: fc.constantFrom(...ENCODINGS),
	spelling: fc.nat(4),
	nameKey: fc.nat(5),
	keyFormat: fc.constantFrom(...KEY_FORMATS),
	signatureEncoding: fc.constantFrom(...SIGNATURE_ENCODINGS),
	algorithmPlace: fc.constantFrom(...ALGORITHM_PLACES),
});
type Drawn = typeof drawn extends fc.Arbitrary<infer T> ? T : never;

/** The verification answer of a Service publishing `d`, over `bytes`. */
function answerFor(d: Drawn, bytes: Buffer, signature = signed(bytes, d.suite, d.ecdsa)) {
	// An RSA key not in a JWK says nothing of its suite: the algorithm is said at the top level then.
	const jwkKey = d.keyFormat === 'jwk' || d.keyFormat === 'jwk-text';
	const place = isRsa(d.suite) && d.algorithmPlace === 'none' ? 'top'
		: d.algorithmPlace === 'jwk' && !jwkKey ? 'top'
			: d.algorithmPlace === 'signature' && d.signatureEncoding !== 'nested' ? 'top' : d.algorithmPlace;
	const sigText = encoded(signature, d.signatureEncoding === 'nested' ? 'base64url' : d.signatureEncoding);
	return {
		ks: 'KS-1-v1',
		valid: true,
		...(place === 'top' ? { algorithm: d.suite } : {}),
		...digestFields(createHash(d.digestAlgorithm).update(bytes).digest(), d.digestAlgorithm, d.digestForm, d.digestEncoding, d.spelling, d.nameKey),
		signature: d.signatureEncoding === 'nested' ? { ...(place === 'signature' ? { alg: d.suite } : {}), value: sigText } : sigText,
		public_key: keyIn(pairOf(d.suite).publicKey, d.suite, d.keyFormat, place === 'jwk'),
	};
}

describe('checkRecordCopy over every suite, encoding, form and key format', () => {
	test('a genuine copy matches; one byte changed in the copy, or in the signature, is copy_matches false', () => {
		fc.assert(
			fc.property(drawn, fc.nat(), (d, at) => {
				const bytes = Buffer.from(d.file);
				const signature = signed(bytes, d.suite, d.ecdsa);
				const answer = answerFor(d, bytes, signature);
				const check = checkRecordCopy(bytes, answer);
				expect(check).toMatchObject({ copy_matches: true, copy_sha256: createHash('sha256').update(bytes).digest('hex') });
				expect(check.copy_reason).toContain(`its ${DIGEST_LABELS[d.digestAlgorithm]} matches`);

				const changed = Buffer.from(bytes);
				changed[at % changed.length] ^= 0x01;
				const tampered = checkRecordCopy(changed, answer);
				expect(tampered.copy_matches).toBe(false);
				expect(tampered.copy_reason).toContain('differs from the published one');

				// The last byte of a signature: inside s (DER stays well formed), r‖s, RSA's or Ed25519's value.
				const forged = Buffer.from(signature);
				forged[forged.length - 1] ^= 0x01;
				const refused = checkRecordCopy(bytes, answerFor(d, bytes, forged));
				expect(refused.copy_matches).toBe(false);
				expect(refused.copy_reason).toContain('signature does not verify');
			}),
			runs(200),
		);
	});

	const p521 = generateKeyPairSync('ec', { namedCurve: 'secp521r1' }).publicKey;
	const k256 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey;
	const long = 'x'.repeat(300);
	// OpenSSL answers "does not verify" for these keys whatever the signature: a check that cannot run.
	const rsaJwk = (bits: number, e: Buffer) => ({ kty: 'RSA', n: Buffer.concat([Buffer.from([0xc1]), Buffer.alloc(bits / 8 - 2, 0x5a), Buffer.from([0x01])]).toString('base64url'), e: e.toString('base64url') });
	/** What cannot be read, as a change to a readable answer, and the field its error must name. */
	const unreadable: [string, (answer: Record<string, unknown>, bytes: Buffer) => Record<string, unknown>, string][] = [
		['an md5 digest', (a, b) => ({ ...strip(a), digest: `md5=${createHash('md5').update(b).digest('base64')}` }), 'digest'],
		['a SHA-1 digest in an object', (a, b) => ({ ...strip(a), digest: { alg: 'SHA-1', value: createHash('sha1').update(b).digest('hex') } }), 'digest.alg'],
		['a 20-byte digest with no algorithm', (a, b) => ({ ...strip(a), digest: createHash('sha1').update(b).digest('hex') }), 'digest'],
		['a digest object holding no digest', (a) => ({ ...strip(a), digest: { id: 1, created: 'now' } }), 'digest'],
		['digest algorithms that disagree', (a, b) => ({ ...strip(a), sha256: `sha-512=${createHash('sha512').update(b).digest('base64')}` }), 'sha256'],
		['a sibling naming an unread algorithm', (a, b) => ({ ...strip(a), digest: createHash('sha256').update(b).digest('hex'), digest_algorithm: 'BLAKE3' }), 'digest_algorithm'],
		['a long text that is no key', (a) => ({ ...a, public_key: long }), 'public_key'],
		['a JWK Node cannot read', (a) => ({ ...a, public_key: { kty: 'EC', crv: 'P-256', x: 'AQAB', y: 'AQAB' } }), 'public_key'],
		['a key on P-521', (a) => ({ ...a, public_key: p521.export({ format: 'pem', type: 'spki' }).toString() }), 'public_key'],
		['a key on secp256k1', (a) => ({ ...a, public_key: k256.export({ format: 'jwk' }) }), 'public_key'],
		['an RSA key with no algorithm said', (a) => ({ ...withoutAlgorithm(a), public_key: pairs.RSA.publicKey.export({ format: 'pem', type: 'spki' }).toString() }), 'public_key'],
		['an RSA key over 16,384 bits', (a) => ({ ...a, algorithm: 'RS256', public_key: rsaJwk(16_392, Buffer.from([1, 0, 1])), signature: Buffer.alloc(2049, 1).toString('base64') }), 'public_key'],
		['an RSA key of 4096 bits with a 72-bit exponent', (a) => ({ ...a, algorithm: 'RS256', public_key: rsaJwk(4096, Buffer.alloc(9, 0xff)), signature: Buffer.alloc(512, 1).toString('base64') }), 'public_key'],
		['a signature algorithm not read', (a) => ({ ...a, algorithm: 'HS256' }), 'algorithm'],
		['ES512 with a P-256 key', (a) => ({ ...a, algorithm: 'ES512', signature: Buffer.alloc(64).toString('base64'), public_key: pairs.ES256.publicKey.export({ format: 'jwk' }) }), 'public_key'],
		['two signature algorithms that disagree', (a) => ({ ...a, algorithm: 'ES256', signature: { alg: 'ES384', value: Buffer.alloc(64).toString('hex') } }), 'signature.alg'],
		['a signature of the wrong size', (a) => ({ ...a, signature: typeof a.signature === 'object' ? { ...a.signature, value: Buffer.alloc(10).toString('hex') } : Buffer.alloc(10).toString('base64') }), 'signature'],
		['no signature', (a) => ({ ...a, signature: null }), 'signature'],
	];
	const strip = (answer: Record<string, unknown>) => {
		const rest = { ...answer };
		for (const name of ['digest', 'sha256', 'sha384', 'sha512', 'hash', 'checksum', 'content_digest', 'digest_algorithm']) delete rest[name];
		return rest;
	};
	const withoutAlgorithm = (answer: Record<string, unknown>) => {
		const { algorithm: _algorithm, ...rest } = answer;
		return { ...rest, signature: Buffer.alloc(256).toString('base64') };
	};

	test('what cannot be read fails naming the field, never quoting a long value, and never as copy_matches', () => {
		fc.assert(
			fc.property(drawn, fc.constantFrom(...unreadable), (d, [, change, field]) => {
				const bytes = Buffer.from(d.file);
				let thrown: unknown;
				try {
					checkRecordCopy(bytes, change(answerFor(d, bytes), bytes));
				} catch (error) {
					thrown = error;
				}
				expect(thrown).toBeInstanceOf(UnreadableVerification);
				expect((thrown as UnreadableVerification).field).toBe(field);
				expect((thrown as Error).message).toContain(field.split('.')[0]);
				expect((thrown as Error).message).not.toContain(long);
			}),
			runs(200),
		);
	});
});
