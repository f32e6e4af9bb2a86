import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/**
 * One operation of the Service Reader node: its parameters and what it does for one input item.
 * The router adds pairedItem and handles continueOnFail, so operations only return results.
 */
export interface ReaderOperation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]>;
	/**
	 * For operations that can turn all input items into one request (an invitation import built
	 * from the items): when `applies` says so, the router calls `execute` once instead of the
	 * operation's per-item `execute`; each returned item carries its own pairedItem.
	 */
	batch?: {
		applies(this: IExecuteFunctions): boolean;
		execute(this: IExecuteFunctions): Promise<INodeExecutionData[]>;
	};
}

export type ResourceOperations = Record<string, ReaderOperation>;
