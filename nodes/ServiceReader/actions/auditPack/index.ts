import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operationField';
import type { ResourceOperations } from '../types';
import * as get from './get.operation';

export const operations: ResourceOperations = { get };

export const description: INodeProperties[] = [
	operationField('auditPack', 'get', [
		{
			name: 'Get',
			value: 'get',
			description: 'Download the evidence pack of a decision as a file',
			action: 'Get an audit pack',
		},
	]),
	...get.description,
];
