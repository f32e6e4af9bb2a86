import type { INodeProperties } from 'n8n-workflow';

import * as auditPack from './auditPack';
import * as decision from './decision';
import * as expiry from './expiry';
import * as invitation from './invitation';
import * as policyRun from './policyRun';
import * as portfolio from './portfolio';
import * as record from './record';
import * as sso from './sso';
import * as statement from './statement';
import type { ResourceOperations } from './types';
import * as webhook from './webhook';

/** Every resource of the node, by parameter value. */
export const resources: Record<string, { operations: ResourceOperations; description: INodeProperties[] }> = {
	auditPack,
	decision,
	expiry,
	invitation,
	policyRun,
	portfolio,
	record,
	sso,
	statement,
	webhook,
};
