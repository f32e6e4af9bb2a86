import type { IncomingMessage, ServerResponse } from 'node:http';

// What n8n's express server hands a node's webhook(), made from node's own request and response.

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

/** node's request as express hands it on: body readable once as raw bytes, query parsed. */
export function expressRequest(req: IncomingMessage): WebhookRequest {
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

/** node's response behind express's answering methods. */
export function expressResponse(res: ServerResponse): WebhookResponse {
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
