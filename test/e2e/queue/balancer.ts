import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { LocalhostTls } from '../tls';

/**
 * What an operator puts in front of n8n's webhook processes (nginx, a cloud load balancer): an HTTPS
 * reverse proxy that passes each request unchanged to the next webhook process. Requests to one URL
 * take turns across the processes, so two copies of one alert land on different processes (the
 * case that matters for duplicates).
 */
export interface Balancer {
	/** https://localhost:<port> (no trailing slash): the base of the webhook URLs the Service calls. */
	url: string;
	port: number;
	/** Which process (index into the backends) each request went to, in order. */
	readonly routed: Array<{ path: string; backend: number; status?: number }>;
	setBackends(urls: string[]): void;
	close(): Promise<void>;
}

export async function startBalancer(tls: LocalhostTls, port = 0): Promise<Balancer> {
	let backends: string[] = [];
	const turns = new Map<string, number>();
	const routed: Balancer['routed'] = [];
	const server = createServer({ key: await readFile(tls.keyPath), cert: await readFile(tls.certPath) }, (req, res) => {
		const path = req.url ?? '/';
		if (backends.length === 0) {
			res.writeHead(502).end('no webhook process');
			return;
		}
		const turn = turns.get(path) ?? 0;
		turns.set(path, turn + 1);
		const backend = turn % backends.length;
		const entry: Balancer['routed'][number] = { path, backend };
		routed.push(entry);
		const upstream = request(
			`${backends[backend]}${path}`,
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
		setBackends: (urls) => {
			backends = [...urls];
		},
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
