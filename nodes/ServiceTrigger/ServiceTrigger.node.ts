import type {
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { handleDelivery } from './delivery/delivery';
import { activationError, checkExists, create, deleteEndpoint } from './lifecycle/lifecycle';
import { loadOptions } from './methods';
import { addCompanyDetails, COMPANY_DETAILS_MAX_PAGES } from './companyDetails/companyDetails';
import { passOnOnce } from './delivery/redelivery';
import { renewalError, renewalIn } from './lifecycle/renewal';
import { refusalRunError, refusalRunIn } from './delivery/refusalRun';
import { testRefusalIn } from './delivery/testRefusal';
import { credentialTest } from '../shared/credentialTest';
import { keepingTokenOut, methodsKeepingTokenOut } from '../shared/transport/tokenKeptOut';
import { authenticationField } from '../shared/authentication';

export class ServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Service Trigger',
		name: 'serviceTrigger',
		icon: { light: 'file:../../icons/service.svg', dark: 'file:../../icons/service.dark.svg' },
		group: ['trigger'],
		// Starts at 2: n8n treats a version-1 webhook node as its legacy Webhook (docs/performance.md).
		version: 2,
		subtitle: '={{$parameter["events"].length ? $parameter["events"].join(", ") : "All events"}}',
		description: 'Starts the workflow when the Service sends a signed webhook event',
		defaults: { name: 'Service Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Literal, for n8n's lint; the Authentication values are nodes/shared/authentication.ts's.
		credentials: [
			{ name: 'serviceApi', required: true, testedBy: 'serviceApiSettings', displayOptions: { show: { authentication: ['accessToken'] } } },
			{ name: 'serviceOAuth2Api', required: true, testedBy: 'serviceApiSettings', displayOptions: { show: { authentication: ['oAuth2'] } } },
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties: [
			authenticationField,
			{
				displayName: 'Event Names or IDs',
				name: 'events',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getEvents' },
				default: [],
				description:
					'Events that start the workflow; empty means all. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName:
					'ledger_high always starts this workflow, selected or not: the Service does not let a reader silence it. Other events not selected are acknowledged and start nothing.',
				name: 'ledgerHighNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Ignore Redeliveries',
				name: 'ignoreRedeliveries',
				type: 'boolean',
				default: true,
				description:
					'Whether to pass each alert_id on only once: the Service retries a delivery for up to 24 hours, so one alert can arrive twice',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Add Company Details',
						name: 'addCompanyDetails',
						type: 'boolean',
						default: false,
						description:
							"Whether to add the company's row of the portfolio export (name, tier, status, decision due) to each event that names a company, read in the execution after the delivery is answered",
					},
					{
						displayName: 'Company Details Max Pages',
						name: 'companyDetailsMaxPages',
						type: 'number',
						typeOptions: { minValue: 1, numberPrecision: 0 },
						default: COMPANY_DETAILS_MAX_PAGES,
						description:
							"With Add Company Details: the most portfolio pages one reading asks for before the executions waiting on it fail saying so (the credential's Max Pages applies if lower). A portfolio whose cursor never ends costs at most this many requests.",
					},
					{
						displayName: 'Signing Secret Field',
						name: 'signingField',
						type: 'string',
						default: '',
						placeholder: 'endpoint.signing.secret',
						description: "Where the Service's answer to registering the endpoint holds the signing secret (a dotted path), when the node cannot tell by the values: activation then names the fields",
					},
				],
			},
		],
	};

	methods = { loadOptions: methodsKeepingTokenOut(loadOptions), credentialTest };

	webhookMethods = {
		default: {
			checkExists: async function (this: IHookFunctions): Promise<boolean> {
				return await keepingTokenOut(this, async () => await checkExists.call(this).catch((error: unknown) => Promise.reject(activationError(this.getNode(), error))));
			},
			create: async function (this: IHookFunctions): Promise<boolean> {
				return await keepingTokenOut(this, async () => await create.call(this).catch((error: unknown) => Promise.reject(activationError(this.getNode(), error))));
			},
			delete: async function (this: IHookFunctions): Promise<boolean> {
				return await keepingTokenOut(this, async () => await deleteEndpoint.call(this));
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await keepingTokenOut(this, async () => await handleDelivery.call(this));
	}

	// The first step of the execution a delivery started (firstStep).
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await keepingTokenOut(this, async () => await firstStep.call(this));
	}
}

/**
 * Fails an execution a renewal started (renewal.ts), records the alert_id (redelivery.ts) and adds the
 * company (companyDetails.ts), or shows the editor why its test delivery was refused (testRefusal.ts).
 */
async function firstStep(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	// Started by a delivery that renewed the endpoint (renewal.ts): fails, so the execution list shows it.
	const renewal = renewalIn(this.getInputData());
	if (renewal !== undefined) {
		const { message, description } = renewalError(renewal);
		throw new NodeOperationError(this.getNode(), message, { description });
	}
	// Started by signed deliveries refused in a row (refusalRun.ts): fails, naming the likely cause.
	const run = refusalRunIn(this.getInputData());
	if (run !== undefined) {
		const { message, description } = refusalRunError(run);
		throw new NodeOperationError(this.getNode(), message, { description });
	}
	const refusal = this.getMode() === 'manual' ? testRefusalIn(this.getInputData()) : undefined;
	if (refusal !== undefined) {
		throw new NodeOperationError(this.getNode(), `The Service's test event was refused: ${refusal.reason}`, {
			description: `It is signed correctly, but the credential's ${refusal.setting} setting does not fit how this Service sends it, so in production every delivery would be refused (401). Set ${refusal.setting} to ${refusal.detect} in the Service API credential's Advanced Settings, then listen for a test event again.`,
		});
	}
	const [items] = await passOnOnce.call(this);
	const options = this.getNodeParameter('options', 0, {}) as { addCompanyDetails?: boolean; companyDetailsMaxPages?: unknown };
	return [options.addCompanyDetails === true ? await addCompanyDetails.call(this, items, options.companyDetailsMaxPages ?? COMPANY_DETAILS_MAX_PAGES) : items];
}
