import { Container } from '@n8n/di';
import { BinaryDataService, ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IConnections,
	INode,
	INodeExecutionData,
	IRun,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';

import { TestCredentialsHelper } from './credentialsHelper';
import { credentialTypes, nodeTypes } from './nodeTypes';

export interface WorkflowDefinition {
	nodes: INode[];
	connections: IConnections;
}

export interface RunOptions {
	/** Credentials by credential type name, as a user would enter them. */
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** Items the start node begins with. Default: one empty item. */
	inputItems?: INodeExecutionData[];
	mode?: WorkflowExecuteMode;
}

export interface RunResult {
	run: IRun;
	/** Items on output `outputIndex` of the node's last run; [] when it produced none. */
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** The error the node failed with, if any. */
	error(nodeName: string): IRun['data']['resultData']['error'] | undefined;
}

let binaryDataReady: Promise<void> | undefined;

/** n8n-core's binary data service in filesystem mode, under N8N_USER_FOLDER (test/setup/env.ts). */
export async function initBinaryData(): Promise<void> {
	binaryDataReady ??= Container.get(BinaryDataService).init();
	await binaryDataReady;
}

/**
 * Runs a workflow with n8n-core's WorkflowExecute, the package's real node types, and credentials
 * applied as n8n applies them. The first node is the start node.
 */
export async function runWorkflow(definition: WorkflowDefinition, options: RunOptions): Promise<RunResult> {
	await initBinaryData();
	const mode = options.mode ?? 'manual';
	const workflowData: IWorkflowBase = {
		id: 'test-workflow',
		name: 'Test workflow',
		active: false,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes: definition.nodes,
		connections: definition.connections,
		settings: {},
		activeVersionId: null,
	} as IWorkflowBase;
	const workflow = new Workflow({
		id: workflowData.id,
		name: workflowData.name,
		nodes: definition.nodes,
		connections: definition.connections,
		nodeTypes,
		active: false,
		settings: {},
	});

	const hooks = new ExecutionLifecycleHooks(mode, 'test-execution', workflowData);
	let resolveFinished!: (run: IRun) => void;
	const finished = new Promise<IRun>((resolve) => (resolveFinished = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => resolveFinished(run));

	const additionalData = createAdditionalData(hooks, options.credentials);
	const startNode = definition.nodes[0];
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{ node: startNode, data: { main: [options.inputItems ?? [{ json: {} }]] }, source: null },
			],
		},
	});

	const workflowExecute = new WorkflowExecute(additionalData, mode, runExecutionData);
	await workflowExecute.processRunExecutionData(workflow);
	const run = await finished;

	return {
		run,
		output(nodeName, outputIndex = 0) {
			const runs = run.data.resultData.runData[nodeName];
			if (!runs?.length) throw new Error(`Node "${nodeName}" did not run`);
			return runs[runs.length - 1].data?.main?.[outputIndex] ?? [];
		},
		error(nodeName) {
			const runs = run.data.resultData.runData[nodeName];
			return runs?.[runs.length - 1]?.error;
		},
	};
}

/** The additional data n8n's server passes to an execution, reduced to what a node can reach. */
export function createAdditionalData(
	hooks: ExecutionLifecycleHooks | undefined,
	credentials: Record<string, ICredentialDataDecryptedObject>,
): IWorkflowExecuteAdditionalData {
	const unsupported = (what: string) => () => {
		throw new Error(`${what} is not available in the test harness`);
	};
	return {
		credentialsHelper: new TestCredentialsHelper(credentialTypes, credentials),
		hooks,
		executeWorkflow: unsupported('executeWorkflow'),
		getRunExecutionData: unsupported('getRunExecutionData'),
		getRuntimeCredential: unsupported('getRuntimeCredential'),
		startRunnerTask: unsupported('startRunnerTask'),
		logAiEvent: () => {},
		currentNodeExecutionIndex: 0,
		restApiUrl: 'https://n8n.test/rest',
		instanceBaseUrl: 'https://n8n.test/',
		formBaseUrl: 'https://n8n.test/form',
		formWaitingBaseUrl: 'https://n8n.test/form-waiting',
		formTestBaseUrl: 'https://n8n.test/form-test',
		webhookBaseUrl: 'https://n8n.test/webhook',
		webhookWaitingBaseUrl: 'https://n8n.test/webhook-waiting',
		webhookTestBaseUrl: 'https://n8n.test/webhook-test',
		mcpBaseUrl: 'https://n8n.test/mcp',
		mcpTestBaseUrl: 'https://n8n.test/mcp-test',
		variables: {},
		// Left undefined on purpose: n8n-core treats a present value as a feature to use.
		currentNodeParameters: undefined,
		parentCallbackManager: undefined,
		evalLlmMockHandler: undefined,
		encryptedRunnerIdentity: undefined,
		ssrfBridge: undefined,
		executionId: 'test-execution',
		userId: 'test-user',
	} as unknown as IWorkflowExecuteAdditionalData;
}
