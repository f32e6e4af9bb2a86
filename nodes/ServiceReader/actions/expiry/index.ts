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
		displayOptions: { show: { resource: ['expiry'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List shares, invitations, requests and review dates that end within 30, 60 or 90 days',
				action: 'Get many expiries',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
