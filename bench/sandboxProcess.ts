/**
 * The sandbox in a process of its own, reached over its HTTP control surface. The trigger benchmark uses it
 * so that serving portfolio pages (Add Company Details) does not share the event loop that times deliveries.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { httpsRequest } from '../test/e2e/https-request';
import { startSandbox, type ReaderKey, type SandboxOptions } from '../test/sandbox';
import type { ReceivedRequest, WebhookEndpoint } from '../test/sandbox/types';

export interface BenchSandbox {
	baseUrl: string;
	ca: string;
	tokens: Record<ReaderKey, string>;
	control: {
		webhookEndpoints(): Promise<WebhookEndpoint[]>;
		requests(filter?: { method?: string; path?: string }): Promise<ReceivedRequest[]>;
		clearRequests(): Promise<void>;
	};
	close(): Promise<void>;
}

/** `inProcess` keeps the method of runs before 2026-11-25 (the sandbox inside the benchmark's process), for comparison. */
export async function startBenchSandbox(options: SandboxOptions, inProcess: boolean): Promise<BenchSandbox> {
	if (!inProcess) return startSandboxProcess(options);
	const sandbox = await startSandbox(options);
	return {
		baseUrl: sandbox.baseUrl,
		ca: sandbox.ca,
		tokens: sandbox.tokens,
		control: {
			webhookEndpoints: async () => sandbox.control.webhookEndpoints(),
			requests: async (filter) => sandbox.control.requests(filter),
			clearRequests: async () => sandbox.control.clearRequests(),
		},
		close: () => sandbox.close(),
	};
}

async function startSandboxProcess(options: SandboxOptions): Promise<BenchSandbox> {
	// tsx runs the entry in TypeScript, under the benchmark's tsx or a test's jest alike.
	const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'sandboxServe.ts'), JSON.stringify(options)], {
		cwd: join(__dirname, '..'),
		stdio: ['pipe', 'pipe', 'inherit'],
	});
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const first = await new Promise<string>((resolve, reject) => {
		createInterface({ input: child.stdout! }).once('line', resolve);
		child.once('exit', (code) => reject(new Error(`The sandbox process exited (${code}) before it was ready.`)));
	});
	const { baseUrl, ca, tokens, controlToken } = JSON.parse(first) as { baseUrl: string; ca: string; tokens: Record<ReaderKey, string>; controlToken: string };
	const call = async <T>(method: string, ...args: unknown[]): Promise<T> => {
		const response = await httpsRequest(`${baseUrl}/__control/${method}`, {
			method: 'POST',
			ca,
			headers: { authorization: `Bearer ${controlToken}` },
			body: { args },
			timeoutMs: 60_000,
		});
		if (response.status !== 200) throw new Error(`Sandbox control ${method}: ${response.status} ${response.body.slice(0, 300)}`);
		return response.json<{ result: T }>().result;
	};
	return {
		baseUrl,
		ca,
		tokens,
		control: {
			webhookEndpoints: () => call<WebhookEndpoint[]>('webhookEndpoints'),
			requests: (filter) => call<ReceivedRequest[]>('requests', filter ?? {}),
			clearRequests: () => call<void>('clearRequests'),
		},
		async close() {
			child.stdin!.end();
			await exited;
		},
	};
}
