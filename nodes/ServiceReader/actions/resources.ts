import type { INodeProperties } from 'n8n-workflow';

import * as auditPack from './auditPack';
import * as decision from './decision';
import * as expiry from './expiry';
import * as invitation from './invitation';
import * as policyRun from './policyRun';
import * as portfolio from './portfolio';
import * as record from './record';
import * as service from './service';
import * as sso from './sso';
import * as statement from './statement';
import type { ResourceOperations } from './types';
import * as webhook from './webhook';

interface Resource {
	/** As the Resource list shows it. */
	name: string;
	operations: ResourceOperations;
	description: INodeProperties[];
}

/** Every resource of the node, by parameter value: the Resource list and the router both read it. */
export const resources: Record<string, Resource> = {
	auditPack: { name: 'Audit Pack', ...auditPack },
	decision: { name: 'Decision', ...decision },
	expiry: { name: 'Expiry', ...expiry },
	invitation: { name: 'Invitation', ...invitation },
	policyRun: { name: 'Policy Run', ...policyRun },
	portfolio: { name: 'Portfolio', ...portfolio },
	record: { name: 'Record', ...record },
	service: { name: 'Service', ...service },
	sso: { name: 'SSO', ...sso },
	statement: { name: 'Statement', ...statement },
	webhook: { name: 'Webhook', ...webhook },
};
