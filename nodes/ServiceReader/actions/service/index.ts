import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operationField';
import type { ResourceOperations } from '../types';
import * as checkSettings from './checkSettings.operation';

export const operations: ResourceOperations = { checkSettings };

export const description: INodeProperties[] = [
	operationField('service', 'checkSettings', [
		{
			name: 'Check Settings',
			value: 'checkSettings',
			description:
				'Ask the Service a few read-only questions (GET only) and output one item per finding: which credential settings it needs, with their values and the evidence',
			action: 'Check the credential settings against the service',
		},
	]),
	...checkSettings.description,
];
