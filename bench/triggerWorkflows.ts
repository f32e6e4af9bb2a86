/**
 * The webhook workflows of item 3, each a single trigger node answering at once (onReceived): the
 * Service Trigger with its defaults (all events, Ignore Redeliveries on), the same with Ignore
 * Redeliveries off, the same as added with Add Company Details on, and the stock Webhook node with
 * no verification at all.
 */
export const TRIGGER_CREDENTIAL = { id: 'benchTriggerSvc01', name: 'Service (bench trigger)' };

export const triggerWorkflowId = 'benchSvcTrigger01';
export const triggerNoMemoryWorkflowId = 'benchSvcTrigger02';
export const triggerCompanyWorkflowId = 'benchSvcTrigger03';
export const stockWorkflowId = 'benchStockHook001';
export const STOCK_PATH = 'bench-stock-webhook';

export const triggerWebhookIds: Record<string, string> = {
	[triggerWorkflowId]: '5b0f7c1e-2d4a-4c6e-8f10-b3a9e1d2c401',
	[triggerNoMemoryWorkflowId]: '5b0f7c1e-2d4a-4c6e-8f10-b3a9e1d2c402',
	[triggerCompanyWorkflowId]: '5b0f7c1e-2d4a-4c6e-8f10-b3a9e1d2c403',
};

/** A workflow of one webhook node at the origin. */
function webhookWorkflow(id: string, name: string, node: Record<string, unknown>) {
	return { id, name, active: false, settings: { executionOrder: 'v1' }, connections: {}, nodes: [{ ...node, position: [0, 0] }] };
}

/**
 * The Service Trigger as added (Ignore Redeliveries on), or with the redelivery memory off, to show its
 * cost; or as added with Add Company Details on, which reads the bench sandbox's portfolio through the same credential.
 */
export function serviceTriggerWorkflow(ignoreRedeliveries: boolean, addCompanyDetails = false) {
	const id = addCompanyDetails ? triggerCompanyWorkflowId : ignoreRedeliveries ? triggerWorkflowId : triggerNoMemoryWorkflowId;
	const name = addCompanyDetails ? ', Add Company Details on' : ignoreRedeliveries ? '' : ', Ignore Redeliveries off';
	return webhookWorkflow(id, `Bench: Service Trigger${name}`, {
		id: 't1',
		name: 'Service Trigger',
		type: 'n8n-nodes-service-reader.serviceTrigger',
		typeVersion: 2,
		webhookId: triggerWebhookIds[id],
		parameters: { events: [], ignoreRedeliveries, ...(addCompanyDetails ? { options: { addCompanyDetails: true } } : {}) },
		credentials: { serviceApi: TRIGGER_CREDENTIAL },
	});
}

export function stockWebhookWorkflow() {
	return webhookWorkflow(stockWorkflowId, 'Bench: stock Webhook, no verification', {
		id: 'w1',
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: '9c2e4a61-7b3d-4f0e-a5c8-d1e2f3a4b501',
		parameters: { httpMethod: 'POST', path: STOCK_PATH, responseMode: 'onReceived', options: {} },
	});
}
