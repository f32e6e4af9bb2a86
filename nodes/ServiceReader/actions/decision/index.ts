import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operationField';
import type { ResourceOperations } from '../types';
import * as getAll from './getAll.operation';

export const operations: ResourceOperations = { getAll };

export const description: INodeProperties[] = [
	operationField('decision', 'getAll', [
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List your own decisions about the companies that share with you',
			action: 'Get many decisions',
		},
	]),
	...getAll.description,
];
