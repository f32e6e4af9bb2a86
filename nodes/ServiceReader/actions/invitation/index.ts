import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operationField';
import type { ResourceOperations } from '../types';
import * as create from './create.operation';
import * as getAll from './getAll.operation';
import * as importOperation from './import.operation';

export const operations: ResourceOperations = { create, getAll, import: importOperation };

export const description: INodeProperties[] = [
	operationField('invitation', 'getAll', [
		{
			name: 'Create',
			value: 'create',
			description: 'Invite one company to share its record with you',
			action: 'Create an invitation',
		},
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List your invitations and their status, as CSV rows, a CSV file or JSON',
			action: 'Get many invitations',
		},
		{
			name: 'Import',
			value: 'import',
			description: 'Invite many companies from a CSV file or from the input items; every row is answered in words',
			action: 'Import invitations',
		},
	]),
	...create.description,
	...getAll.description,
	...importOperation.description,
];
