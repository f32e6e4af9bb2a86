import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operationField';
import type { ResourceOperations } from '../types';
import * as getAll from './getAll.operation';

export const operations: ResourceOperations = { getAll };

export const description: INodeProperties[] = [
	operationField('statement', 'getAll', [
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List the statements of your policy runs',
			action: 'Get many statements',
		},
	]),
	...getAll.description,
];
