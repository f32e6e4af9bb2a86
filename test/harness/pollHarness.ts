import { ExecutionLifecycleHooks, PollContext, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRun,
	IWorkflowBase,
	WorkflowActivateMode,
} from 'n8n-workflow';
import { createRunExecutionData, NodeHelpers, Workflow } from 'n8n-workflow';

import { nodeTypes, PACKAGE, registerNodeType } from './nodeTypes';
import { createAdditionalData, initBinaryData } from './runWorkflow';

export interface PollHarnessOptions {
	nodeType: INodeType;
	/** Node parameters as the user set them; defaults are filled in as the editor does. */
	parameters?: INodeParameters;
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** Static data a previous n8n process saved (to simulate a restart). */
	staticData?: IDataObject;
}

/** One poll as n8n ran it: what it emitted (an execution started with these items), or the error it reported. */
export interface PollOutcome {
	items: INodeExecutionData[] | undefined;
	error: Error | undefined;
}

const WORKFLOW_ID = 'poll-test-workflow';

/**
 * Runs a polling trigger node the way n8n 2.40's server does, in process (n8n-core's
 * PollTriggerExecutor and active-workflow-triggers.js, the CLI's
 * TriggerExecutionContextFactory.getExecutePollFunctions, durable poll cursors off, the default):
 * - activation runs one poll at once as a test (an error fails the activation), emits what it
 *   returns, then saves the static data;
 * - each scheduled poll runs poll() in n8n-core's PollContext on the active workflow's static data,
 *   held in memory from poll to poll; a result other than null is emitted, and the static data is
 *   saved then; null saves nothing; an error is reported (a failed execution) and saves nothing;
 * - a restart is a new harness with only the saved static data;
 * - the editor's Fetch Test Event runs the workflow in manual mode with n8n-core's WorkflowExecute,
 *   which calls poll() in a PollContext of mode manual; a manual execution saves no static data.
 */
export class PollHarness {
	readonly node: INode;
	/** Static data as n8n would have stored it in its database (JSON). */
	saved: IDataObject;
	/** Every execution the polls started, in order, and every error they reported. */
	readonly outcomes: PollOutcome[] = [];

	private readonly type: string;
	private active: Workflow | undefined;

	constructor(private readonly options: PollHarnessOptions) {
		this.type = `${PACKAGE}.${options.nodeType.description.name}`;
		registerNodeType(this.type, options.nodeType);
		const node: INode = {
			id: 'poller',
			name: options.nodeType.description.defaults.name ?? 'Poller',
			type: this.type,
			typeVersion: Math.max(...[options.nodeType.description.version].flat()),
			position: [0, 0],
			parameters: {},
			// The credential the node's Authentication names.
			credentials: options.parameters?.authentication === 'oAuth2' ? { serviceOAuth2Api: { id: 'cred-oauth2', name: 'Service OAuth2 API' } } : { serviceApi: { id: 'cred-1', name: 'Service API' } },
		};
		node.parameters =
			NodeHelpers.getNodeParameters(options.nodeType.description.properties, options.parameters ?? {}, true, false, node, options.nodeType.description) ?? {};
		this.node = node;
		this.saved = structuredClone(options.staticData ?? {});
	}

	/** The same workflow in a fresh n8n process that loads the saved static data (optionally with other settings). */
	restart(changes: Partial<PollHarnessOptions> = {}): PollHarness {
		return new PollHarness({ ...this.options, staticData: this.saved, ...changes });
	}

	/** The node's own static data as saved (what `getWorkflowStaticData('node')` held when n8n saved it). */
	savedNodeData(): IDataObject {
		return (this.saved[`node:${this.node.name}`] as IDataObject | undefined) ?? {};
	}

	/** The node's static data the active workflow holds in memory. */
	liveNodeData(): IDataObject {
		return (this.active?.staticData[`node:${this.node.name}`] as IDataObject | undefined) ?? {};
	}

	/** The workflow is switched on (or n8n starts with it active): one poll at once; its error fails the activation. */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<PollOutcome> {
		this.active = this.workflow();
		const result = await this.runPoll(this.active, activation);
		const outcome = { items: result?.[0], error: undefined };
		if (result !== null) this.outcomes.push(outcome);
		this.save(this.active);
		return outcome;
	}

	/** One scheduled poll of the active workflow (Poll Times came round). */
	async poll(): Promise<PollOutcome> {
		if (this.active === undefined) throw new Error('Activate the workflow before polling');
		let outcome: PollOutcome;
		try {
			const result = await this.runPoll(this.active, 'activate');
			if (result === null) return { items: undefined, error: undefined };
			outcome = { items: result[0], error: undefined };
			// __emit saves the static data, then starts the execution.
			this.save(this.active);
		} catch (error) {
			outcome = { items: undefined, error: error as Error };
		}
		this.outcomes.push(outcome);
		return outcome;
	}

	/** The editor's Fetch Test Event: the workflow run in manual mode from the trigger. Throws the node's error. */
	async fetchTestEvent(): Promise<INodeExecutionData[]> {
		await initBinaryData();
		const workflow = this.workflow();
		const workflowData = { id: WORKFLOW_ID, name: workflow.name, nodes: [this.node], connections: {}, settings: {} } as unknown as IWorkflowBase;
		const hooks = new ExecutionLifecycleHooks('manual', 'poll-test-execution', workflowData);
		const finished = new Promise<IRun>((resolve) => hooks.addHandler('workflowExecuteAfter', (run) => resolve(run)));
		const runExecutionData = createRunExecutionData({
			executionData: { nodeExecutionStack: [{ node: this.node, data: { main: [[{ json: {} }]] }, source: null }] },
		});
		await new WorkflowExecute(createAdditionalData(hooks, this.options.credentials), 'manual', runExecutionData).processRunExecutionData(workflow);
		const run = await finished;
		const error = run.data.resultData.error;
		if (error) throw Object.assign(new Error(error.message), { description: error.description });
		return run.data.resultData.runData[this.node.name]?.[0]?.data?.main?.[0] ?? [];
	}

	private async runPoll(workflow: Workflow, activation: WorkflowActivateMode): Promise<INodeExecutionData[][] | null> {
		const context = new PollContext(workflow, this.node, createAdditionalData(undefined, this.options.credentials), 'trigger', activation);
		return await this.options.nodeType.poll!.call(context);
	}

	private workflow(): Workflow {
		return new Workflow({
			id: WORKFLOW_ID,
			name: 'Poll test workflow',
			nodes: [this.node],
			connections: {},
			nodeTypes,
			active: true,
			settings: {},
			staticData: structuredClone(this.saved),
		});
	}

	private save(workflow: Workflow): void {
		if (workflow.staticData.__dataChanged === true) {
			this.saved = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
			workflow.staticData.__dataChanged = false;
		}
	}
}
