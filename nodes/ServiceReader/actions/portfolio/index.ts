import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operationField';
import type { ResourceOperations } from '../types';
import * as getAll from './getAll.operation';

export const operations: ResourceOperations = { getAll };

export const description: INodeProperties[] = [
	operationField('portfolio', 'getAll', [
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List the companies that share with you: tier, status and whether a decision is due',
			action: 'Get many portfolio rows',
		},
	]),
	...getAll.description,
];
