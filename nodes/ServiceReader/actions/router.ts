import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { getServiceSettings } from '../../shared/transport/serviceRequest';
import { tokenRedactors, type TokenRedactors } from '../../shared/redaction';
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

	const redact = await tokenRedaction.call(this);
	if (operation.batch?.applies.call(this)) {
		try {
			return [(await operation.batch.execute.call(this)).map((item) => redactItem(item, redact))];
		} catch (error) {
			redactError(error, redact);
			throw asNodeError(this, error, 0);
		}
	}

	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const results = await operation.execute.call(this, itemIndex);
			for (const result of results) output.push(redactItem({ ...result, pairedItem: { item: itemIndex } }, redact));
		} catch (error) {
			redactError(error, redact);
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

/**
 * The last line of defence for the access token: whatever an operation built from the Service's
 * answers (a cursor quoted in an error, a record's parsed fields, a file name) is redacted once more
 * on its way out. Files themselves stay byte for byte.
 */
async function tokenRedaction(this: IExecuteFunctions): Promise<Redaction> {
	try {
		return await getServiceSettings.call(this);
	} catch {
		// An unusable credential sends nothing, so nothing can come back with the token.
		return tokenRedactors('');
	}
}

type Redaction = TokenRedactors;

function redactItem(item: INodeExecutionData, { redactFileName, redactValue }: Redaction): INodeExecutionData {
	const out = { ...item, json: redactValue(item.json) as IDataObject };
	if (item.binary) {
		out.binary = Object.fromEntries(
			Object.entries(item.binary).map(([name, binary]) => [name, binary.fileName ? { ...binary, fileName: redactFileName(binary.fileName) } : binary]),
		);
	}
	return out;
}

/** Every own field of the error, its causes and what they hold (../../shared/redaction.ts). */
function redactError(error: unknown, redaction: Redaction): void {
	redaction.redactError(error);
}

/** Keeps n8n's own errors (with their item index) and wraps anything else so the item is named. */
function asNodeError(context: IExecuteFunctions, error: Error, itemIndex: number) {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		return error;
	}
	return new NodeOperationError(context.getNode(), error, { itemIndex });
}
