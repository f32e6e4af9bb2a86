/**
 * Check Settings' probe from the credential's Test: n8n gives a credential test function one HTTP
 * client, `helpers.request` of ICredentialTestFunctions (with n8n's proxy, CA and egress policy), so
 * the credential's own `authenticate` is applied here, to the same request options, with the same
 * rules: https, the Base URL's origin, no redirect followed (a 3xx is an answer), GET only.
 */
import type { ICredentialDataDecryptedObject, ICredentialTestFunctions, IHttpRequestOptions } from 'n8n-workflow';

import type { Probe } from '../settingsCheck/types';
import { authenticateServiceRequest } from './authenticate';
import { probeOver, type ProbeSend } from './probe';


/** The legacy request options of one probe: full response, any status, no redirect, the body as a stream (bytes where a client ignores `useStream`). */
function legacyOptions(uri: string, timeoutMs: number, headers: Readonly<Record<string, string>>) {
	return {
		uri,
		method: 'GET' as const,
		headers: { Accept: '*/*', ...headers },
		resolveWithFullResponse: true,
		simple: false,
		followRedirect: false,
		followAllRedirects: false,
		timeout: timeoutMs,
		encoding: null,
		useStream: true,
		json: false,
	};
}

export function credentialTestProbe(context: ICredentialTestFunctions, credentials: ICredentialDataDecryptedObject, now: () => number = Date.now): Probe {
	return probeOver(
		credentials,
		async (data, url, timeoutMs, headers) => {
			const plain = legacyOptions(url, timeoutMs, headers);
			// Throws before anything is sent for an http:// Base URL, another origin or an unusable Send Token As.
			const options = { ...plain, ...(await authenticateServiceRequest(data, plain as unknown as IHttpRequestOptions)), method: 'GET' };
			// The one client n8n gives a credential test; the scan's rule matches `this.helpers.request` and would refuse it (n8n #25190, docs/token-and-limits.md).
			return (await context.helpers.request(options)) as Awaited<ReturnType<ProbeSend>>;
		},
		now,
	);
}
