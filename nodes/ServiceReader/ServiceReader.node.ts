import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { resources } from './actions/resources';
import { router } from './actions/router';
import { listSearch } from './methods';
import { credentialTest } from '../shared/credentialTest';
import { keepingTokenOut, methodsKeepingTokenOut } from '../shared/transport/tokenKeptOut';
import { authenticationField } from '../shared/authentication';

export class ServiceReader implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Service Reader',
		name: 'serviceReader',
		icon: { light: 'file:../../icons/service.svg', dark: 'file:../../icons/service.dark.svg' },
		group: ['transform'],
		// Version 2: the KE is picked from the companies that share (a resource locator); version 1 keeps plain text.
		version: [1, 2],
		defaultVersion: 2,
		// "Portfolio: Get Many", as the dropdowns name them (a literal, as n8n's lint wants; test/unit/readerSubtitle.test.ts checks it).
		subtitle:
			'={{ ({"auditPack.get":"Audit Pack: Get","decision.getAll":"Decision: Get Many","expiry.getAll":"Expiry: Get Many","invitation.create":"Invitation: Create","invitation.getAll":"Invitation: Get Many","invitation.import":"Invitation: Import","policyRun.create":"Policy Run: Create","portfolio.getAll":"Portfolio: Get Many","record.get":"Record: Get","record.verify":"Record: Verify","service.checkSettings":"Service: Check Settings","sso.setConfiguration":"SSO: Set Configuration","statement.getAll":"Statement: Get Many","webhook.createEndpoint":"Webhook: Create Endpoint","webhook.getCatalogue":"Webhook: Get Catalogue"})[$parameter["resource"] + "." + $parameter["operation"]] }}',
		description: 'Read signed records and exports, invite companies, run policies and set SSO in the Service',
		defaults: { name: 'Service Reader' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Literal, for n8n's lint; the Authentication values are nodes/shared/authentication.ts's.
		credentials: [
			{ name: 'serviceApi', required: true, testedBy: 'serviceApiSettings', displayOptions: { show: { authentication: ['accessToken'] } } },
			{ name: 'serviceOAuth2Api', required: true, testedBy: 'serviceApiSettings', displayOptions: { show: { authentication: ['oAuth2'] } } },
		],
		properties: [
			authenticationField,
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: Object.entries(resources).map(([value, resource]) => ({ name: resource.name, value })),
				default: 'webhook',
			},
			...Object.values(resources).flatMap((resource) => resource.description),
		],
	};

	methods = { listSearch: methodsKeepingTokenOut(listSearch), credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await keepingTokenOut(this, async () => await router.call(this));
	}
}
