import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { pathSegmentProblem } from '../../shared/validation';

/**
 * Bad input for one item: fails before any request, naming the item (as n8n does, "[item N]",
 * counting from 0 like pairedItem), the field and what to do.
 */
export function inputProblem(
	this: IExecuteFunctions,
	itemIndex: number,
	problem: string,
	description?: string,
): NodeOperationError {
	return new NodeOperationError(this.getNode(), `${problem} [item ${itemIndex}]`, { itemIndex, description });
}

/** A KE, KS or pack_id parameter, trimmed, checked so it cannot change the request path. */
export function pathParameter(this: IExecuteFunctions, itemIndex: number, name: string, label: string): string {
	// extractValue: a resource locator ({ __rl, mode, value }) gives its value, plain text stays as it is.
	const value = this.getNodeParameter(name, itemIndex, '', { extractValue: true }) as unknown;
	const problem = pathSegmentProblem(label, value);
	if (problem) throw inputProblem.call(this, itemIndex, problem, `Set the ${label} field of this node for input item ${itemIndex}.`);
	return (value as string).trim();
}

/** A binary field name (input or output), trimmed and non-empty. */
export function binaryFieldName(this: IExecuteFunctions, itemIndex: number, value: unknown, label: string): string {
	if (typeof value !== 'string' || value.trim() === '') {
		throw inputProblem.call(
			this,
			itemIndex,
			`${label} is empty: enter the name of a binary field, e.g. data.`,
		);
	}
	return value.trim();
}

/** The exact bytes of an input item's binary field, or a clear error when the item has none. */
export async function inputFileBytes(
	this: IExecuteFunctions,
	itemIndex: number,
	fieldName: string,
	what: string,
): Promise<Buffer> {
	const binary = this.getInputData()[itemIndex]?.binary ?? {};
	if (binary[fieldName] === undefined) {
		const present = Object.keys(binary);
		throw inputProblem.call(
			this,
			itemIndex,
			`The input item has no binary field "${fieldName}" holding ${what}`,
			present.length
				? `Its binary fields are ${present.map((name) => `"${name}"`).join(', ')}: set Input Binary Field to the one holding ${what}.`
				: `It has no binary data at all: put ${what} in the item first (e.g. with Read/Write Files from Disk), or set Input Binary Field.`,
		);
	}
	return await this.helpers.getBinaryDataBuffer(itemIndex, fieldName);
}
