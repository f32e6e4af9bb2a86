/** The nodes' Authentication parameter, as n8n's own nodes offer it (each node lists the credentials it shows). */
import type { INodeProperties } from 'n8n-workflow';

import { OAUTH2_AUTHENTICATION } from './transport/credentialKind';

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
