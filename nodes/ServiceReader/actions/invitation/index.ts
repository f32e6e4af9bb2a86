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
		displayOptions: { show: { resource: ['invitation'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List your invitations and their status, as CSV rows, a CSV file or JSON',
				action: 'Get many invitations',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
