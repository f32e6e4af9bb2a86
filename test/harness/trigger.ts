import { execFile } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request, type Server } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { EventEmitter } from 'node:events';

import { Container } from '@n8n/di';
import { Logger } from '@n8n/backend-common';
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
import { nodeTypes, PACKAGE, registerNodeType } from './nodeTypes';
import { createAdditionalData, initBinaryData } from './runWorkflow';

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
			credentials: { serviceApi: { id: 'cred-1', name: 'Service API' } },
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
	async execute(items: INodeExecutionData[], kind: WebhookKind): Promise<INodeExecutionData[]> {
		await initBinaryData();
		await initDeduplication();
		const mode: WorkflowExecuteMode = kind === 'test' ? 'manual' : 'webhook';
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
		if (error) throw new Error(`The execution failed: ${error.message}`);
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

/** The parts of an express request n8n hands to webhook(): headers, rawBody / readRawBody, body. */
export interface WebhookRequest extends IncomingMessage {
	rawBody: Buffer;
	readRawBody(): Promise<void>;
	body: unknown;
	query: Record<string, string>;
	params: Record<string, string>;
	header(name: string): string | undefined;
}

/** The parts of an express response a node uses to answer itself. */
export interface WebhookResponse {
	status(code: number): WebhookResponse;
	send(body?: string | Buffer): WebhookResponse;
	json(body: unknown): WebhookResponse;
	end(): WebhookResponse;
	setHeader(name: string, value: string): WebhookResponse;
	/** 'finish': the answer was handed to the network; 'close': the connection ended, as on node's ServerResponse. */
	once(event: 'finish' | 'close', listener: () => void): WebhookResponse;
	readonly statusCode: number;
	readonly headersSent: boolean;
	readonly finished: boolean;
}

function expressRequest(req: IncomingMessage): WebhookRequest {
	const request = req as WebhookRequest;
	// As n8n's raw-body middleware: reads the stream once, on demand.
	let reading: Promise<void> | undefined;
	request.readRawBody = () => {
		reading ??= new Promise<void>((resolve, reject) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				request.rawBody = Buffer.concat(chunks);
				resolve();
			});
			req.on('error', reject);
		});
		return reading;
	};
	request.query = Object.fromEntries(new URL(req.url ?? '/', 'https://receiver').searchParams);
	request.params = {};
	request.header = (name) => {
		const value = req.headers[name.toLowerCase()];
		return Array.isArray(value) ? value.join(', ') : value;
	};
	return request;
}

/** n8n's answer, sent as usual, but lost on the way back ('lostAnswer' outage: a proxy drops it). */
function lostResponse(): WebhookResponse {
	const events = new EventEmitter();
	let sent = false;
	let statusCode = 200;
	const finish = () => {
		if (!sent) {
			sent = true;
			events.emit('finish');
		}
		return response;
	};
	const response: WebhookResponse = {
		status: (code) => ((statusCode = code), response),
		send: finish,
		json: finish,
		end: finish,
		setHeader: () => response,
		once: (event, listener) => (events.once(event, listener), response),
		get statusCode() {
			return statusCode;
		},
		get headersSent() {
			return sent;
		},
		get finished() {
			return sent;
		},
	};
	return response;
}

function expressResponse(res: ServerResponse): WebhookResponse {
	const response: WebhookResponse = {
		status(code) {
			res.statusCode = code;
			return response;
		},
		send(body) {
			if (!res.headersSent && body !== undefined && !res.hasHeader('content-type')) {
				res.setHeader('Content-Type', typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream');
			}
			res.end(body);
			return response;
		},
		json(body) {
			if (!res.headersSent) res.setHeader('Content-Type', 'application/json; charset=utf-8');
			res.end(JSON.stringify(body));
			return response;
		},
		end() {
			res.end();
			return response;
		},
		setHeader(name, value) {
			res.setHeader(name, value);
			return response;
		},
		once(event, listener) {
			res.once(event, listener);
			return response;
		},
		get statusCode() {
			return res.statusCode;
		},
		get headersSent() {
			return res.headersSent;
		},
		get finished() {
			return res.writableEnded;
		},
	};
	return response;
}

export interface ReceivedExecution {
	kind: WebhookKind;
	/** What the trigger node passed on in the execution (its output items). */
	items: INodeExecutionData[];
}

export interface ReceiverAnswer {
	kind: WebhookKind | 'unknown';
	/** HTTP status answered; undefined when the connection was dropped ("n8n is down"). */
	status?: number;
	/** Whether the node's webhook() ran for this request. */
	handled: boolean;
}

/** How the receiver misbehaves for its next requests, before it "comes back". */
export type Outage =
	/** n8n is down: the connection is dropped without an answer. */
	| { mode: 'down'; requests: number }
	/** A proxy answers for n8n (e.g. 503) without reaching it. */
	| { mode: 'status'; requests: number; status: number }
	/** n8n runs the node (and starts the workflow) but its 2xx never reaches the Service. */
	| { mode: 'lostAnswer'; requests: number; status: number }
	/** n8n runs webhook() but cannot store the execution (e.g. its database is locked): it answers 500. */
	| { mode: 'executionNotStored'; requests: number };

export interface TriggerReceiver {
	/** https://127.0.0.1:<port>: pass it as `publicUrl` to the harness. */
	origin: string;
	/** Executions the deliveries started, in the order they finished (see `drained`). */
	executions: ReceivedExecution[];
	answers: ReceiverAnswer[];
	/** Errors webhook() or an execution threw (n8n answers the first kind with 500). */
	errors: Error[];
	outage(outage: Outage): void;
	/** Whether n8n fills req.rawBody before calling the node (it normally does). */
	fillRawBody: boolean;
	/** How long each execution waits before it runs, as a busy n8n would (default 0). */
	executionDelayMs: number;
	/** Resolves once every execution started so far has finished. */
	drained(): Promise<void>;
	close(): Promise<void>;
}

/**
 * An https server standing in for n8n's webhook server: routes /webhook/… and /webhook-test/… to
 * the harness and answers as n8n does for responseMode "onReceived".
 */
export async function startTriggerReceiver(
	tls: { key: string; cert: string },
	harness: () => TriggerHarness,
): Promise<TriggerReceiver> {
	const executions: ReceivedExecution[] = [];
	const answers: ReceiverAnswer[] = [];
	const errors: Error[] = [];
	let outage: Outage | undefined;
	const sockets = new Set<Socket>();
	const running = new Set<Promise<void>>();

	const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
		void handle(req, res);
	});
	const receiver: TriggerReceiver = {
		origin: '',
		executions,
		answers,
		errors,
		fillRawBody: true,
		executionDelayMs: 0,
		outage(next) {
			outage = next.requests > 0 ? { ...next } : undefined;
		},
		async drained() {
			while (running.size > 0) await Promise.all([...running]);
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				for (const socket of sockets) socket.destroy();
			}),
	};

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const path = new URL(req.url ?? '/', 'https://receiver').pathname;
		const current = harness();
		const kind: WebhookKind | undefined =
			path === `/webhook/${current.webhookPath()}` ? 'production' : path === `/webhook-test/${current.webhookPath()}` ? 'test' : undefined;
		const active = outage;
		if (active && --active.requests <= 0) outage = undefined;
		if (active?.mode === 'down') {
			answers.push({ kind: kind ?? 'unknown', handled: false });
			req.socket.destroy();
			return;
		}
		if (active?.mode === 'status') {
			answers.push({ kind: kind ?? 'unknown', status: active.status, handled: false });
			req.resume();
			res.writeHead(active.status, { 'Content-Type': 'text/plain' }).end('Service Unavailable');
			return;
		}
		if (req.method !== 'POST' || kind === undefined) {
			answers.push({ kind: kind ?? 'unknown', status: 404, handled: false });
			req.resume();
			res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"message":"The requested webhook is not registered."}');
			return;
		}

		const request = expressRequest(req);
		// A proxy that loses n8n's answer: whatever n8n or the node writes never reaches the Service.
		const response = active?.mode === 'lostAnswer' ? lostResponse() : expressResponse(res);
		if (receiver.fillRawBody) {
			// As n8n's webhook helpers: read the raw body, then parse JSON into req.body for nodes that want it.
			await request.readRawBody();
			try {
				request.body = JSON.parse(request.rawBody.toString('utf8'));
			} catch {
				request.body = {};
			}
		}
		let result: IWebhookResponseData;
		try {
			result = await current.deliver(request, response, kind);
		} catch (error) {
			errors.push(error as Error);
			answers.push({ kind, status: 500, handled: true });
			if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
			res.end('{"message":"Error in workflow"}');
			return;
		}
		const startsExecution = result.workflowData !== undefined;
		const run = () => {
			const items = result.workflowData![0] ?? [];
			const execution = (async () => {
				if (receiver.executionDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, receiver.executionDelayMs));
				executions.push({ kind, items: await current.execute(items, kind) });
			})()
				.catch((error: Error) => {
					errors.push(error);
				})
				.finally(() => running.delete(execution));
			running.add(execution);
		};
		if (result.noWebhookResponse === true) {
			// The node answered itself; n8n then tries to store the execution it returned, and when it
			// cannot, the execution is lost although the sender was told it was received.
			answers.push({ kind, status: active?.mode === 'lostAnswer' ? active.status : res.statusCode, handled: true });
			if (!res.writableEnded) res.end();
			if (startsExecution && active?.mode !== 'executionNotStored') run();
			return;
		}
		if (startsExecution && active?.mode === 'executionNotStored') {
			answers.push({ kind, status: 500, handled: true });
			res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"message":"There was a problem executing the workflow"}');
			return;
		}
		// n8n answers once the execution is stored, then runs it.
		const data = startsExecution
			? { message: 'Workflow was started' }
			: (result.webhookResponse ?? { message: 'Webhook call received' });
		response.status(200).json(data);
		if (active?.mode === 'lostAnswer') {
			answers.push({ kind, status: active.status, handled: true });
			if (!res.headersSent) res.writeHead(active.status, { 'Content-Type': 'text/plain' }).end('Bad Gateway');
		} else {
			answers.push({ kind, status: 200, handled: true });
		}
		if (startsExecution) run();
	}

	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = server.address();
	receiver.origin = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
	return receiver;
}

/** POSTs to the receiver as a sender would, trusting `ca`. */
export function postDelivery(
	url: string,
	options: { headers: Record<string, string>; body: Buffer | string; ca: string },
): Promise<{ status: number; body: string }> {
	const body = Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
	return new Promise((resolve, reject) => {
		const req = request(url, {
			method: 'POST',
			ca: options.ca,
			agent: false,
			headers: { 'Content-Type': 'application/json', 'Content-Length': body.length, ...options.headers },
		});
		req.on('response', (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
			res.on('error', reject);
		});
		req.on('error', reject);
		req.end(body);
	});
}

const run = promisify(execFile);
let receiverTlsCache: Promise<{ key: string; cert: string; ca: string }> | undefined;

/**
 * A CA of the test's own and a receiver certificate it signed (SAN 127.0.0.1), so the sandbox
 * reaches the receiver only because the test passes the CA in `trustedCas`.
 */
export function receiverTls(): Promise<{ key: string; cert: string; ca: string }> {
	receiverTlsCache ??= (async () => {
		const dir = await mkdtemp(join(tmpdir(), 'trigger-receiver-tls-'));
		try {
			const file = (name: string) => join(dir, name);
			const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
			await run('openssl', [
				'req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '2',
				'-subj', '/CN=Service Trigger Test Receiver CA',
				'-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
			]);
			await run('openssl', [
				'req', '-x509', ...ec, '-keyout', file('leaf.key'), '-out', file('leaf.crt'), '-days', '2',
				'-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-subj', '/CN=n8n test receiver',
				'-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-addext', 'basicConstraints=critical,CA:FALSE',
				'-addext', 'keyUsage=critical,digitalSignature', '-addext', 'extendedKeyUsage=serverAuth',
			]);
			return {
				key: await readFile(file('leaf.key'), 'utf8'),
				cert: await readFile(file('leaf.crt'), 'utf8'),
				ca: await readFile(file('ca.crt'), 'utf8'),
			};
		} finally {
			await rm(dir, { recursive: true, force: true });
		}
	})();
	return receiverTlsCache;
}

export interface LogLine {
	level: 'error' | 'warn' | 'info' | 'debug';
	message: string;
	meta?: unknown;
}

/** Records what nodes log through `this.logger` (n8n-core's Logger from the DI container). */
export function captureLogs(): { lines: LogLine[]; restore(): void } {
	const original = Container.get(Logger);
	const lines: LogLine[] = [];
	const record = (level: LogLine['level']) => (message: string, meta?: unknown) => {
		lines.push({ level, message, meta });
	};
	const recorder = {
		error: record('error'),
		warn: record('warn'),
		info: record('info'),
		debug: record('debug'),
		scoped: () => recorder,
	};
	Container.set(Logger, recorder as unknown as Logger);
	return { lines, restore: () => Container.set(Logger, original) };
}
