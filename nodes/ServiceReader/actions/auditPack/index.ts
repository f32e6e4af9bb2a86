import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../types';
import * as get from './get.operation';

export const operations: ResourceOperations = { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['auditPack'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Download the evidence pack of a decision as a file',
				action: 'Get an audit pack',
			},
		],
		default: 'get',
	},
	...get.description,
];
