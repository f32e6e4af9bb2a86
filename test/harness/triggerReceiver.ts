import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'node:https';

import type { INodeExecutionData, IWebhookResponseData } from 'n8n-workflow';

import { certificates, type TlsMaterial } from '../tls/certificates';
import { listenHttps } from '../tls/httpsServer';
import { expressRequest, expressResponse, type WebhookResponse } from './expressAdapters';
import type { TriggerHarness, WebhookKind } from './triggerHarness';

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
	const running = new Set<Promise<void>>();

	const https = await listenHttps(tls, (req, res) => void handle(req, res));
	const receiver: TriggerReceiver = {
		origin: https.origin,
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
		close: () => https.close(),
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

/**
 * A CA of the test's own and a receiver certificate it signed (SAN 127.0.0.1), so the sandbox
 * reaches the receiver only because the test passes the CA in `trustedCas`.
 */
export async function receiverTls(): Promise<TlsMaterial> {
	const { leaves } = await certificates('Service Trigger Test Receiver CA', { receiver: 'n8n test receiver' });
	return leaves.receiver;
}
