import { constants, createHash, createPublicKey, verify } from 'node:crypto';

import { documentedVerification, type SignatureSuiteName, type VerificationForms } from './answerShapes';
import { verificationBody } from './routes/verify';

// The sandbox's suites checked with Node's crypto by their standard meaning, not by the node's reader:
// a sandbox that only agreed with the node would share its guesses (docs/service-choices.md).
const bytes = Buffer.from('{\r\n   "ks" : "KS-1-v1", "name" : "Été ✓"\n}\n', 'utf8');
const record = { ks: 'KS-1-v1', ke: 'KE-1', valid: true, sha256: '', signature: '', signedAt: '', bytes };
const SUITES: SignatureSuiteName[] = ['ES256', 'ES384', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'];

describe('the verify route in each signature and digest suite', () => {
	it.each(SUITES.flatMap((suite) => (['der', 'p1363'] as const).map((encoding) => [suite, encoding] as const)))('%s (%s) verifies over the exact bytes with the PEM key published', (suite, encoding) => {
		const forms: VerificationForms = { ...documentedVerification, publicKey: 'pem', signatureSuite: suite, ecdsaEncoding: encoding };
		const body = verificationBody(forms, record);
		const key = createPublicKey(body.public_key as string);
		const hash = `sha${suite.slice(2)}`;
		const signature = Buffer.from(body.signature as string, 'base64');
		const options = suite.startsWith('ES')
			? { key, dsaEncoding: encoding === 'p1363' ? ('ieee-p1363' as const) : ('der' as const) }
			: suite.startsWith('PS') ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(suite.slice(2)) / 8 } : { key, padding: constants.RSA_PKCS1_PADDING };
		expect(body.algorithm).toBe(suite);
		expect(verify(hash, bytes, options, signature)).toBe(true);
		if (suite.startsWith('ES') && encoding === 'p1363') expect(signature.length).toBe(suite === 'ES256' ? 64 : 96);
		// The same answer each time, as one Service's route gives it.
		expect(verificationBody(forms, record).signature).toBe(body.signature);
	});

	it.each([
		['hex', { sha512: createHash('sha512').update(bytes).digest('hex') }],
		['nested', { digest: { alg: 'sha-512', value: createHash('sha512').update(bytes).digest('base64url') } }],
		['prefixed', { digest: `SHA-512=${createHash('sha512').update(bytes).digest('base64')}` }],
		['structured', { content_digest: `sha-512=:${createHash('sha512').update(bytes).digest('base64')}:` }],
		['colon', { digest: `sha512:${createHash('sha512').update(bytes).digest('hex').toUpperCase()}` }],
		['sibling', { digest: createHash('sha512').update(bytes).digest('base64url'), digest_algorithm: 'SHA-512' }],
	] as const)('writes a SHA-512 digest in the %s form', (form, fields) => {
		expect(verificationBody({ ...documentedVerification, digest: form, digestSuite: 'sha512' }, record)).toMatchObject(fields);
	});

	it('an RSA key published as PKCS#1 PEM, raw DER, or a JWK with its alg', () => {
		const pkcs1 = verificationBody({ ...documentedVerification, publicKey: 'pkcs1-pem', signatureSuite: 'RS256' }, record).public_key as string;
		expect(pkcs1).toMatch(/^-----BEGIN RSA PUBLIC KEY-----/);
		const raw = verificationBody({ ...documentedVerification, publicKey: 'raw-hex', signatureSuite: 'RS256' }, record).public_key as string;
		expect(createPublicKey({ key: Buffer.from(raw, 'hex'), format: 'der', type: 'pkcs1' }).asymmetricKeyType).toBe('rsa');
		// Not named at the top level, the suite is in the JWK's alg.
		const jwk = verificationBody({ ...documentedVerification, publicKey: 'jwk', signatureSuite: 'PS384', namesAlgorithm: false }, record);
		expect(jwk.algorithm).toBeUndefined();
		expect(jwk.public_key).toMatchObject({ kty: 'RSA', alg: 'PS384' });
	});
});
