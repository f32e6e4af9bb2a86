import { decodeSigningSecret, SigningSecretError } from '../../nodes/ServiceTrigger/verify/signingSecret';
import { newSigningSecret, secretKey } from '../sandbox/signing';

describe('decodeSigningSecret', () => {
	it('decodes the sandbox secret exactly as the sandbox does (whsec_ + base64)', () => {
		const secret = newSigningSecret();
		expect(decodeSigningSecret(secret, 'base64').equals(secretKey(secret))).toBe(true);
	});

	it('accepts base64 without the prefix, base64url, hex and raw text', () => {
		const bytes = Buffer.from('0123456789abcdef0123456789abcdef');
		expect(decodeSigningSecret(bytes.toString('base64'), 'base64').equals(bytes)).toBe(true);
		expect(decodeSigningSecret(bytes.toString('base64url'), 'base64').equals(bytes)).toBe(true);
		expect(decodeSigningSecret(bytes.toString('hex'), 'hex').equals(bytes)).toBe(true);
		expect(decodeSigningSecret('plain secret', 'raw').equals(Buffer.from('plain secret'))).toBe(true);
	});

	it.each([
		['empty', '', 'base64'],
		['prefix only', 'whsec_', 'base64'],
		['not base64', 'whsec_not base64!', 'base64'],
		['odd hex', 'abc', 'hex'],
		['not hex', 'zz', 'hex'],
	] as const)('refuses %s without repeating the secret', (_name, secret, encoding) => {
		let thrown: unknown;
		try {
			decodeSigningSecret(secret, encoding);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(SigningSecretError);
		if (secret.length > 6) expect((thrown as Error).message).not.toContain(secret);
	});
});
