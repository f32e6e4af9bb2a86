import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operationField';
import type { ResourceOperations } from '../types';
import * as setConfiguration from './setConfiguration.operation';

export const operations: ResourceOperations = { setConfiguration };

export const description: INodeProperties[] = [
	operationField('sso', 'setConfiguration', [
		{
			name: 'Set Configuration',
			value: 'setConfiguration',
			description: 'Set single sign-on: provider type, email domains and group-to-role mapping (needs a recent passkey)',
			action: 'Set the SSO configuration',
		},
	]),
	...setConfiguration.description,
];
