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
		displayOptions: { show: { resource: ['decision'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List your own decisions about the companies that share with you',
				action: 'Get many decisions',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
