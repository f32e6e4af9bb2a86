import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/**
 * One operation of the Service Reader node: its parameters and what it does for one input item.
 * The router adds pairedItem and handles continueOnFail, so operations only return results.
 */
export interface ReaderOperation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]>;
	/**
	 * For operations that turn all input items into one request (e.g. an invitation import built
	 * from the items). When present the router calls it once instead of `execute` per item; each
	 * returned item must carry its own pairedItem.
	 */
	executeAll?(this: IExecuteFunctions): Promise<INodeExecutionData[] | undefined>;
}

export type ResourceOperations = Record<string, ReaderOperation>;
