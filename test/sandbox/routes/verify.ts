import type { VerificationForms } from '../answerShapes';
import type { Route } from '../context';
import { HttpError, sendJson } from '../http';
import { publicKeyAs, signatureValid } from '../records';

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
			sendJson(ctx.res, 200, verificationBody(ctx.sandbox.dialect.answers.verification, { ...record, valid: signatureValid(record) }));
		},
	},
];

/** The verify route's answer, its key, digest and signature in `forms`. */
export function verificationBody(
	forms: VerificationForms,
	record: { ks: string; ke: string; valid: boolean; sha256: string; signature: string; signedAt: string },
): Record<string, unknown> {
	const digest = Buffer.from(record.sha256, 'hex');
	const signature = Buffer.from(record.signature, 'base64');
	return {
		ks: record.ks,
		ke: record.ke,
		valid: record.valid,
		algorithm: 'Ed25519',
		...(forms.digest === 'nested'
			? { digest: { alg: 'sha-256', value: digest.toString('base64url') } }
			: { sha256: forms.digest === 'hex' ? record.sha256 : digest.toString('base64') }),
		signature:
			forms.signature === 'nested'
				? { alg: 'EdDSA', value: signature.toString('base64url') }
				: forms.signature === 'base64' ? record.signature : signature.toString(forms.signature),
		public_key: publicKeyAs(forms.publicKey),
		signed_at: record.signedAt,
	};
}
