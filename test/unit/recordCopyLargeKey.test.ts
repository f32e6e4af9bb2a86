import { createPublicKey, randomBytes } from 'node:crypto';

import { UnreadableVerification } from '../../nodes/ServiceReader/actions/record/copy/encodings';
import { signatureVerifies } from '../../nodes/ServiceReader/actions/record/copy/signatures';

// OpenSSL answers "does not verify" for an RSA key over 16,384 bits instead of checking it: that is no verdict,
// so Check Copy says the check could not run (never copy_matches false for a copy that may be genuine).
test('an RSA key over 16,384 bits: the check could not run, never "does not match"', () => {
	const modulus = randomBytes(16_392 / 8);
	modulus[0] |= 0x80;
	modulus[modulus.length - 1] |= 1;
	const key = createPublicKey({ key: { kty: 'RSA', n: modulus.toString('base64url'), e: 'AQAB' }, format: 'jwk' });
	expect(key.asymmetricKeyDetails?.modulusLength).toBe(16_392);
	const check = () => signatureVerifies(Buffer.from('{}'), key, { scheme: 'rsa-pkcs1', hash: 'sha256' }, { bytes: randomBytes(16_392 / 8), encodings: ['der'] }, 'signature');
	expect(check).toThrow(UnreadableVerification);
	expect(check).toThrow('The Service\'s signature could not be checked: its RSA key has 16392 bits, more than the 16384 Node\'s crypto checks');
});
