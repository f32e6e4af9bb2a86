import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../types';
import * as getAll from './getAll.operation';

export const operations: ResourceOperations = { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['portfolio'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the companies that share with you: tier, status and whether a decision is due',
				action: 'Get many portfolio rows',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
