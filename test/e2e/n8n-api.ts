import { httpsRequest, type HttpsResponse } from './https-request';
import type { ExecuteResult } from './n8n-cli';
import { waitFor } from './wait-for';

/** An execution as n8n's public API lists it (`data` only with includeData=true). */
export interface Execution {
	id: string;
	workflowId: string;
	mode: string;
	status: string;
	finished: boolean;
	startedAt: string;
	stoppedAt: string | null;
	data?: ExecuteResult['data'];
}

export interface WebhookCall {
	method?: string;
	body?: unknown;
	headers?: Record<string, string>;
	/** How long a 404 (webhook not registered yet) is retried. Default 30 s. */
	timeoutMs?: number;
}

/**
 * n8n's public REST API (/api/v1, X-N8N-API-KEY) and its webhooks, over HTTPS trusting n8n's CA.
 * Activation through the API takes effect at once in the running n8n, unlike `n8n publish:workflow`,
 * which writes the database and says n8n must be restarted.
 */
export class N8nApi {
	constructor(
		private readonly url: string,
		private readonly ca: string,
		private readonly apiKey: string,
	) {}

	async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await httpsRequest(`${this.url}/api/v1${path}`, {
			method,
			ca: this.ca,
			headers: { 'x-n8n-api-key': this.apiKey, accept: 'application/json' },
			body,
		});
		if (response.status < 200 || response.status > 299) {
			throw new Error(`${method} /api/v1${path}: ${response.status} ${response.body.slice(0, 3000)}`);
		}
		return (response.body ? response.json() : undefined) as T;
	}

	activateWorkflow(id: string): Promise<unknown> {
		return this.request('POST', `/workflows/${encodeURIComponent(id)}/activate`);
	}

	deactivateWorkflow(id: string): Promise<unknown> {
		return this.request('POST', `/workflows/${encodeURIComponent(id)}/deactivate`);
	}

	/** Executions of one workflow, newest first, with their run data by default. */
	async executions(workflowId: string, includeData = true): Promise<Execution[]> {
		const all: Execution[] = [];
		let cursor: string | null = null;
		do {
			const query = new URLSearchParams({ workflowId, includeData: String(includeData), limit: '250' });
			if (cursor) query.set('cursor', cursor);
			const page: { data: Execution[]; nextCursor: string | null } = await this.request('GET', `/executions?${query}`);
			all.push(...page.data);
			cursor = page.nextCursor;
		} while (cursor);
		return all;
	}

	/** Waits until the workflow has at least `count` executions and none of them is still running. */
	waitForExecutions(workflowId: string, count: number, timeoutMs = 30_000): Promise<Execution[]> {
		return waitFor(
			async () => {
				const executions = await this.executions(workflowId);
				const done = executions.every((execution) => execution.stoppedAt !== null);
				return executions.length >= count && done ? executions : undefined;
			},
			{ what: `${count} finished execution(s) of workflow ${workflowId}`, timeoutMs },
		);
	}

	/** The production URL of a webhook path. */
	webhookUrl(path: string): string {
		return `${this.url}/webhook/${path}`;
	}

	/**
	 * Waits until n8n serves the production webhook `path` for `method`, without running it: a CORS
	 * preflight answers 204 listing the methods once the webhook is registered, 404 before.
	 */
	waitForWebhook(path: string, method = 'POST', timeoutMs = 30_000): Promise<void> {
		return waitFor(
			async () => {
				const response = await httpsRequest(this.webhookUrl(path), {
					method: 'OPTIONS',
					ca: this.ca,
					headers: { origin: this.url, 'access-control-request-method': method },
				});
				const methods = String(response.headers['access-control-allow-methods'] ?? '');
				return response.status === 204 && methods.split(/,\s*/).includes(method) ? true : undefined;
			},
			{ what: `webhook ${method} /webhook/${path} to be registered`, timeoutMs },
		).then(() => undefined);
	}

	/**
	 * Calls a production webhook, retrying while it answers 404 (not registered yet: a freshly
	 * activated workflow can take a few seconds). A 404 starts no execution, so retrying is safe.
	 */
	callWebhook(path: string, call: WebhookCall = {}): Promise<HttpsResponse> {
		return waitFor(
			async () => {
				const response = await httpsRequest(this.webhookUrl(path), {
					method: call.method ?? 'POST',
					ca: this.ca,
					headers: call.headers,
					body: call.body,
				});
				return response.status === 404 ? undefined : response;
			},
			{ what: `webhook /webhook/${path} to answer other than 404`, timeoutMs: call.timeoutMs ?? 30_000 },
		);
	}
}
