import type { IncomingHttpHeaders } from 'node:http';
import { Agent, request } from 'node:https';

import { spokenPath, type Dialect } from './dialect';
import type { ReaderKey, Sandbox } from './index';

export interface Reply {
	status: number;
	headers: IncomingHttpHeaders;
	body: Buffer;
	text: string;
	/** Whether the request went over a kept-alive connection. */
	reusedSocket: boolean;
	json<T = any>(): T;
}

export interface RequestOptions {
	method?: string;
	/** Which reader's token to send; `null` sends none; a string is sent as given. */
	as?: ReaderKey | null | { raw: string };
	body?: string | Buffer | object;
	headers?: Record<string, string>;
}

/**
 * A test client speaking real HTTPS to the sandbox, trusting only its CA, with keep-alive. The
 * sandbox is read at the first request, so a client can be made before its sandbox has started.
 */
export class SandboxClient {
	private agent: Agent | undefined;

	constructor(
		private readonly sandbox: Pick<Sandbox, 'baseUrl' | 'ca'> & { tokens: Partial<Record<ReaderKey, string>>; dialect?: Dialect },
	) {}

	/** Paths are written with the default dialect's query names and sent as the sandbox's dialect names them. */
	request(path: string, options: RequestOptions = {}): Promise<Reply> {
		const headers: Record<string, string | number> = { ...options.headers };
		const as = options.as === undefined ? 'reader' : options.as;
		if (typeof as === 'string') {
			const token = this.sandbox.tokens[as];
			if (!token) throw new Error(`The test client has no token for reader ${as}.`);
			// As the sandbox's dialect reads the token (Bearer, another header, another scheme).
			const signIn = this.sandbox.dialect?.signIn;
			if (signIn?.form === 'header') headers[signIn.header] = token;
			else headers.Authorization = `${signIn?.form === 'scheme' ? signIn.scheme : 'Bearer'} ${token}`;
		}
		else if (as) headers.Authorization = as.raw;
		let body: Buffer | undefined;
		if (options.body !== undefined) {
			if (Buffer.isBuffer(options.body) || typeof options.body === 'string') {
				body = Buffer.from(options.body);
			} else {
				body = Buffer.from(JSON.stringify(options.body));
				headers['Content-Type'] ??= 'application/json';
			}
			headers['Content-Length'] = body.length;
		}
		return new Promise((resolve, reject) => {
			this.agent ??= new Agent({ ca: this.sandbox.ca, keepAlive: true, maxSockets: 4 });
			const spoken = this.sandbox.dialect ? spokenPath(this.sandbox.dialect, path) : path;
			const req = request(`${this.sandbox.baseUrl}${spoken}`, { method: options.method ?? 'GET', headers, agent: this.agent });
			req.on('response', (res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('error', reject);
				res.on('end', () => {
					const data = Buffer.concat(chunks);
					resolve({
						status: res.statusCode ?? 0,
						headers: res.headers,
						body: data,
						text: data.toString('utf8'),
						reusedSocket: req.reusedSocket,
						json: () => JSON.parse(data.toString('utf8')),
					});
				});
			});
			req.on('error', reject);
			req.end(body);
		});
	}

	/** Follows X-Service-Next-Cursor from the first page to the last; returns every page. */
	async allPages(path: string, options: RequestOptions = {}): Promise<Reply[]> {
		const pages: Reply[] = [];
		let cursor: string | undefined;
		do {
			const separator = path.includes('?') ? '&' : '?';
			// As the dialect reads the cursor: in the query, or in its header.
			const cursorIn = this.sandbox.dialect?.cursorIn;
			const reply = cursor && cursorIn?.in === 'header'
				? await this.request(path, { ...options, headers: { ...options.headers, [cursorIn.header]: cursor } })
				: await this.request(cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path, options);
			// 204: a page with nothing in it, as a dialect may answer an empty export.
			if (reply.status !== 200 && reply.status !== 204) throw new Error(`Page ${pages.length + 1} of ${path} answered ${reply.status}: ${reply.text}`);
			pages.push(reply);
			cursor = reply.headers['x-service-next-cursor'] as string | undefined;
		} while (cursor);
		return pages;
	}

	close(): void {
		this.agent?.destroy();
	}
}
