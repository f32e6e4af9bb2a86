import { request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';

export interface HttpsResponse {
	status: number;
	headers: IncomingHttpHeaders;
	body: string;
	/** The body's exact bytes (for files: `body` is the UTF-8 reading). */
	bytes: Buffer;
	/** The body parsed as JSON; throws when it is not JSON. */
	json<T = unknown>(): T;
}

export interface HttpsRequestOptions {
	method?: string;
	headers?: Record<string, string>;
	/** A string or Buffer is sent as is; anything else as JSON. */
	body?: unknown;
	/** PEM of the CA that signed the server's certificate: trusted on top of the defaults, no check is switched off. */
	ca: string | string[];
	timeoutMs?: number;
}

/** One HTTPS request with node:https, which (unlike global fetch) takes a CA per request. */
export function httpsRequest(url: string, options: HttpsRequestOptions): Promise<HttpsResponse> {
	const headers: Record<string, string> = { ...options.headers };
	let payload: Buffer | undefined;
	if (options.body !== undefined) {
		if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
			payload = Buffer.from(options.body);
		} else {
			payload = Buffer.from(JSON.stringify(options.body));
			headers['content-type'] ??= 'application/json';
		}
		headers['content-length'] = String(payload.length);
	}
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{
				method: options.method ?? 'GET',
				headers,
				ca: options.ca,
				timeout: options.timeoutMs ?? 30_000,
				// No keep-alive pool: nothing stays open after a test, and a restarted n8n gets fresh connections.
				agent: false,
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (chunk: Buffer) => chunks.push(chunk));
				res.on('error', reject);
				res.on('end', () => {
					const bytes = Buffer.concat(chunks);
					const body = bytes.toString('utf8');
					resolve({
						status: res.statusCode ?? 0,
						headers: res.headers,
						body,
						bytes,
						json: <T>() => JSON.parse(body) as T,
					});
				});
			},
		);
		req.on('timeout', () => req.destroy(new Error(`${options.method ?? 'GET'} ${url} timed out`)));
		req.on('error', reject);
		req.end(payload);
	});
}
