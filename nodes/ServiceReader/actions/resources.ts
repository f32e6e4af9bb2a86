import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from './types';
import * as webhook from './webhook';

/** Every resource of the node, by parameter value. */
export const resources: Record<string, { operations: ResourceOperations; description: INodeProperties[] }> = {
	webhook,
};
