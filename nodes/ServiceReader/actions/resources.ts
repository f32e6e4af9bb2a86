import type { INodeProperties } from 'n8n-workflow';

import * as decision from './decision';
import * as expiry from './expiry';
import * as invitation from './invitation';
import * as portfolio from './portfolio';
import * as statement from './statement';
import type { ResourceOperations } from './types';
import * as webhook from './webhook';

/** Every resource of the node, by parameter value. */
export const resources: Record<string, { operations: ResourceOperations; description: INodeProperties[] }> = {
	decision,
	expiry,
	invitation,
	portfolio,
	statement,
	webhook,
};
