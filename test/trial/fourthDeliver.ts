// Signed webhook deliveries of the fourth Service (section 5.4 and 6), one attempt each: no 24-hour retry here.
import { createHmac, randomBytes } from 'node:crypto';
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';

import type { WebhookEndpoint } from './fourthWrites';

export const SIGNATURE_HEADER = 'Service-Signature';

export interface EventBody {
	event_type: string;
	alert_id: string;
	ids: Record<string, string>;
	severity: string;
	occurred_at: string;
}

/** Service-Signature: t=<unix seconds>, v1=<base64 HMAC-SHA256 over "t.body" keyed by the base64-decoded secret>. */
export function signatureHeader(secret: string, body: Buffer, unixSeconds: number): string {
	const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
	const mac = createHmac('sha256', key).update(`${unixSeconds}.`).update(body).digest('base64');
	return `t=${unixSeconds}, v1=${mac}`;
}

export function eventBody(eventType: string, ids: Record<string, string>, severity: string, now: Date): EventBody {
	return { event_type: eventType, alert_id: `alr_${randomBytes(8).toString('hex')}`, ids, severity, occurred_at: now.toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

/** POSTs the event to every endpoint subscribed to its type; answers each endpoint's status (0 when unreachable). */
export async function deliver(endpoints: WebhookEndpoint[], event: EventBody, now: Date, ca: string | undefined): Promise<Array<{ endpoint_id: string; status: number }>> {
	const body = Buffer.from(JSON.stringify(event));
	const targets = endpoints.filter((endpoint) => endpoint.eventTypes.includes(event.event_type));
	return await Promise.all(targets.map(async (endpoint) => {
		const headers = {
			'Content-Type': 'application/json',
			'Content-Length': String(body.length),
			'User-Agent': 'fourth-service-webhooks/1',
			[SIGNATURE_HEADER]: signatureHeader(endpoint.secret, body, Math.floor(now.getTime() / 1000)),
		};
		const status = await new Promise<number>((resolve) => {
			const req = request(endpoint.endpointUrl, { method: 'POST', headers, ...(ca ? { ca: [...rootCertificates, ca] } : {}), timeout: 10_000 }, (res) => {
				res.resume();
				resolve(res.statusCode ?? 0);
			});
			req.on('timeout', () => req.destroy());
			req.on('error', () => resolve(0));
			req.end(body);
		});
		return { endpoint_id: endpoint.endpointId, status };
	}));
}
