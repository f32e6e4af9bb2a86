import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operationField';
import type { ResourceOperations } from '../types';
import * as getAll from './getAll.operation';

export const operations: ResourceOperations = { getAll };

export const description: INodeProperties[] = [
	operationField('expiry', 'getAll', [
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List shares, invitations, requests and review dates that end within 30, 60 or 90 days',
			action: 'Get many expiries',
		},
	]),
	...getAll.description,
];
