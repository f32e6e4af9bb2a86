import type { ICredentialType, INodeProperties } from 'n8n-workflow';

import { advancedSettingsFields, baseUrlField } from '../nodes/shared/settings/advancedSettings';

// Send Token As does not apply: n8n signs each request with the OAuth2 access token itself (Authorization: Bearer).
const SIGN_IN_FIELDS = new Set(['tokenPlacement', 'authHeaderName', 'authScheme']);

/**
 * The Service reached with short-lived tokens from an OAuth2 client-credentials grant: n8n fetches a token
 * when none is stored and a new one when the Service answers 401 (docs/oauth2.md).
 */
export class ServiceOAuth2Api implements ICredentialType {
	name = 'serviceOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'Service OAuth2 API';

	icon = { light: 'file:../icons/service.svg', dark: 'file:../icons/service.dark.svg' } as const;

	documentationUrl = 'https://github.com/service-reader/n8n-nodes-service-reader#credentials';

	properties: INodeProperties[] = [
		baseUrlField,
		{ displayName: 'Grant Type', name: 'grantType', type: 'hidden', default: 'clientCredentials' },
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://auth.example.com/oauth/token',
			description: 'Where n8n asks for an access token with the Client ID and Client Secret',
		},
		{ displayName: 'Scope', name: 'scope', type: 'string', default: '', description: 'Scopes to ask for, separated by spaces; empty if the Service needs none' },
		{ displayName: 'Auth URI Query Parameters', name: 'authQueryParameters', type: 'hidden', default: '' },
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'options',
			options: [
				{ name: 'Body', value: 'body', description: 'Client ID and Client Secret in the token request\'s body' },
				{ name: 'Header', value: 'header', description: 'Client ID and Client Secret as Basic Auth' },
			],
			default: 'header',
		},
		...advancedSettingsFields.filter((field) => !SIGN_IN_FIELDS.has(field.name)),
	];
}
