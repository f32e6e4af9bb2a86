import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { serviceRequest } from '../../../shared/transport/serviceRequest';
import { inputProblem } from '../../helpers/itemInput';
import { checkSsoConfiguration } from './ssoConfig';

const show = { resource: ['sso'], operation: ['setConfiguration'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Provider Type',
		name: 'providerType',
		type: 'options',
		options: [
			{ name: 'OIDC', value: 'OIDC', description: 'OpenID Connect identity provider' },
			{ name: 'SAML', value: 'SAML', description: 'SAML 2.0 identity provider' },
		],
		default: 'OIDC',
		description: 'The kind of identity provider your staff sign in with',
		displayOptions: { show },
	},
	{
		displayName: 'Email Domains',
		name: 'emailDomains',
		type: 'fixedCollection',
		placeholder: 'Add Email Domain',
		typeOptions: { multipleValues: true },
		default: {},
		description: 'Your organisation\'s email domains: staff with these addresses sign in through your identity provider',
		displayOptions: { show },
		options: [
			{
				displayName: 'Domain',
				name: 'domain',
				values: [
					{
						displayName: 'Domain',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'buyer.example',
						description: 'One domain, without @ or https://',
					},
				],
			},
		],
	},
	{
		displayName: 'Group to Role Mapping',
		name: 'groupRoleMapping',
		type: 'fixedCollection',
		placeholder: 'Add Mapping',
		typeOptions: { multipleValues: true },
		default: {},
		description: 'Which reader role each identity-provider group grants. A group that is not mapped grants nothing.',
		displayOptions: { show },
		options: [
			{
				displayName: 'Mapping',
				name: 'mapping',
				values: [
					{
						displayName: 'Group',
						name: 'group',
						type: 'string',
						default: '',
						placeholder: 'procurement-admins',
						description: 'The group name exactly as your identity provider sends it',
					},
					{
						displayName: 'Role',
						name: 'role',
						type: 'string',
						default: '',
						placeholder: 'reader_admin',
						description: 'The reader role members of this group get, as named in your Service',
					},
				],
			},
		],
	},
];

/**
 * PUT /v1/reader/sso with provider type, email domains and group-to-role mapping, checked first so
 * every problem is named before anything is sent. The Service asks for a recent passkey (403).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const domains = this.getNodeParameter('emailDomains.domain', itemIndex, []) as Array<{ name?: unknown }>;
	const mapping = this.getNodeParameter('groupRoleMapping.mapping', itemIndex, []) as Array<{
		group?: unknown;
		role?: unknown;
	}>;
	const check = checkSsoConfiguration({
		providerType: this.getNodeParameter('providerType', itemIndex, 'OIDC'),
		emailDomains: domains.map((entry) => entry.name),
		mapping,
	});
	if (!check.ok) {
		const count = check.problems.length;
		throw inputProblem.call(
			this,
			itemIndex,
			`The SSO configuration has ${count === 1 ? 'a problem' : `${count} problems`}: ${check.problems[0]}${count > 1 ? ' …' : ''}`,
			`Fix ${count === 1 ? 'it' : 'them'} in the node's fields; nothing was sent. ${check.problems.join(' ')}`,
		);
	}
	const answer = await serviceRequest.call(
		this,
		{ method: 'PUT', path: '/v1/reader/sso', body: check.config, names: 'sso' },
		{ itemIndex },
	);
	return [{ json: answer.body as IDataObject }];
}
