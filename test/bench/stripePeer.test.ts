import { request as httpRequest } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

import { startStripePeer, type StripePeer } from '../../bench/stripe/peer';

/** One HTTPS request to https://api.stripe.com through the peer's CONNECT proxy, as n8n makes it behind HTTPS_PROXY. */
async function viaProxy(
	peer: StripePeer,
	method: string,
	path: string,
	options: { ca?: string; key?: string; form?: string } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
	const tunnel = await new Promise<Socket>((resolve, reject) => {
		const connect = httpRequest(peer.proxy.url, { method: 'CONNECT', path: 'api.stripe.com:443' });
		connect.on('connect', (res, raw) => (res.statusCode === 200 ? resolve(raw) : reject(new Error(`CONNECT answered ${res.statusCode}`))));
		connect.on('error', reject);
		connect.end();
	});
	const body = options.form ?? '';
	return await new Promise((resolve, reject) => {
		const req = httpsRequest(
			{
				host: 'api.stripe.com',
				method,
				path,
				agent: tunnelAgent(tunnel, options.ca),
				headers: {
					...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
					...(options.form !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
					'content-length': Buffer.byteLength(body),
				},
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (chunk: Buffer) => chunks.push(chunk));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
			},
		);
		req.on('error', reject);
		req.end(body);
	});
}

/** An agent whose one connection is TLS over the tunnel, checked against `ca` (none: Node's own list) and the name api.stripe.com. */
function tunnelAgent(tunnel: Socket, ca?: string): Agent {
	const agent = new Agent();
	agent.createConnection = () => tlsConnect({ socket: tunnel, servername: 'api.stripe.com', ...(ca ? { ca } : {}) });
	return agent;
}

describe('the Stripe peer of the bench: a Stripe API stand-in reached as api.stripe.com through a CONNECT proxy', () => {
	let peer: StripePeer;
	beforeAll(async () => {
		peer = await startStripePeer();
	});
	afterAll(() => peer?.close());

	test('creates, shows and deletes a webhook endpoint as the Stripe Trigger asks, handing out the secret once', async () => {
		const { ca, secretKey: key } = peer.standIn;
		const url = 'https://localhost:5678/webhook/7d3f5b72/webhook';
		const form = new URLSearchParams({ url, description: 'Created by n8n for workflow ID: w1', 'enabled_events[0]': '*' }).toString();
		const created = await viaProxy(peer, 'POST', '/v1/webhook_endpoints', { ca, key, form });
		expect(created.status).toBe(200);
		expect(created.json).toEqual(
			expect.objectContaining({ object: 'webhook_endpoint', url, enabled_events: ['*'], status: 'enabled', secret: expect.stringMatching(/^whsec_/) }),
		);
		const id = created.json.id as string;
		expect(peer.standIn.endpoints()).toEqual([expect.objectContaining({ id, url, secret: created.json.secret, deleted: false })]);

		const shown = await viaProxy(peer, 'GET', `/v1/webhook_endpoints/${id}`, { ca, key });
		expect(shown.status).toBe(200);
		expect(shown.json.id).toBe(id);
		expect(shown.json).not.toHaveProperty('secret');

		expect(await viaProxy(peer, 'DELETE', `/v1/webhook_endpoints/${id}`, { ca, key })).toEqual({
			status: 200,
			json: { id, object: 'webhook_endpoint', deleted: true },
		});
		// What the trigger's checkExists reads as "gone": 404 with resource_missing.
		const gone = await viaProxy(peer, 'GET', `/v1/webhook_endpoints/${id}`, { ca, key });
		expect(gone.status).toBe(404);
		expect(gone.json).toEqual({ error: expect.objectContaining({ code: 'resource_missing' }) });

		expect(peer.proxy.tunnels('api.stripe.com:443')).toHaveLength(4);
		expect(peer.standIn.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			'POST /v1/webhook_endpoints 200',
			`GET /v1/webhook_endpoints/${id} 200`,
			`DELETE /v1/webhook_endpoints/${id} 200`,
			`GET /v1/webhook_endpoints/${id} 404`,
		]);
	});

	test('refuses a request without the secret key, creating nothing', async () => {
		const before = peer.standIn.endpoints().length;
		const form = new URLSearchParams({ url: 'https://localhost/x', 'enabled_events[]': '*' }).toString();
		const refused = await viaProxy(peer, 'POST', '/v1/webhook_endpoints', { ca: peer.standIn.ca, key: 'sk_test_wrong', form });
		expect(refused.status).toBe(401);
		expect(peer.standIn.endpoints()).toHaveLength(before);
	});

	test('is trusted only through its own CA: a client that does not trust it fails the TLS handshake', async () => {
		await expect(viaProxy(peer, 'GET', '/v1/webhook_endpoints/we_x', { key: peer.standIn.secretKey })).rejects.toThrow(
			/unable to verify the first certificate|self-signed certificate in certificate chain|unable to get local issuer certificate/,
		);
	});

	test('the proxy tunnels nothing else off the machine', async () => {
		const refused = await new Promise<number>((resolve, reject) => {
			const connect = httpRequest(peer.proxy.url, { method: 'CONNECT', path: 'example.com:443' });
			connect.on('connect', (res, raw) => {
				raw.destroy();
				resolve(res.statusCode ?? 0);
			});
			connect.on('error', reject);
			connect.end();
		});
		expect(refused).toBe(403);
	});
});
