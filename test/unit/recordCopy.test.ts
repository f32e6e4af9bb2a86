import { createHash, generateKeyPairSync, sign } from 'node:crypto';

import { checkRecordCopy, ed25519PublicKey } from '../../nodes/ServiceReader/helpers/recordCopy';

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

	it('says when the key is not an Ed25519 key', () => {
		const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
		const check = checkRecordCopy(file, { ...answer, public_key: rsa.export({ format: 'der', type: 'spki' }).toString('base64') });
		expect(check).toMatchObject({
			copy_matches: false,
			copy_reason: 'The Service\'s public key could not be read (the key is rsa, not Ed25519), so the signature cannot be checked.',
		});
	});

	it('says when the key cannot be read at all', () => {
		expect(checkRecordCopy(file, { ...answer, public_key: 'not a key' }).copy_reason).toMatch(
			/^The Service's public key could not be read \(.+\), so the signature cannot be checked\.$/,
		);
	});

	it('cannot check another algorithm', () => {
		expect(checkRecordCopy(file, { ...answer, algorithm: 'RSA-PSS' })).toMatchObject({
			copy_matches: false,
			copy_reason: 'The Service signs with RSA-PSS; only Ed25519 signatures can be checked here.',
		});
	});

	it('cannot check without the published values', () => {
		expect(checkRecordCopy(file, { algorithm: 'Ed25519', sha256: answer.sha256 })).toMatchObject({
			copy_matches: false,
			copy_reason: 'The Service\'s verification has no sha256, signature or public_key, so the copy cannot be checked.',
		});
	});
});

describe('ed25519PublicKey', () => {
	it('reads base64 DER SPKI, as the Service publishes it', () => {
		expect(ed25519PublicKey(spkiDer.toString('base64')).asymmetricKeyType).toBe('ed25519');
	});
});
