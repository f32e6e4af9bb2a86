import { ExecutionLifecycleHooks, HookContext, LoadOptionsContext, WebhookContext, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodePropertyOptions,
	INodeType,
	IRun,
	IWebhookData,
	IWorkflowBase,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WebhookSetupMethodNames,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, NodeHelpers, Workflow } from 'n8n-workflow';

import { initDeduplication } from './deduplication';
import type { WebhookRequest, WebhookResponse } from './expressAdapters';
import { nodeTypes, PACKAGE, registerNodeType } from './nodeTypes';
import { createAdditionalData, initBinaryData } from './runWorkflow';

export type WebhookKind = 'production' | 'test';

export interface TriggerHarnessOptions {
	nodeType: INodeType;
	/** Node parameters as the user set them; defaults are filled in as the editor does. */
	parameters?: INodeParameters;
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** Public origin n8n is reached at (n8n's webhook URL setting), e.g. the test receiver's origin. */
	publicUrl: string;
	/** Static data a previous n8n process saved (to simulate a restart). */
	staticData?: IDataObject;
	nodeName?: string;
}

const WORKFLOW_ID = 'trigger-test-workflow';
const WEBHOOK_ID = '5b7c2e0a-4d1f-4c3e-9a51-0f6f3c1d2e7b';

/**
 * Runs a webhook trigger node the way n8n's server does, in process:
 * - activation and deactivation call the node's webhookMethods inside n8n-core's HookContext, as
 *   packages/cli/src/webhooks/webhook.service.ts does (checkExists, then create when it answers false);
 * - each delivery is handed to the node's webhook() inside n8n-core's WebhookContext, and answered
 *   as packages/cli/src/webhooks/webhook-helpers.ts does for responseMode "onReceived": when the
 *   node starts the workflow, n8n stores the execution, answers, then runs the execution with
 *   n8n-core's WorkflowExecute, the trigger node first with the delivered items;
 * - static data is persisted as n8n 2.40 persists it: production requests load it fresh; a change
 *   webhook() made is saved only when no execution starts (WorkflowRunner.run re-wraps the static
 *   data and loses the change otherwise); an execution loads it fresh and saves its changes when
 *   it ends; test registrations keep their own copy (Workflow.setTestStaticData).
 */
export class TriggerHarness {
	readonly node: INode;

	/** Static data as n8n would have stored it in its database (JSON). */
	saved: IDataObject;

	/** Static data of the current test-webhook registration, as n8n caches it. */
	private testRegistration: IDataObject | undefined;

	private readonly type: string;

	constructor(private readonly options: TriggerHarnessOptions) {
		this.type = `${PACKAGE}.${options.nodeType.description.name}`;
		registerNodeType(this.type, options.nodeType);
		const node: INode = {
			id: 'trigger',
			name: options.nodeName ?? options.nodeType.description.defaults.name ?? 'Trigger',
			type: this.type,
			typeVersion: Math.max(...[options.nodeType.description.version].flat()),
			position: [0, 0],
			parameters: {},
			// The credential the node's Authentication names.
			credentials: options.parameters?.authentication === 'oAuth2' ? { serviceOAuth2Api: { id: 'cred-oauth2', name: 'Service OAuth2 API' } } : { serviceApi: { id: 'cred-1', name: 'Service API' } },
			webhookId: WEBHOOK_ID,
		};
		node.parameters =
			NodeHelpers.getNodeParameters(
				options.nodeType.description.properties,
				options.parameters ?? {},
				true,
				false,
				node,
				options.nodeType.description,
			) ?? {};
		this.node = node;
		this.saved = structuredClone(options.staticData ?? {});
	}

	/** The same workflow in a fresh n8n process that loads the saved static data. */
	restart(changes: Partial<TriggerHarnessOptions> = {}): TriggerHarness {
		return new TriggerHarness({ ...this.options, staticData: this.saved, ...changes });
	}

	/** The node's own static data as saved (what `getWorkflowStaticData('node')` holds). */
	savedNodeData(): IDataObject {
		return (this.saved[`node:${this.node.name}`] as IDataObject | undefined) ?? {};
	}

	/** The node's static data held by the running test registration, if any. */
	testRegistrationNodeData(): IDataObject | undefined {
		return this.testRegistration?.[`node:${this.node.name}`] as IDataObject | undefined;
	}

	webhookUrl(kind: WebhookKind = 'production'): string {
		const base = kind === 'test' ? `${this.options.publicUrl}/webhook-test` : `${this.options.publicUrl}/webhook`;
		return `${base}/${this.webhookPath()}`;
	}

	webhookPath(): string {
		return NodeHelpers.getNodeWebhookPath(WORKFLOW_ID, this.node, 'webhook', false, false);
	}

	/**
	 * Activation (production: the workflow is switched on or n8n starts; test: the editor listens
	 * for a test event). Returns whether create() ran.
	 */
	async activate(kind: WebhookKind = 'production', activation: WorkflowActivateMode = 'activate'): Promise<{ created: boolean }> {
		const workflow = this.workflow(kind);
		const exists = await this.hook('checkExists', workflow, kind, activation);
		if (!exists) await this.hook('create', workflow, kind, activation);
		this.persist(workflow, kind);
		return { created: !exists };
	}

	/** Deactivation (production: workflow switched off; test: the test registration ends). */
	async deactivate(kind: WebhookKind = 'production'): Promise<void> {
		const workflow = this.workflow(kind);
		try {
			await this.hook('delete', workflow, kind, 'activate');
		} finally {
			if (kind === 'test') this.testRegistration = undefined;
			else this.persist(workflow, kind);
		}
	}

	/** Runs one webhook method on its own (e.g. checkExists after a restart). */
	async runHook(method: WebhookSetupMethodNames, kind: WebhookKind = 'production'): Promise<boolean | undefined> {
		const workflow = this.workflow(kind);
		const result = await this.hook(method, workflow, kind, 'activate');
		this.persist(workflow, kind);
		return result;
	}

	/** Hands one HTTP request to the node's webhook() inside a WebhookContext. */
	async deliver(req: WebhookRequest, res: WebhookResponse, kind: WebhookKind): Promise<IWebhookResponseData> {
		const workflow = this.workflow(kind);
		const additionalData = this.additionalData();
		additionalData.httpRequest = req as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
		additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
		const mode: WorkflowExecuteMode = kind === 'test' ? 'manual' : 'webhook';
		const context = new WebhookContext(workflow, this.node, additionalData, mode, this.webhookData(kind, additionalData), [], null);
		const result = (await this.options.nodeType.webhook!.call(context)) as IWebhookResponseData;
		// A test delivery works on the registration's copy (setTestStaticData), which nothing writes back.
		// n8n saves it when it answers before starting an execution (the node answered itself, or none
		// starts); once WorkflowRunner.run has begun, the change is lost.
		const answeredFirst = result.noWebhookResponse === true || result.workflowData === undefined;
		if (kind === 'production' && answeredFirst) this.persist(workflow, kind);
		return result;
	}

	/**
	 * The execution a delivery started, as WorkflowRunner runs it: static data loaded fresh, the
	 * trigger node first with the delivered items, changed static data saved when it ends (not in
	 * manual mode). Returns the trigger node's output items.
	 */
	async execute(items: INodeExecutionData[], kind: WebhookKind, retry = false): Promise<INodeExecutionData[]> {
		await initBinaryData();
		await initDeduplication();
		// `retry`: the user runs the failed execution again (n8n's Executions, Retry).
		const mode: WorkflowExecuteMode = retry ? 'retry' : kind === 'test' ? 'manual' : 'webhook';
		const workflow = this.workflow(kind);
		const workflowData = { id: WORKFLOW_ID, name: workflow.name, nodes: [this.node], connections: {}, settings: {} } as unknown as IWorkflowBase;
		const hooks = new ExecutionLifecycleHooks(mode, 'trigger-execution', workflowData);
		const finished = new Promise<{ run: IRun; newStaticData?: IDataObject }>((resolve) => {
			hooks.addHandler('workflowExecuteAfter', (run, newStaticData) => resolve({ run, newStaticData }));
		});
		const runExecutionData = createRunExecutionData({
			executionData: { nodeExecutionStack: [{ node: this.node, data: { main: [items] }, source: null }] },
		});
		await new WorkflowExecute(this.createAdditionalDataFor(hooks), mode, runExecutionData).processRunExecutionData(workflow);
		const { run, newStaticData } = await finished;
		if (kind === 'production' && newStaticData) this.saved = JSON.parse(JSON.stringify(newStaticData)) as IDataObject;
		const error = run.data.resultData.error;
		if (error) throw Object.assign(new Error(`The execution failed: ${error.message}`), { description: error.description });
		return run.data.resultData.runData[this.node.name]?.[0]?.data?.main?.[0] ?? [];
	}

	/** Runs a loadOptions method inside n8n-core's LoadOptionsContext, as the editor's request does. */
	async loadOptions(method: string, parameterPath = 'parameters.events'): Promise<INodePropertyOptions[]> {
		const fn = this.options.nodeType.methods?.loadOptions?.[method];
		if (!fn) throw new Error(`The node has no loadOptions method "${method}"`);
		const context = new LoadOptionsContext(this.workflow('production'), this.node, this.additionalData(), parameterPath);
		return await fn.call(context);
	}

	private workflow(kind: WebhookKind): Workflow {
		const workflow = new Workflow({
			id: WORKFLOW_ID,
			name: 'Trigger test workflow',
			nodes: [this.node],
			connections: {},
			nodeTypes,
			active: kind === 'production',
			settings: {},
			staticData: structuredClone(this.saved),
		});
		if (kind === 'test' && this.testRegistration) workflow.setTestStaticData(structuredClone(this.testRegistration));
		return workflow;
	}

	private persist(workflow: Workflow, kind: WebhookKind): void {
		if (kind === 'test') {
			// TestWebhooks keeps `workflow.staticData` with the registration, not in the database.
			this.testRegistration = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
			return;
		}
		if (workflow.staticData.__dataChanged === true) {
			this.saved = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
		}
	}

	private additionalData(): IWorkflowExecuteAdditionalData {
		return this.createAdditionalDataFor(undefined);
	}

	private createAdditionalDataFor(hooks: ExecutionLifecycleHooks | undefined): IWorkflowExecuteAdditionalData {
		const additionalData = createAdditionalData(hooks, this.options.credentials);
		additionalData.webhookBaseUrl = `${this.options.publicUrl}/webhook`;
		additionalData.webhookTestBaseUrl = `${this.options.publicUrl}/webhook-test`;
		return additionalData;
	}

	private webhookData(kind: WebhookKind, additionalData: IWorkflowExecuteAdditionalData): IWebhookData {
		const webhookDescription = this.options.nodeType.description.webhooks![0];
		return {
			httpMethod: 'POST',
			node: this.node.name,
			path: this.webhookPath(),
			webhookDescription,
			workflowId: WORKFLOW_ID,
			workflowExecuteAdditionalData: additionalData,
			isTest: kind === 'test',
		};
	}

	private async hook(
		method: WebhookSetupMethodNames,
		workflow: Workflow,
		kind: WebhookKind,
		activation: WorkflowActivateMode,
	): Promise<boolean | undefined> {
		const fn = this.options.nodeType.webhookMethods?.default?.[method];
		if (!fn) return undefined;
		const additionalData = this.additionalData();
		const mode: WorkflowExecuteMode = kind === 'test' ? 'manual' : method === 'delete' ? 'internal' : 'trigger';
		const context = new HookContext(workflow, this.node, additionalData, mode, activation, this.webhookData(kind, additionalData));
		return (await fn.call(context)) as boolean;
	}
}
