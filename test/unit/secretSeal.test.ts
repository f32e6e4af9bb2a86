import { sealSecret, unsealSecret } from '../../nodes/ServiceTrigger/verify/secretSeal';
import { newSigningSecret } from '../sandbox/signing';

const token = 'svc_reader_0123456789';
const url = 'https://n8n.example.com/webhook/abc/webhook';

/** Every run of `length` characters of `secret`. */
function windows(secret: string, length = 6): string[] {
	return Array.from({ length: secret.length - length + 1 }, (_, i) => secret.slice(i, i + length));
}

describe('sealSecret / unsealSecret', () => {
	it('round-trips with the same token and URL', () => {
		const secret = newSigningSecret();
		expect(unsealSecret(sealSecret(secret, token, url), token, url)).toBe(secret);
	});

	it('holds no part of the plain secret and differs on every seal', () => {
		const secret = newSigningSecret();
		const sealed = sealSecret(secret, token, url);
		for (const part of windows(secret)) expect(sealed).not.toContain(part);
		expect(sealSecret(secret, token, url)).not.toBe(sealed);
	});

	it('cannot be unsealed with another token or for another URL', () => {
		const sealed = sealSecret(newSigningSecret(), token, url);
		expect(unsealSecret(sealed, `${token}x`, url)).toBeUndefined();
		expect(unsealSecret(sealed, token, `${url}-test`)).toBeUndefined();
		expect(unsealSecret(sealed, '', url)).toBeUndefined();
	});

	it('refuses altered or malformed values without throwing', () => {
		const sealed = sealSecret(newSigningSecret(), token, url);
		// Flip one bit in each part's bytes (salt, iv, tag, ciphertext). Editing a base64 character instead
		// can land on padding bits that decode to the same bytes.
		const alteredParts = [1, 2, 3, 4].map((index) => {
			const parts = sealed.split('.');
			const bytes = Buffer.from(parts[index], 'base64url');
			bytes[bytes.length - 1] ^= 0x01;
			parts[index] = bytes.toString('base64url');
			return parts.join('.');
		});
		const malformed = ['', 'x', 's1.a.b.c.d', sealed.replace('s1.', 's2.'), 42, null, undefined, {}];
		for (const value of [...alteredParts, ...malformed]) {
			expect(unsealSecret(value, token, url)).toBeUndefined();
		}
	});

	it('refuses to seal without a token', () => {
		expect(() => sealSecret('whsec_x', '', url)).toThrow(/no access token/);
	});
});
