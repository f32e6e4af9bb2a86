import type {
	ICredentialType,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers } from 'n8n-workflow';

import { ServiceApi } from '../../credentials/ServiceApi.credentials';
import { ServiceOAuth2Api } from '../../credentials/ServiceOAuth2Api.credentials';
import { ServiceReader } from '../../nodes/ServiceReader/ServiceReader.node';

export const PACKAGE = 'n8n-nodes-service-reader';

/**
 * Start node for test workflows: passes on the items the harness starts it with, so a test can
 * feed a node any input items (like pinned data on a Manual Trigger in the editor).
 */
class TestItems implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Items',
		name: 'testItems',
		group: ['input'],
		version: 1,
		description: 'Emits the items the test harness starts the workflow with',
		defaults: { name: 'Test Items' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData().map((item, index) => ({ ...item, pairedItem: { item: index } }))];
	}
}

const nodeClasses: Record<string, INodeType | IVersionedNodeType> = {
	[`${PACKAGE}.serviceReader`]: new ServiceReader(),
	'test.testItems': new TestItems(),
};

/** Extra node types a test registers (e.g. the trigger), by full type name. */
export function registerNodeType(type: string, nodeType: INodeType | IVersionedNodeType): void {
	nodeClasses[type] = nodeType;
}

export const credentialTypes: Record<string, ICredentialType> = {
	serviceApi: new ServiceApi(),
	serviceOAuth2Api: new ServiceOAuth2Api(),
};

export const nodeTypes: INodeTypes = {
	getByName: (type) => {
		const nodeType = nodeClasses[type];
		if (!nodeType) throw new Error(`Unknown node type "${type}" in the test harness`);
		return nodeType;
	},
	getByNameAndVersion: (type, version) => NodeHelpers.getVersionedNodeType(nodeTypes.getByName(type), version),
	getKnownTypes: () => ({}),
};
