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
		displayOptions: { show: { resource: ['statement'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the statements of your policy runs',
				action: 'Get many statements',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
