import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { readSignIn, signInHeader } from '../nodes/shared/transport/signIn';
import { advancedSettings, advancedSettingsFields } from './advancedSettings';

export class ServiceApi implements ICredentialType {
	name = 'serviceApi';

	displayName = 'Service API';

	icon = { light: 'file:../icons/service.svg', dark: 'file:../icons/service.dark.svg' } as const;

	documentationUrl = 'https://github.com/service-reader/n8n-nodes-service-reader#credentials-service-api';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://service.example.com',
			description: 'Address of your Service, starting with https://. Paths such as /v1/reader are added by the node.',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The reader organisation\'s service access token, sent as a bearer token (or as Advanced Settings > Send Token As says)',
		},
		...advancedSettingsFields,
	];

	// A function, not the declarative `{ type: 'generic' }` block (n8n evaluates that as an expression
	// per request). It also keeps the token on the Service: https and the Base URL's origin only, and
	// no redirects, for every request made with this credential, the credential test included (it runs
	// the nodes' `serviceApiSettings`, nodes/shared/credentialTest.ts: no declarative `test` here, which n8n would run instead).
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
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
	};
}
