import type { ICredentialType, INodeProperties } from 'n8n-workflow';

import { authenticateServiceRequest } from '../nodes/shared/transport/authenticate';
import { advancedSettingsFields, baseUrlField } from '../nodes/shared/settings/advancedSettings';

export class ServiceApi implements ICredentialType {
	name = 'serviceApi';

	displayName = 'Service API';

	icon = { light: 'file:../icons/service.svg', dark: 'file:../icons/service.dark.svg' } as const;

	documentationUrl = 'https://github.com/service-reader/n8n-nodes-service-reader#credentials';

	properties: INodeProperties[] = [
		baseUrlField,
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
	// per request); its rules (https, the Base URL's origin, no redirects) in one place, also used by the
	// credential test (nodes/shared/credentialTest.ts: no declarative `test` here, which n8n would run instead).
	authenticate = authenticateServiceRequest;
}
