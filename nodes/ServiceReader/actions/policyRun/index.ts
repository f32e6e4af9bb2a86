import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operationField';
import type { ResourceOperations } from '../types';
import * as create from './create.operation';

export const operations: ResourceOperations = { create };

export const description: INodeProperties[] = [
	operationField('policyRun', 'create', [
		{
			name: 'Create',
			value: 'create',
			description: 'Run your own policy against a company\'s record; its statement appears at the statements export',
			action: 'Create a policy run',
		},
	]),
	...create.description,
];
