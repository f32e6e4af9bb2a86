import type { Route } from '../context';
import { HttpError, sendJson } from '../http';
import { publicKeyBase64, signatureValid } from '../records';

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
			sendJson(ctx.res, 200, {
				ks: record.ks,
				ke: record.ke,
				valid: signatureValid(record),
				algorithm: 'Ed25519',
				sha256: record.sha256,
				signature: record.signature,
				public_key: publicKeyBase64(),
				signed_at: record.signedAt,
			});
		},
	},
];
