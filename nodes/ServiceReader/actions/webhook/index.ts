import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../types';
import * as getCatalogue from './getCatalogue.operation';

export const operations: ResourceOperations = { getCatalogue };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhook'] } },
		options: [
			{
				name: 'Get Catalogue',
				value: 'getCatalogue',
				description: 'List the event types your endpoints can receive, each with a sample body',
				action: 'Get the webhook event catalogue',
			},
		],
		default: 'getCatalogue',
	},
	...getCatalogue.description,
];
