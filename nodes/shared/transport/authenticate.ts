/**
 * The Service API credential's `authenticate` (credentials/ServiceApi.credentials.ts names it): the
 * token on the Base URL's https origin only, no redirects followed, the Request Timeout, Send Token As;
 * an empty token refused. Here so that the credential test applies the very same rules.
 */
import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { advancedSettings } from '../settings/advancedSettings';
import { readSignIn, signInHeader } from './signIn';

export async function authenticateServiceRequest(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const baseUrl = String(credentials.baseUrl ?? '').trim();
	if (!URL.canParse(baseUrl) || new URL(baseUrl).protocol !== 'https:') {
		throw new Error(`The Base URL "${baseUrl}" must be an https:// address: the access token is sent over HTTPS only.`);
	}
	const legacyUri = (requestOptions as { uri?: string }).uri;
	const target = requestOptions.url ?? legacyUri ?? '';
	const origin = URL.canParse(target, requestOptions.baseURL ?? baseUrl)
		? new URL(target, requestOptions.baseURL ?? baseUrl).origin
		: '';
	if (origin !== new URL(baseUrl).origin) {
		throw new Error(`The access token is sent to the Base URL's host only, not to ${origin || 'this address'}.`);
	}
	if (String(credentials.accessToken ?? '').trim() === '') {
		throw new Error('The Access Token of the Service API credential is empty: enter your reader organisation\'s service access token.');
	}
	const advanced = advancedSettings(credentials);
	const signIn = readSignIn(advanced);
	if ('problem' in signIn) throw new Error(signIn.problem);
	const seconds = Number(advanced.requestTimeout ?? 60);
	return {
		...requestOptions,
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
		timeout: requestOptions.timeout ?? (Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 60_000),
		headers: { ...requestOptions.headers, ...signInHeader(signIn.signIn, String(credentials.accessToken ?? '')) },
	};
}
