import { EventEmitter } from 'node:events';
import type { ClientRequest } from 'node:http';
import { Agent, request } from 'node:https';
import { rootCertificates } from 'node:tls';

import type { SignatureFormat } from './signing';
import { retryOffsetsSeconds, signatureHeader } from './signing';
import type { ReaderKey, WebhookEndpoint } from './types';

export type DeliveryKind = 'event' | 'redelivery' | 'stale' | 'tampered';

export interface DeliveryAttempt {
	attempt: number;
	at: string;
	/** Planned offset from the first attempt, in unscaled seconds. */
	offsetSeconds: number;
	signature: string;
	/** HTTP status answered by the receiver, when it answered. */
	status?: number;
	/** Connection or TLS error, when it did not answer. */
	error?: string;
}

export interface Delivery {
	id: string;
	alertId: string;
	eventType: string;
	reader: ReaderKey;
	endpointId: string;
	url: string;
	kind: DeliveryKind;
	/** Raw body POSTed (for a tampered delivery, the altered body). */
	body: string;
	state: 'pending' | 'delivered' | 'failed';
	attempts: DeliveryAttempt[];
}

export interface DeliveryPlan {
	alertId: string;
	eventType: string;
	reader: ReaderKey;
	endpoint: WebhookEndpoint;
	kind: DeliveryKind;
	body: string;
	/** Stale deliveries sign with a timestamp this many seconds in the past. */
	ageSeconds?: number;
	/** Tampered deliveries: what is broken after signing. */
	tamper?: 'body' | 'signature';
}

export interface DeliveryOptions {
	timeScale: number;
	trustedCas: string[];
	clock: () => number;
	/** Per-attempt request timeout in ms. */
	attemptTimeoutMs?: number;
	/** How the header is written (the dialect's choices). */
	signatureFormat?: SignatureFormat;
}

const userAgent = 'Service-Sandbox-Webhooks/1.0';

/** Sends signed webhook deliveries and retries failures with exponential backoff over 24 hours (scaled). */
export class DeliveryManager {
	private readonly deliveries: Delivery[] = [];
	private readonly plans = new Map<string, DeliveryPlan>();
	private readonly timers = new Set<NodeJS.Timeout>();
	private readonly inFlight = new Set<ClientRequest>();
	private readonly events = new EventEmitter();
	private readonly agent: Agent;
	private readonly offsets = retryOffsetsSeconds();
	private closed = false;
	private counter = 0;

	constructor(private readonly options: DeliveryOptions) {
		// Trust the system roots plus the given CAs; TLS verification is never relaxed.
		this.agent = new Agent({ keepAlive: true, ca: [...rootCertificates, ...options.trustedCas] });
		this.events.setMaxListeners(0);
	}

	start(plan: DeliveryPlan): Delivery {
		if (this.closed) throw new Error('The sandbox is closed: no more deliveries can be sent.');
		const delivery: Delivery = {
			id: `dl_${String(++this.counter).padStart(6, '0')}`,
			alertId: plan.alertId,
			eventType: plan.eventType,
			reader: plan.reader,
			endpointId: plan.endpoint.id,
			url: plan.endpoint.url,
			kind: plan.kind,
			body: plan.tamper === 'body' ? tamperBody(plan.body) : plan.body,
			state: 'pending',
			attempts: [],
		};
		this.deliveries.push(delivery);
		this.plans.set(delivery.id, plan);
		this.schedule(delivery, 0);
		return delivery;
	}

	list(filter: { alertId?: string; reader?: ReaderKey } = {}): Delivery[] {
		return this.deliveries
			.filter((d) => (filter.alertId === undefined || d.alertId === filter.alertId)
				&& (filter.reader === undefined || d.reader === filter.reader))
			.map((d) => ({ ...d, attempts: d.attempts.map((a) => ({ ...a })) }));
	}

	/** Resolves once every delivery of the alert has succeeded or given up. */
	whenSettled(alertId: string): Promise<Delivery[]> {
		return this.waitFor(() => {
			const list = this.list({ alertId });
			return list.every((d) => d.state !== 'pending') ? list : undefined;
		});
	}

	/** Resolves with the first non-undefined value of `check`, re-evaluated after every attempt. */
	waitFor<T>(check: () => T | undefined): Promise<T> {
		return new Promise((resolve, reject) => {
			const evaluate = () => {
				if (this.closed) {
					cleanup();
					reject(new Error('The sandbox was closed while waiting for deliveries.'));
					return;
				}
				const value = check();
				if (value !== undefined) {
					cleanup();
					resolve(value);
				}
			};
			const cleanup = () => this.events.off('change', evaluate);
			this.events.on('change', evaluate);
			evaluate();
		});
	}

	close(): void {
		this.closed = true;
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
		for (const req of this.inFlight) req.destroy();
		this.inFlight.clear();
		this.agent.destroy();
		this.events.emit('change');
	}

	private schedule(delivery: Delivery, attemptIndex: number): void {
		const previous = attemptIndex === 0 ? 0 : this.offsets[attemptIndex - 1];
		const delayMs = ((this.offsets[attemptIndex] - previous) * 1000) / this.options.timeScale;
		const timer = setTimeout(() => {
			this.timers.delete(timer);
			this.attempt(delivery, attemptIndex);
		}, delayMs);
		this.timers.add(timer);
	}

	private attempt(delivery: Delivery, attemptIndex: number): void {
		const plan = this.plans.get(delivery.id)!;
		const t = Math.floor(this.options.clock() / 1000) - (plan.ageSeconds ?? 0);
		let signature = signatureHeader(plan.endpoint.secret, t, plan.body, this.options.signatureFormat);
		if (plan.tamper === 'signature') signature = corruptV1(signature);
		const attempt: DeliveryAttempt = {
			attempt: attemptIndex + 1,
			at: new Date(this.options.clock()).toISOString(),
			offsetSeconds: this.offsets[attemptIndex],
			signature,
		};
		delivery.attempts.push(attempt);
		const body = Buffer.from(delivery.body, 'utf8');
		let finished = false;
		const finish = (outcome: { status?: number; error?: string }) => {
			if (finished) return;
			finished = true;
			this.inFlight.delete(req);
			Object.assign(attempt, outcome);
			const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
			// Probes (stale, tampered) are sent once: the receiver is expected to refuse them.
			const retries = plan.kind !== 'stale' && plan.kind !== 'tampered';
			if (ok) delivery.state = 'delivered';
			else if (!retries || attemptIndex + 1 >= this.offsets.length || this.closed) delivery.state = 'failed';
			else this.schedule(delivery, attemptIndex + 1);
			this.events.emit('change');
		};
		const req = request(delivery.url, {
			method: 'POST',
			agent: this.agent,
			headers: {
				'Content-Type': 'application/json',
				'Content-Length': body.length,
				'User-Agent': userAgent,
				'Service-Signature': signature,
			},
		});
		this.inFlight.add(req);
		req.setTimeout(this.options.attemptTimeoutMs ?? 10_000, () => {
			req.destroy(new Error(`no answer within ${this.options.attemptTimeoutMs ?? 10_000} ms`));
		});
		req.on('response', (res) => {
			res.resume();
			res.on('end', () => finish({ status: res.statusCode }));
			res.on('error', () => finish({ status: res.statusCode }));
		});
		req.on('error', (error: NodeJS.ErrnoException) => {
			finish({ error: error.code ? `${error.code}: ${error.message}` : error.message });
		});
		req.end(body);
	}
}

/** Changes the body after it was signed: the organisation id gets a suffix. */
function tamperBody(body: string): string {
	const parsed = JSON.parse(body) as { ids: Record<string, string> };
	parsed.ids.organisation = `${parsed.ids.organisation ?? 'KE-0000'}X`;
	return JSON.stringify(parsed);
}

/** The header with the first character of its v1 changed: still well-formed in hex and in base64. */
function corruptV1(signature: string): string {
	const at = signature.indexOf('v1=') + 3;
	return signature.slice(0, at) + (signature[at] === '0' ? '1' : '0') + signature.slice(at + 1);
}
