import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { description } from './actions/description';
import { router } from './actions/router';

export class ServiceReader implements INodeType {
	description: INodeTypeDescription = description;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
