import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { LocalhostTls } from '../tls';

/**
 * What an operator puts in front of n8n (nginx, a cloud load balancer): an HTTPS reverse proxy that
 * passes production webhook calls (/webhook/…, /webhook-waiting/…) unchanged to the webhook processes
 * and everything else (editor, API, test webhooks) to main, as n8n's hosting guide routes them.
 * Requests to one URL take turns across the webhook processes, so two copies of one alert land on
 * different processes (the case that matters for duplicates).
 */
export interface Balancer {
	/** https://localhost:<port> (no trailing slash): the base of the webhook URLs the Service calls. */
	url: string;
	port: number;
	/** Which webhook process (index into the backends, -1 for main) each request went to, in order. */
	readonly routed: Array<{ path: string; backend: number; status?: number }>;
	/** The webhook processes' and main's own https://localhost:<port>. */
	setBackends(webhookUrls: string[], mainUrl: string): void;
	close(): Promise<void>;
}

export async function startBalancer(tls: LocalhostTls, port = 0): Promise<Balancer> {
	let backends: string[] = [];
	let main: string | undefined;
	const turns = new Map<string, number>();
	const routed: Balancer['routed'] = [];
	const server = createServer({ key: await readFile(tls.keyPath), cert: await readFile(tls.certPath) }, (req, res) => {
		const path = req.url ?? '/';
		const production = /^\/(webhook|webhook-waiting)\//.test(path);
		if (production ? backends.length === 0 : !main) {
			res.writeHead(502).end('not started');
			return;
		}
		const turn = turns.get(path) ?? 0;
		turns.set(path, turn + 1);
		const backend = production ? turn % backends.length : -1;
		const entry: Balancer['routed'][number] = { path, backend };
		routed.push(entry);
		const upstream = request(
			`${backend === -1 ? main : backends[backend]}${path}`,
			{ method: req.method, headers: req.headers, ca: tls.ca },
			(answer) => {
				entry.status = answer.statusCode;
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', () => {
			if (!res.headersSent) res.writeHead(502);
			res.end();
		});
		req.pipe(upstream);
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', resolve);
	});
	const { port: bound } = server.address() as AddressInfo;
	return {
		url: `https://localhost:${bound}`,
		port: bound,
		routed,
		setBackends: (webhookUrls, mainUrl) => {
			backends = [...webhookUrls];
			main = mainUrl;
		},
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
