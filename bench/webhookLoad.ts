/**
 * Sends deliveries to one webhook URL over HTTPS with a fixed number in flight, timing each
 * from the request to the end of its answer. Keep-alive, as a delivering Service would.
 */
import { Agent, request } from 'node:https';

import type { Delivery } from './deliveries';

export interface Outcome {
	/** HTTP status; 0 when no answer came (then `error` says why). */
	status: number;
	ms: number;
	forged: boolean;
	error?: string;
}

export interface LoadResult {
	outcomes: Outcome[];
	wallMs: number;
}

export async function sendDeliveries(url: string, ca: string, deliveries: Delivery[], concurrency: number): Promise<LoadResult> {
	const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca });
	const outcomes: Outcome[] = new Array(deliveries.length);
	let next = 0;
	const started = process.hrtime.bigint();
	const worker = async () => {
		// Each worker takes the next delivery until none is left: the loop ends after deliveries.length takes.
		while (next < deliveries.length) {
			const index = next++;
			const delivery = deliveries[index];
			const sent = process.hrtime.bigint();
			const { status, error } = await post(url, agent, delivery);
			outcomes[index] = { status, ms: Number(process.hrtime.bigint() - sent) / 1e6, forged: delivery.forgery !== undefined, error };
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
	const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
	agent.destroy();
	return { outcomes, wallMs };
}

/** Status of the answer once its body has been read; 0 and the error's code when the request failed. */
function post(url: string, agent: Agent, delivery: Delivery): Promise<{ status: number; error?: string }> {
	return new Promise((resolve) => {
		const failed = (error: Error & { code?: string }) => resolve({ status: 0, error: error.code ?? error.message });
		const req = request(
			url,
			{ method: 'POST', agent, headers: { ...delivery.headers(), 'content-length': String(delivery.body.length) }, timeout: 60_000 },
			(res) => {
				res.resume();
				res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
				res.on('error', failed);
			},
		);
		req.on('timeout', () => req.destroy(Object.assign(new Error('no answer within 60 s'), { code: 'TIMEOUT' })));
		req.on('error', failed);
		req.end(delivery.body);
	});
}
