import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

const OPERATION: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	default: '',
};

/** The Operation dropdown of one resource, defaulting to `defaultOperation`. */
export function operationField(resource: string, defaultOperation: string, options: INodePropertyOptions[]): INodeProperties {
	return { ...OPERATION, displayOptions: { show: { resource: [resource] } }, options, default: defaultOperation };
}
