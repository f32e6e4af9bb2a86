import { constants, createHash, generateKeyPairSync, sign } from 'node:crypto';

import { checkRecordCopy, decodeBytes, publicKeyOf } from '../../nodes/ServiceReader/actions/record/copy/recordCopy';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const spkiDer = publicKey.export({ format: 'der', type: 'spki' });
const file = Buffer.from('{\r\n   "ks" : "KS-1-v1",\n   "name" : "Été ✓"\n}\n', 'utf8');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const answer = {
	algorithm: 'Ed25519',
	sha256: sha256(file),
	signature: sign(null, file, privateKey).toString('base64'),
	public_key: spkiDer.toString('base64'),
};
const MATCHES = 'The copy is byte for byte the signed file: its SHA-256 matches and the Ed25519 signature verifies.';

describe('checkRecordCopy', () => {
	it('accepts the exact signed bytes', () => {
		expect(checkRecordCopy(file, answer)).toEqual({ copy_matches: true, copy_reason: MATCHES, copy_sha256: sha256(file) });
	});

	it('accepts a Uint8Array view into a larger buffer (only the viewed bytes count)', () => {
		const larger = Buffer.concat([Buffer.from('xx'), file, Buffer.from('yy')]);
		const view = new Uint8Array(larger.buffer, larger.byteOffset + 2, file.length);
		expect(checkRecordCopy(view, answer).copy_matches).toBe(true);
	});

	it('refuses a re-serialised copy with the same content', () => {
		const copy = Buffer.from(JSON.stringify(JSON.parse(file.toString('utf8'))));
		const check = checkRecordCopy(copy, answer);
		expect(check).toEqual({
			copy_matches: false,
			copy_reason: `The copy's SHA-256 (${sha256(copy).slice(0, 16)}…) differs from the published one (${answer.sha256.slice(0, 16)}…): the copy is not the signed file. It was changed, re-saved or re-encoded; download the record again.`,
			copy_sha256: sha256(copy),
		});
	});

	it('refuses a copy when the published signature does not verify, even if the hash matches', () => {
		const forged = { ...answer, signature: sign(null, Buffer.from('other'), privateKey).toString('base64') };
		expect(checkRecordCopy(file, forged)).toMatchObject({
			copy_matches: false,
			copy_reason: 'The copy has the published SHA-256 but the Ed25519 signature does not verify with the Service\'s public key.',
		});
	});

	it('refuses when the signature is by another key', () => {
		const other = generateKeyPairSync('ed25519');
		const wrongKey = { ...answer, public_key: other.publicKey.export({ format: 'der', type: 'spki' }).toString('base64') };
		expect(checkRecordCopy(file, wrongKey).copy_matches).toBe(false);
	});

	it('compares the published hash without regard to case or spaces', () => {
		expect(checkRecordCopy(file, { ...answer, sha256: ` ${answer.sha256.toUpperCase()} ` }).copy_matches).toBe(true);
	});

	it.each([
		['PEM', publicKey.export({ format: 'pem', type: 'spki' }).toString()],
		['raw base64', spkiDer.subarray(12).toString('base64')],
		['raw hex', spkiDer.subarray(12).toString('hex')],
	])('reads a public key given as %s', (_label, key) => {
		expect(checkRecordCopy(file, { ...answer, public_key: key }).copy_matches).toBe(true);
	});

	it('fails loudly, naming the field, when the key does not fit the algorithm named (no check ran)', () => {
		const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
		expect(() => checkRecordCopy(file, { ...answer, public_key: rsa.export({ format: 'der', type: 'spki' }).toString('base64') })).toThrow(
			expect.objectContaining({ field: 'public_key', message: 'The Service signs with Ed25519 (field algorithm) but its public_key is an RSA key' }),
		);
	});

	it.each([
		['text that is no key', { public_key: 'not a key' }, 'public_key'],
		['a JWK of another curve', { public_key: { kty: 'OKP', crv: 'X25519', x: spkiDer.subarray(12).toString('base64url') } }, 'public_key'],
		['an object holding no key', { public_key: { id: 'k1', created: '2026' } }, 'public_key'],
		['a digest of the wrong length', { sha256: answer.sha256.slice(2) }, 'sha256'],
		['a signature in no known encoding', { signature: '!!' + answer.signature.slice(2) }, 'signature'],
		['a digest of an algorithm not read', { sha256: undefined, digest: { alg: 'md5', value: answer.sha256 } }, 'digest.alg'],
		['a digest shorter than the algorithm named', { sha256: undefined, digest: { alg: 'sha512', value: answer.sha256 } }, 'digest.value'],
		['a signing algorithm not read', { algorithm: 'HS256' }, 'algorithm'],
		['a signing algorithm the key does not fit', { algorithm: 'RSA-PSS' }, 'public_key'],
		['no signature at all', { signature: undefined }, 'signature'],
	])('fails loudly, naming the field, for %s', (_label, change, field) => {
		expect(() => checkRecordCopy(file, { ...answer, ...change })).toThrow(expect.objectContaining({ field }));
	});

	const jwk = publicKey.export({ format: 'jwk' });
	const signatureBytes = Buffer.from(answer.signature, 'base64');
	const digestBytes = Buffer.from(answer.sha256, 'hex');
	it.each([
		['a JWK (OKP, Ed25519)', { public_key: jwk }],
		['a JWK under publicKey, with alg EdDSA', { public_key: undefined, publicKey: jwk, algorithm: 'EdDSA' }],
		['a JWK set of one key', { public_key: { keys: [jwk] } }],
		['DER SPKI in hex', { public_key: spkiDer.toString('hex') }],
		['DER SPKI in base64url', { public_key: spkiDer.toString('base64url') }],
		['the raw key in base64url', { public_key: spkiDer.subarray(12).toString('base64url') }],
		['a key inside an object', { public_key: { format: 'pem', value: publicKey.export({ format: 'pem', type: 'spki' }).toString() } }],
		['a nested digest {alg, value} in base64', { sha256: undefined, digest: { alg: 'sha256', value: digestBytes.toString('base64') } }],
		['a digest in base64url', { sha256: digestBytes.toString('base64url') }],
		['a nested signature {value} in hex', { signature: { alg: 'Ed25519', value: signatureBytes.toString('hex') } }],
		['a signature in base64url without padding', { signature: signatureBytes.toString('base64url') }],
	])('reads the verification material given as %s', (_label, change) => {
		expect(checkRecordCopy(file, { ...answer, ...change })).toEqual({ copy_matches: true, copy_reason: MATCHES, copy_sha256: sha256(file) });
	});

	it('with a JWK key, a tampered copy is copy_matches false (the check ran)', () => {
		const tampered = Buffer.from(file.toString('utf8').replace('KS-1', 'KS-2'));
		const check = checkRecordCopy(tampered, { ...answer, public_key: jwk, signature: { value: signatureBytes.toString('base64url') } });
		expect(check.copy_matches).toBe(false);
		expect(check.copy_reason).toMatch(/differs from the published one/);
	});
});

describe('decodeBytes', () => {
	it('tells hex from base64 by the length wanted, and takes only canonical base64', () => {
		const bytes = Buffer.alloc(32, 0xab);
		expect(decodeBytes(bytes.toString('hex'), [32])).toEqual(bytes);
		expect(decodeBytes(bytes.toString('base64'), [32])).toEqual(bytes);
		expect(decodeBytes(bytes.toString('base64url'), [32])).toEqual(bytes);
		expect(decodeBytes(bytes.toString('hex'), [16])).toBeUndefined();
		expect(decodeBytes(`${bytes.toString('base64').slice(0, -2)}x=`, [32])).toBeUndefined();
	});
});

describe('publicKeyOf', () => {
	it('reads base64 DER SPKI, as the Service publishes it', () => {
		expect(publicKeyOf(spkiDer.toString('base64')).asymmetricKeyType).toBe('ed25519');
	});
});

describe('checkRecordCopy beyond Ed25519 and SHA-256', () => {
	// saltLength is a number to Node; its types say string.
	const pss = generateKeyPairSync('rsa-pss', { modulusLength: 2048, hashAlgorithm: 'sha384', mgf1HashAlgorithm: 'sha384', saltLength: 48 as unknown as string });
	const rsa = generateKeyPairSync('rsa', { modulusLength: 2047 });
	const es256 = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
	const sha512 = createHash('sha512').update(file).digest();

	it('reads an RSA-PSS key\'s own hash when no algorithm is named', () => {
		const signature = sign('sha384', file, { key: pss.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 });
		const check = checkRecordCopy(file, { digest: `sha-512=:${sha512.toString('base64')}:`, signature: signature.toString('base64'), public_key: pss.publicKey.export({ format: 'pem', type: 'spki' }).toString() });
		expect(check).toMatchObject({ copy_matches: true, copy_reason: 'The copy is byte for byte the signed file: its SHA-512 matches and the RSA-PSS SHA-384 (PS384) signature verifies.' });
	});

	it('reads an RSA key of an odd size, with the suite in signature_algorithm beside an algorithm naming the digest', () => {
		const signature = sign('sha256', file, rsa.privateKey);
		const answer = { algorithm: 'SHA-512', signature_algorithm: 'RSASSA-PKCS1-v1_5-SHA256', digest: sha512.toString('hex'), signature: signature.toString('hex'), public_key: rsa.publicKey.export({ format: 'der', type: 'pkcs1' }).toString('base64') };
		expect(checkRecordCopy(file, answer)).toMatchObject({ copy_matches: true, copy_reason: expect.stringContaining('SHA-512 matches and the RSA PKCS#1 v1.5 SHA-256 (RS256) signature verifies') });
		// A signature of all ones (above the modulus) is read, checked and refused: copy_matches false, nothing thrown.
		expect(checkRecordCopy(file, { ...answer, signature: Buffer.alloc(256, 0xff).toString('hex') }).copy_matches).toBe(false);
	});

	it('names the ECDSA encoding it read either way, and a P-256 key with ES384 fails naming the key', () => {
		const der = sign('sha256', file, es256.privateKey);
		const raw = sign('sha256', file, { key: es256.privateKey, dsaEncoding: 'ieee-p1363' });
		const base = { alg: 'ES256', sha256: sha256(file), public_key: es256.publicKey.export({ format: 'jwk' }) };
		expect(checkRecordCopy(file, { ...base, signature: der.toString('base64') }).copy_matches).toBe(true);
		expect(checkRecordCopy(file, { ...base, signature: raw.toString('base64url') }).copy_matches).toBe(true);
		expect(() => checkRecordCopy(file, { ...base, alg: 'ES384', signature: raw.toString('hex') })).toThrow(
			expect.objectContaining({ field: 'public_key', message: 'The Service signs with ES384 (field alg) but its public_key is an EC key on prime256v1' }),
		);
	});
});

describe('checkRecordCopy where Node cannot check', () => {
	it('an RSA-PSS key bound to SHA-384 with PS256 named fails naming the key, never copy_matches', () => {
		// saltLength is a number to Node; its types say string.
		const pss = generateKeyPairSync('rsa-pss', { modulusLength: 2048, hashAlgorithm: 'sha384', mgf1HashAlgorithm: 'sha384', saltLength: 48 as unknown as string });
		const answer = { algorithm: 'PS256', sha256: sha256(file), signature: Buffer.alloc(256, 1).toString('base64'), public_key: pss.publicKey.export({ format: 'pem', type: 'spki' }).toString() };
		expect(() => checkRecordCopy(file, answer)).toThrow(expect.objectContaining({ field: 'public_key', message: 'The Service signs with PS256 (field algorithm) but its public_key is an RSA-PSS key: its parameters sign with SHA-384 only' }));
	});
});
