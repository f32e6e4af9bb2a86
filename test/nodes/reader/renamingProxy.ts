import { Agent, request } from 'node:https';

import type { Sandbox } from '../../sandbox';
import { listenHttps } from '../../tls/httpsServer';

export interface RenamingProxy {
	/** https://127.0.0.1:<port>, served with a certificate from the sandbox's CA. */
	baseUrl: string;
	/** Query of every request the proxy received, before renaming. */
	received: Array<Record<string, string>>;
	close(): Promise<void>;
}

/**
 * An HTTPS proxy in front of the sandbox that renames one query parameter: stands in for a Service
 * whose cursor parameter has another name (the sandbox itself reads only `cursor`). Everything else,
 * headers and body included, passes through unchanged.
 */
export async function startRenamingProxy(sandbox: Sandbox, from: string, to: string): Promise<RenamingProxy> {
	const agent = new Agent({ ca: sandbox.ca, keepAlive: true });
	const received: RenamingProxy['received'] = [];
	const https = await listenHttps(sandbox.receiverTls, (req, res) => {
		const url = new URL(req.url ?? '/', sandbox.baseUrl);
		received.push(Object.fromEntries(url.searchParams));
		const value = url.searchParams.get(from);
		if (value !== null) {
			url.searchParams.delete(from);
			url.searchParams.set(to, value);
		}
		const upstream = request(
			url,
			{ method: req.method, headers: { ...req.headers, host: new URL(sandbox.baseUrl).host }, agent },
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', () => res.destroy());
		req.pipe(upstream);
	});
	return {
		baseUrl: https.origin,
		received,
		close: () => {
			agent.destroy();
			return https.close();
		},
	};
}
