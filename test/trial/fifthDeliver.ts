// Signed webhook deliveries of the fifth Service: Service-Signature t=<ms>, v1=<base64url>, some gzip, retried.
import { createHmac } from 'node:crypto';
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import { gzipSync } from 'node:zlib';

import { bigJson } from './fifthWire';

export const SIGNATURE_HEADER = 'Service-Signature';

/** HMAC-SHA256 keyed by the hex-decoded secret over "<t ms>.<raw uncompressed body>", base64url without padding. */
export function signatureHeader(secretHex: string, body: Buffer, tMs: number): string {
	const mac = createHmac('sha256', Buffer.from(secretHex, 'hex')).update(`${tMs}.`).update(body).digest('base64url');
	return `t=${tMs}, v1=${mac}`;
}

export interface AlertBody { event_type: string; alert_id: bigint; ids: Record<string, string | bigint>; severity: string; occurred_at: string }

export interface DeliveryOptions {
	/** Gzip the body (Content-Encoding: gzip); the signature still covers the uncompressed JSON. */
	gzip?: boolean;
	/** Delays between attempts, ms (default [500, 1000, 2000]: the 24 h exponential schedule, shortened). */
	retryDelaysMs?: number[];
	/** A CA to trust besides the system's (a test receiver's). */
	ca?: string;
	now?: () => number;
}

export interface DeliveryOutcome { attempts: Array<{ status: number; gzip: boolean }>; delivered: boolean }

function post(url: string, headers: Record<string, string>, body: Buffer, ca?: string): Promise<number> {
	return new Promise((resolve) => {
		const req = request(url, { method: 'POST', headers, ...(ca ? { ca: [...rootCertificates, ca] } : {}), timeout: 10_000 }, (res) => {
			res.resume();
			resolve(res.statusCode ?? 0);
		});
		req.on('timeout', () => req.destroy());
		req.on('error', () => resolve(0));
		req.end(body);
	});
}

/** Delivers one alert to a URL, signed afresh at each attempt; retries on non-2xx or no answer. */
export async function deliverAlert(url: string, secretHex: string, alert: AlertBody, options: DeliveryOptions = {}): Promise<DeliveryOutcome> {
	const raw = Buffer.from(bigJson(alert));
	const delays = options.retryDelaysMs ?? [500, 1000, 2000];
	const now = options.now ?? Date.now;
	const attempts: DeliveryOutcome['attempts'] = [];
	for (let attempt = 0; attempt <= delays.length; attempt++) {
		if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, delays[attempt - 1]).unref());
		const gzip = options.gzip === true;
		const wire = gzip ? gzipSync(raw) : raw;
		const status = await post(url, {
			'Content-Type': 'application/json', 'Content-Length': String(wire.length), 'User-Agent': 'fifth-service-webhooks/1',
			...(gzip ? { 'Content-Encoding': 'gzip' } : {}), 'Service-Delivery-Attempt': String(attempt + 1),
			[SIGNATURE_HEADER]: signatureHeader(secretHex, raw, now()),
		}, wire, options.ca);
		attempts.push({ status, gzip });
		if (status >= 200 && status < 300) return { attempts, delivered: true };
	}
	return { attempts, delivered: false };
}
