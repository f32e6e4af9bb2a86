import { Agent, request } from 'node:https';
import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { ServiceApi } from '../../credentials/ServiceApi.credentials';
import type { Probe, ProbeAnswer, ProbeRequest } from '../../nodes/shared/settingsCheck';
import { PROBE_LIMITS } from '../../nodes/shared/settingsCheck';

/**
 * A test transport for Check Settings: GET only, over node:https trusting the given CA (the sandbox's;
 * no TLS check off), the credential applied by its own `authenticate` with the request's `fields`
 * over the credential's for that request only, no redirects followed, the body read up to
 * PROBE_LIMITS.bodyBytes. It counts what it sent. Not the product's transport (the wiring's is).
 */
export interface CountingProbe {
	probe: Probe;
	/** Every request as asked, in order. */
	asked: ProbeRequest[];
	close(): void;
}

export function settingsCheckProbe(credentials: ICredentialDataDecryptedObject, ca: string): CountingProbe {
	const agent = new Agent({ ca, keepAlive: true, maxSockets: 2 });
	const asked: ProbeRequest[] = [];
	const authenticate = new ServiceApi().authenticate;
	const probe: Probe = async (asking) => {
		asked.push(asking);
		const fields = asking.fields ?? {};
		const credential: ICredentialDataDecryptedObject = { ...credentials, ...fields, ...(Object.keys(fields).some((name) => name !== 'baseUrl') ? { advancedSettings: true } : {}) };
		const baseUrl = String(credential.baseUrl).replace(/\/+$/, '');
		const url = new URL(asking.path.startsWith('https://') ? asking.path : `${baseUrl}${asking.path}`);
		for (const [name, value] of asking.query ?? []) url.searchParams.append(name, value);
		const options = await authenticate(credential, { url: url.toString(), method: 'GET', headers: { ...asking.headers } } as IHttpRequestOptions);
		const timeout = Math.min(asking.timeoutMs ?? PROBE_LIMITS.requestMs, PROBE_LIMITS.requestMs);
		return await new Promise<ProbeAnswer>((resolve, reject) => {
			const req = request(url, { method: 'GET', headers: options.headers as Record<string, string>, agent, timeout }, (res) => {
				const chunks: Buffer[] = [];
				let size = 0;
				let truncated = false;
				res.on('data', (chunk: Buffer) => {
					if (truncated) return;
					if (size + chunk.length > PROBE_LIMITS.bodyBytes) {
						chunks.push(chunk.subarray(0, PROBE_LIMITS.bodyBytes - size));
						truncated = true;
						res.destroy();
						finish();
						return;
					}
					size += chunk.length;
					chunks.push(chunk);
				});
				const finish = () => {
					const headers = new Map<string, string>();
					for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
					resolve({ status: res.statusCode ?? 0, headers, body: new Uint8Array(Buffer.concat(chunks)), truncated });
				};
				res.on('end', finish);
				res.on('error', reject);
			});
			req.on('timeout', () => req.destroy(new Error(`no answer within ${timeout} ms`)));
			req.on('error', reject);
			req.end();
		});
	};
	return { probe, asked, close: () => agent.destroy() };
}
