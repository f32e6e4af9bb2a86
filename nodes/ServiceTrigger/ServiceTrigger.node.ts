import type {
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { handleDelivery } from './delivery';
import { checkExists, create, deleteEndpoint } from './lifecycle';
import { loadOptions } from './methods';
import { passOnOnce } from './redelivery';

export class ServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Service Trigger',
		name: 'serviceTrigger',
		icon: { light: 'file:../../icons/service.svg', dark: 'file:../../icons/service.dark.svg' },
		group: ['trigger'],
		// The first version is 2: n8n (2.40) takes a webhook start node of version 1 for its legacy
		// Webhook node and evaluates that node's binaryData option as an expression for every
		// request, which in n8n's isolated expression engine costs several ms of CPU per delivery.
		version: 2,
		subtitle: '={{$parameter["events"].length ? $parameter["events"].join(", ") : "All events"}}',
		description: 'Starts the workflow when the Service sends a signed webhook event',
		defaults: { name: 'Service Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'serviceApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName: 'Event Names or IDs',
				name: 'events',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getEvents' },
				default: [],
				description:
					'Events that start the workflow; leave empty for all events. ledger_high always starts the workflow, selected or not: the Service does not let a reader silence it. Other events are acknowledged and start nothing. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Ignore Redeliveries',
				name: 'ignoreRedeliveries',
				type: 'boolean',
				default: true,
				description:
					'Whether to start nothing for an alert_id that already started this workflow. The Service retries failed deliveries for 24 hours, so one alert can arrive twice. The last 1,000 alert IDs are remembered for 25 hours in the workflow\'s static data. In queue mode with several webhook processes, or when two copies arrive at the same moment, both copies can still start the workflow: deduplicate on alert_id downstream where a second run would do harm.',
			},
		],
	};

	methods = { loadOptions };

	webhookMethods = {
		default: {
			checkExists: async function (this: IHookFunctions): Promise<boolean> {
				return await checkExists.call(this);
			},
			create: async function (this: IHookFunctions): Promise<boolean> {
				return await create.call(this);
			},
			delete: async function (this: IHookFunctions): Promise<boolean> {
				return await deleteEndpoint.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await handleDelivery.call(this);
	}

	// The first step of the execution a delivery started: records the alert_id (redelivery.ts).
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await passOnOnce.call(this);
	}
}
