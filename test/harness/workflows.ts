import type { INode, INodeParameters } from 'n8n-workflow';

import type { WorkflowDefinition } from './runWorkflow';
import { PACKAGE } from './nodeTypes';

export const READER = 'Service Reader';

/** Test Items -> Service Reader with the given parameters, as a user would build it. */
export function readerWorkflow(
	parameters: INodeParameters,
	nodeOptions: Partial<INode> = {},
): WorkflowDefinition {
	return {
		nodes: [
			{ id: 'start', name: 'Start', type: 'test.testItems', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: 'reader',
				name: READER,
				type: `${PACKAGE}.serviceReader`,
				typeVersion: 1,
				position: [200, 0],
				parameters,
				credentials: { serviceApi: { id: 'cred-1', name: 'Service API' } },
				...nodeOptions,
			},
		],
		connections: {
			Start: { main: [[{ node: READER, type: 'main', index: 0 }]] },
		},
	};
}
