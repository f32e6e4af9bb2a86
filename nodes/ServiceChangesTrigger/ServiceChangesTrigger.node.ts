import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { credentialTest } from '../shared/credentialTest';
import { keepingTokenOut } from '../shared/transport/tokenKeptOut';
import { DEFAULT_MAX_POLL_SECONDS, DEFAULT_MAX_ROWS, DEFAULT_MAX_STATE_MIB } from './limits';
import { pollChanges } from './poll';
import { authenticationField } from '../shared/authentication';

export class ServiceChangesTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Service Changes Trigger',
		name: 'serviceChangesTrigger',
		icon: { light: 'file:../../icons/service.svg', dark: 'file:../../icons/service.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["export"]}}',
		description: 'Starts the workflow with the rows added, changed or removed in a Service export since the last poll',
		defaults: { name: 'Service Changes Trigger' },
		// n8n adds Poll Times itself.
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Literal, for n8n's lint; the Authentication values are nodes/shared/authentication.ts's.
		credentials: [
			{ name: 'serviceApi', required: true, testedBy: 'serviceApiSettings', displayOptions: { show: { authentication: ['accessToken'] } } },
			{ name: 'serviceOAuth2Api', required: true, testedBy: 'serviceApiSettings', displayOptions: { show: { authentication: ['oAuth2'] } } },
		],
		properties: [
			authenticationField,
			{
				displayName: 'Export',
				name: 'export',
				type: 'options',
				options: [
					{ name: 'Decisions', value: 'decisions', description: 'New decisions' },
					{ name: 'Expiries', value: 'expiries', description: 'Rows entering the chosen window' },
					{ name: 'Invitations', value: 'invitations', description: 'Status changes, keyed by invitation ID' },
					{ name: 'Portfolio', value: 'portfolio', description: 'Companies added, changed or removed, keyed by KE' },
					{ name: 'Statements', value: 'statements', description: 'New statements from policy runs' },
				],
				default: 'portfolio',
				description: 'Which export to watch',
			},
			{
				displayName: 'Window',
				name: 'window',
				type: 'options',
				options: [
					{ name: 'Within 30 Days', value: '30' },
					{ name: 'Within 60 Days', value: '60' },
					{ name: 'Within 90 Days', value: '90' },
				],
				default: '30',
				description: 'Which look-ahead window of the expiries export to watch',
				displayOptions: { show: { export: ['expiries'] } },
			},
			{
				displayName: 'Changes',
				name: 'changes',
				type: 'multiOptions',
				options: [
					{ name: 'Added', value: 'added', description: 'A row that was not in the export before' },
					{ name: 'Changed', value: 'changed', description: 'A row whose values changed, with the earlier values in previous' },
					{ name: 'Removed', value: 'removed', description: 'A row no longer in the export, e.g. a company whose share ended' },
				],
				default: ['added', 'changed', 'removed'],
				description: 'Which kinds of change start the workflow; the state follows every change either way',
			},
			{
				displayName: 'Decisions and statements report new rows only: Changed and Removed do not apply to them',
				name: 'newOnlyNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { export: ['decisions', 'statements'] } },
			},
			{
				displayName: 'Key Column',
				name: 'keyColumn',
				type: 'string',
				default: '',
				placeholder: 'e.g. company_ke',
				description:
					"The export's column that tells its rows apart, such as the portfolio's KE column. Leave empty to detect it: by name, then (portfolio) by the first page's values; a poll that cannot tell fails and says so.",
			},
			{
				displayName: 'Emit Current Rows on First Poll',
				name: 'emitCurrentRows',
				type: 'boolean',
				default: false,
				description: 'Whether the first poll emits every current row as added; off, it only notes them, and later polls emit what changed',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Max Poll Time (Seconds)',
						name: 'maxPollTime',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: DEFAULT_MAX_POLL_SECONDS,
						description: 'How long one poll may keep reading pages; a poll that takes longer fails, emitting nothing and keeping the state (checked after each page)',
					},
					{
						displayName: 'Max Rows',
						name: 'maxRows',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: DEFAULT_MAX_ROWS,
						description: 'The most rows one poll reads; an export with more fails the poll, emitting nothing and keeping the state',
					},
					{
						displayName: 'Max State Size (MiB)',
						name: 'maxStateSize',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: DEFAULT_MAX_STATE_MIB,
						description: "The most the rows kept between polls may take in the workflow's static data; a larger state fails the poll, emitting nothing and keeping the earlier state",
					},
				],
			},
		],
	};

	methods = { credentialTest };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await keepingTokenOut(this, async () => await pollChanges.call(this));
	}
}
