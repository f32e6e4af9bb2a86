import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operationField';
import type { ResourceOperations } from '../types';
import * as get from './get.operation';
import * as verify from './verify.operation';

export const operations: ResourceOperations = { get, verify };

export const description: INodeProperties[] = [
	operationField('record', 'get', [
		{
			name: 'Get',
			value: 'get',
			description: 'Download a company\'s signed record: its fields as JSON and the exact file as binary',
			action: 'Get a signed record',
		},
		{
			name: 'Verify',
			value: 'verify',
			description: 'Verify a published report, and optionally check that a copy you hold is the signed file',
			action: 'Verify a signed record',
		},
	]),
	...get.description,
	...verify.description,
];
