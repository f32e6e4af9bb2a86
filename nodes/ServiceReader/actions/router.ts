import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { resources } from './resources';

/** Dispatches on resource and operation; adds pairedItem and honours continueOnFail for every item. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = resources[resource]?.operations[operationName];
	if (!operation) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" of resource "${resource}" is not supported`,
		);
	}

	if (operation.batch?.applies.call(this)) return [await operation.batch.execute.call(this)];

	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const results = await operation.execute.call(this, itemIndex);
			for (const result of results) output.push({ ...result, pairedItem: { item: itemIndex } });
		} catch (error) {
			if (this.continueOnFail()) {
				output.push({
					json: { error: error.message, ...(error.description ? { description: error.description } : {}) },
					pairedItem: { item: itemIndex },
				});
				continue;
			}
			const failure = asNodeError(this, error, itemIndex);
			throw failure;
		}
	}
	return [output];
}

/** Keeps n8n's own errors (with their item index) and wraps anything else so the item is named. */
function asNodeError(context: IExecuteFunctions, error: Error, itemIndex: number) {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		return error;
	}
	return new NodeOperationError(context.getNode(), error, { itemIndex });
}
