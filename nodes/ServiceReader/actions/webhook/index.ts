import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../operationField';
import type { ResourceOperations } from '../types';
import * as createEndpoint from './createEndpoint.operation';
import * as getCatalogue from './getCatalogue.operation';

export const operations: ResourceOperations = { createEndpoint, getCatalogue };

export const description: INodeProperties[] = [
	operationField('webhook', 'getCatalogue', [
		{
			name: 'Create Endpoint',
			value: 'createEndpoint',
			description: 'Register an https endpoint for events; outputs its signing secret, shown only once',
			action: 'Create a webhook endpoint',
		},
		{
			name: 'Get Catalogue',
			value: 'getCatalogue',
			description: 'List the event types your endpoints can receive, each with a sample body',
			action: 'Get the webhook event catalogue',
		},
	]),
	...createEndpoint.description,
	...getCatalogue.description,
];
