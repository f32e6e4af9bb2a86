/** The workflows the memory bench runs at once: the trigger (with and without Add Company Details), a stock Webhook, an export started by a webhook. */
import type { exportWorkflow } from './exportWorkflows';

export const TRIGGER_CREDENTIAL = { id: 'benchMemorySvc001', name: 'Service (bench memory)' };

export function triggerWorkflow(id: string, addCompanyDetails: boolean) {
	const webhookId = `6c1f8d2e-3e5b-4d7f-9a21-${addCompanyDetails ? 'c' : 'a'}${id.slice(-3)}00000000`;
	return {
		id,
		webhookId,
		name: `Bench memory: Service Trigger${addCompanyDetails ? ', Add Company Details on' : ''} ${id.slice(-3)}`,
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {},
		nodes: [
			{
				id: 't1',
				name: 'Service Trigger',
				type: 'n8n-nodes-service-reader.serviceTrigger',
				typeVersion: 2,
				position: [0, 0],
				webhookId,
				parameters: { events: [], ignoreRedeliveries: true, ...(addCompanyDetails ? { options: { addCompanyDetails: true } } : {}) },
				credentials: { serviceApi: TRIGGER_CREDENTIAL },
			},
		],
	};
}

export function stockWorkflow(id: string, path: string) {
	return {
		id,
		name: 'Bench memory: stock Webhook, no verification',
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {},
		nodes: [
			{
				id: 'w1',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: '7d2a9e3f-4f6c-4e80-8b32-0f1e2d3c4b5a',
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
		],
	};
}

/** An export workflow of item 1 started by a webhook (answered at once) instead of the Manual Trigger. */
export function webhookStarted(workflow: ReturnType<typeof exportWorkflow>, path: string) {
	const [first, ...rest] = workflow.nodes as Array<Record<string, unknown>>;
	const hook = {
		id: first.id,
		name: first.name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: `8e3b0f4a-5a7d-4f91-9c43-${Buffer.from(path).toString('hex').slice(-12).padStart(12, '0')}`,
		// Answered when the execution ends, with no data: the answers say when all N are done (executions are not saved).
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'noData', options: {} },
	};
	const variant = path.slice(-1) as 'A' | 'B' | 'C';
	return {
		variant,
		path,
		workflow: { ...workflow, id: `benchMemExport${variant}01`, name: `${workflow.name} (memory, webhook)`, nodes: [hook, ...rest], settings: { ...workflow.settings, saveDataSuccessExecution: 'none' } },
	};
}
