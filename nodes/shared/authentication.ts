/** The nodes' Authentication parameter and the credentials it shows, as n8n's own nodes offer them. */
import type { INodeCredentialDescription, INodeProperties } from 'n8n-workflow';

import { CREDENTIAL_TEST } from './credentialTest';
import { ACCESS_TOKEN_CREDENTIAL, OAUTH2_AUTHENTICATION, OAUTH2_CREDENTIAL } from './transport/credentialKind';

export const serviceCredentials: INodeCredentialDescription[] = [
	{ name: ACCESS_TOKEN_CREDENTIAL, required: true, testedBy: CREDENTIAL_TEST, displayOptions: { show: { authentication: ['accessToken'] } } },
	{ name: OAUTH2_CREDENTIAL, required: true, testedBy: CREDENTIAL_TEST, displayOptions: { show: { authentication: [OAUTH2_AUTHENTICATION] } } },
];

export const authenticationField: INodeProperties = {
	displayName: 'Authentication',
	name: 'authentication',
	type: 'options',
	options: [
		{ name: 'Access Token', value: 'accessToken', description: 'A token you paste into the Service API credential' },
		{ name: 'OAuth2', value: OAUTH2_AUTHENTICATION, description: 'Short-lived tokens n8n fetches with a client ID and secret (client credentials)' },
	],
	default: 'accessToken',
};
