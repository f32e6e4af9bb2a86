import { LoadOptionsContext } from 'n8n-core';
import type { ICredentialDataDecryptedObject, INode, INodeListSearchResult, INodeParameters, INodeType } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { nodeTypes, PACKAGE } from './nodeTypes';
import { createAdditionalData } from './runWorkflow';

export interface ListSearchOptions {
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** The node's parameters as the editor sends them (currentNodeParameters). */
	parameters?: INodeParameters;
	typeVersion?: number;
	/** The parameter whose list is searched, e.g. `parameters.ke`. */
	path?: string;
	filter?: string;
	paginationToken?: string;
}

/**
 * One list search of a resource locator, as the editor's request runs it in n8n's server
 * (packages/cli/src/services/dynamic-node-parameters.service.ts, getResourceLocatorResults): a
 * workflow holding only the node, a LoadOptionsContext for the parameter, then the node's
 * `methods.listSearch[method]` with the filter and the pagination token.
 */
export async function listSearch(nodeType: INodeType, method: string, options: ListSearchOptions): Promise<INodeListSearchResult> {
	const fn = nodeType.methods?.listSearch?.[method];
	if (!fn) throw new Error(`The node has no listSearch method "${method}"`);
	const node: INode = {
		id: 'temp-node',
		name: 'Temp-Node',
		type: `${PACKAGE}.${nodeType.description.name}`,
		typeVersion: options.typeVersion ?? Math.max(...[nodeType.description.version].flat()),
		position: [0, 0],
		parameters: options.parameters ?? {},
		credentials: { serviceApi: { id: 'cred-1', name: 'Service API' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const context = new LoadOptionsContext(workflow, node, createAdditionalData(undefined, options.credentials), options.path ?? 'parameters.ke');
	return await fn.call(context, options.filter, options.paginationToken);
}
