import type { VerificationForms } from '../answerShapes';
import type { Route } from '../context';
import { HttpError, sendJson } from '../http';
import { digestIn, publicKeyAs, signatureIn, signatureValid } from '../records';

/** Public verification of a signed report: no token needed. */
export const verifyRoutes: Route[] = [
	{
		method: 'GET',
		pattern: /^\/v1\/public\/reports\/([^/]+)\/verify$/,
		access: 'public',
		handler: (ctx) => {
			const [ks] = ctx.params;
			const record = ctx.sandbox.state.recordForKs(ks);
			if (!record) throw new HttpError(404, 'not_found', `No signed report ${ks}: check the KS.`);
			sendJson(ctx.res, 200, verificationBody(ctx.sandbox.dialect.answers.verification, { ...record, valid: signatureValid(record), bytes: record.signedBytes }));
		},
	},
];

/** The verify route's answer, its key, digest and signature in `forms`, over the signed `bytes`. */
export function verificationBody(
	forms: VerificationForms,
	record: { ks: string; ke: string; valid: boolean; sha256: string; signature: string; signedAt: string; bytes: Buffer },
): Record<string, unknown> {
	const suite = forms.signatureSuite;
	const digest = digestIn(record.bytes, forms.digestSuite);
	const signature = suite === 'Ed25519' ? Buffer.from(record.signature, 'base64') : signatureIn(record.bytes, suite, forms.ecdsaEncoding);
	const bits = forms.digestSuite.slice(3);
	// An RSA key published other than as a JWK cannot say its suite: `algorithm` then says it after all.
	const keySays = forms.publicKey === 'jwk' || forms.publicKey === 'jwk-text' || !/^[PR]S/.test(suite);
	return {
		ks: record.ks,
		ke: record.ke,
		valid: record.valid,
		...(forms.namesAlgorithm || !keySays ? { algorithm: suite } : {}),
		...digestFields(forms.digest, forms.digestSuite, bits, digest),
		signature:
			forms.signature === 'nested'
				? { alg: suite === 'Ed25519' ? 'EdDSA' : suite, value: signature.toString('base64url') }
				: signature.toString(forms.signature),
		...keyAt(forms.keyPlace ?? 'public_key', publicKeyAs(forms.publicKey, suite)),
		signed_at: record.signedAt,
	};
}

/** The key's field where `place` puts it (answerShapes.ts: VerificationForms). */
function keyAt(place: NonNullable<VerificationForms['keyPlace']>, key: unknown): Record<string, unknown> {
	if (place === 'verification.key') return { verification: { key } };
	if (place === 'keys') return { keys: [key] };
	return { [place]: key };
}

/** The digest's fields in `form` (answerShapes.ts: VerificationForms). */
function digestFields(form: VerificationForms['digest'], suite: string, bits: string, digest: Buffer): Record<string, unknown> {
	switch (form) {
		case 'hex':
		case 'base64':
			return { [suite]: digest.toString(form) };
		case 'nested':
			return { digest: { alg: `sha-${bits}`, value: digest.toString('base64url') } };
		case 'bare':
			return { digest: digest.toString('hex') };
		case 'prefixed':
			return { digest: `SHA-${bits}=${digest.toString('base64')}` };
		case 'structured':
			return { content_digest: `sha-${bits}=:${digest.toString('base64')}:` };
		case 'colon':
			return { digest: `${suite}:${digest.toString('hex').toUpperCase()}` };
		case 'sibling':
			return { digest: digest.toString('base64url'), digest_algorithm: `SHA-${bits}` };
	}
}
