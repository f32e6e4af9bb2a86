/**
 * A local stand-in for the part of Stripe's API the Stripe Trigger calls on activation and
 * deactivation (n8n-nodes-base StripeTrigger.node: GET/POST/DELETE /v1/webhook_endpoints), served as
 * https://api.stripe.com with a certificate for that name from a CA of its own. Each endpoint it
 * creates gets a secret of its own, handed out once, which the bench signs deliveries with.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { certificates } from '../../test/tls/certificates';
import { listenHttps, type LocalHttpsServer } from '../../test/tls/httpsServer';

export const STRIPE_API_HOST = 'api.stripe.com';

export interface StripeEndpoint {
	id: string;
	url: string;
	enabledEvents: string[];
	secret: string;
	description?: string;
	apiVersion?: string;
	deleted: boolean;
}

export interface StripeRequest {
	method: string;
	path: string;
	/** Whether it carried the secret key the stand-in was given, as Bearer. */
	authorized: boolean;
	status: number;
}

export interface StripeStandIn {
	port: number;
	/** PEM of the CA that signed the api.stripe.com certificate: n8n must trust it. */
	ca: string;
	/** The secret key the stripeApi credential must hold. */
	secretKey: string;
	endpoints(): StripeEndpoint[];
	requests(): StripeRequest[];
	close(): Promise<void>;
}

export async function startStripeStandIn(): Promise<StripeStandIn> {
	const tls = await certificates('bench Stripe stand-in CA', { api: { commonName: STRIPE_API_HOST, dnsNames: [STRIPE_API_HOST] } });
	const secretKey = `sk_test_${randomBytes(12).toString('hex')}`;
	const endpoints = new Map<string, StripeEndpoint>();
	const log: StripeRequest[] = [];

	const handle = async (req: IncomingMessage, res: ServerResponse) => {
		const body = await readBody(req);
		const path = (req.url ?? '').split('?')[0];
		const authorized = req.headers.authorization === `Bearer ${secretKey}`;
		const answer = (status: number, json: unknown) => {
			log.push({ method: req.method ?? '', path, authorized, status });
			res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
		};
		const error = (status: number, code: string, message: string) =>
			answer(status, { error: { type: 'invalid_request_error', code, message } });
		if (!authorized) return error(401, 'api_key_invalid', 'Invalid API Key provided.');
		const match = /^\/v1\/webhook_endpoints(?:\/([^/]+))?$/.exec(path);
		if (!match) return error(404, 'resource_missing', `Unrecognized request URL (${req.method}: ${path}).`);
		const [, id] = match;
		if (!id && req.method === 'POST') {
			const form = new URLSearchParams(body.toString('utf8'));
			// enabled_events as form arrays: enabled_events[0]=… or enabled_events[]=…
			const events = [...form.entries()].filter(([name]) => /^enabled_events(\[\d*\])?$/.test(name)).map(([, value]) => value);
			const url = form.get('url');
			if (!url || events.length === 0) return error(400, 'parameter_missing', 'url and enabled_events are required.');
			const endpoint: StripeEndpoint = {
				id: `we_${randomBytes(12).toString('hex')}`,
				url,
				enabledEvents: events,
				secret: `whsec_${randomBytes(24).toString('base64url')}`,
				description: form.get('description') ?? undefined,
				apiVersion: form.get('api_version') ?? undefined,
				deleted: false,
			};
			endpoints.set(endpoint.id, endpoint);
			return answer(200, { ...view(endpoint), secret: endpoint.secret });
		}
		const endpoint = id ? endpoints.get(id) : undefined;
		if (!endpoint || endpoint.deleted) return error(404, 'resource_missing', `No such webhook endpoint: '${id}'`);
		if (req.method === 'GET') return answer(200, view(endpoint));
		if (req.method === 'DELETE') {
			endpoint.deleted = true;
			return answer(200, { id: endpoint.id, object: 'webhook_endpoint', deleted: true });
		}
		return error(405, 'method_not_allowed', `${req.method} is not allowed here.`);
	};

	const server: LocalHttpsServer = await listenHttps(tls.leaves.api, (req, res) => {
		handle(req, res).catch(() => res.writeHead(500).end());
	});
	return {
		port: server.port,
		ca: tls.ca,
		secretKey,
		endpoints: () => [...endpoints.values()],
		requests: () => [...log],
		close: () => server.close(),
	};
}

/** An endpoint as Stripe's API shows it after creation: without the secret. */
function view(endpoint: StripeEndpoint) {
	return {
		id: endpoint.id,
		object: 'webhook_endpoint',
		url: endpoint.url,
		enabled_events: endpoint.enabledEvents,
		status: 'enabled',
		description: endpoint.description ?? null,
		api_version: endpoint.apiVersion ?? null,
		livemode: false,
	};
}

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}
