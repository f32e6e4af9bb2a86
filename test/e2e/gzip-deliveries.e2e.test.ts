import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { eventBody } from '../sandbox/events';
import { signatureHeader } from '../sandbox/signing';
import type { Execution } from './n8n';
import { countByAlert, executionItems } from './examples/executions';
import { exampleIds } from './examples/stack';
import { useExampleStack } from './examples/useExampleStack';
import { httpsRequest, type HttpsResponse } from './https-request';
import { waitFor } from './wait-for';

const TRIGGER = 'Service Trigger: register changes';
const MiB = 1024 * 1024;
/**
 * n8n's N8N_PAYLOAD_SIZE_MAX, default 16 (MiB): its raw-body reader (n8n/dist/middlewares/body-parser.js)
 * pipes a `Content-Encoding: gzip` request through zlib's gunzip and hands raw-body the decoded stream
 * with `limit: '16mb'` (16 × 2^20 bytes; more than that is refused), so the cap counts decoded bytes.
 */
const PAYLOAD_SIZE_MAX = 16 * MiB;

/** A ledger_high for KE-1001 as the sandbox words it, its JSON closed after `padding` spaces (still one JSON object). */
function ledgerHigh(padding = 0): { alertId: string; decoded: Buffer; event: Record<string, unknown> } {
	const alertId = `al_${randomBytes(12).toString('hex')}`;
	const text = eventBody({ event_type: 'ledger_high', alert_id: alertId, ids: { organisation: 'KE-1001' }, severity: 'high', occurred_at: new Date().toISOString() });
	const decoded = Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.alloc(padding, 0x20), Buffer.from('}')]);
	return { alertId, decoded, event: JSON.parse(text) as Record<string, unknown> };
}

/** The trigger's item: the event as sent, with `ke` and (the example turns on Add Company Details) the company beside it. */
function passedOn(event: Record<string, unknown>) {
	return [{ ...event, ke: 'KE-1001', company: expect.objectContaining({ ke: 'KE-1001', shared: true }) }];
}

// The Service Trigger of the example "company register alert to chat", in a real n8n with the package
// from its tarball, delivered to directly at its production webhook URL: each body signed (Service-Signature,
// HMAC over `t.` and the decoded bytes, with the secret the sandbox holds for this endpoint) and sent gzip-encoded.
// Every refusal below is by size alone: each body is a correctly signed, readable ledger_high.
describe('gzip-encoded deliveries in a real n8n: the size cap applies to the decoded body', () => {
	const running = useExampleStack('e2e-gzip');
	/** The workflow's execution count before the first delivery of this file. */
	let before = 0;
	/** Alerts n8n answered 2xx, each of which must be exactly one execution. */
	const accepted: string[] = [];
	/** Alerts n8n refused, none of which may start an execution. */
	const refused: string[] = [];

	async function deliver(decoded: Buffer, contentType = 'application/json'): Promise<{ response: HttpsResponse; wire: number }> {
		const { n8n, sandbox, webhookUrls } = running();
		const endpoint = sandbox.control.webhookEndpoints().find((candidate) => candidate.url === webhookUrls.ledgerAlert);
		if (!endpoint) throw new Error(`the sandbox holds no endpoint for ${webhookUrls.ledgerAlert}`);
		const wire = gzipSync(decoded, { level: 9 });
		const response = await httpsRequest(webhookUrls.ledgerAlert, {
			method: 'POST',
			headers: {
				'content-type': contentType,
				'content-encoding': 'gzip',
				'service-signature': signatureHeader(endpoint.secret, Math.floor(Date.now() / 1000), decoded),
			},
			body: wire,
			ca: n8n.ca,
			timeoutMs: 60_000,
		});
		return { response, wire: wire.length };
	}

	async function executions(): Promise<Execution[]> {
		return await running().n8n.api.executions(exampleIds.ledgerAlert);
	}

	/** The one execution `alertId` started, once n8n lists it. */
	async function executionOf(alertId: string): Promise<Execution> {
		return await waitFor(
			async () => {
				const list = (await executions()).filter((execution) => executionItems(execution, TRIGGER).some((item) => item.alert_id === alertId));
				return list.length > 0 ? list : undefined;
			},
			{ what: `the execution of ${alertId}`, timeoutMs: 60_000 },
		).then((list) => {
			expect(list).toHaveLength(1);
			return list[0];
		});
	}

	test('a gzip-encoded, correctly signed delivery is accepted (200) and is one execution holding the event as sent', async () => {
		before = (await executions()).length;
		const { alertId, decoded, event } = ledgerHigh();
		const { response } = await deliver(decoded);
		expect(response.status).toBe(200);
		accepted.push(alertId);
		const execution = await executionOf(alertId);
		expect(executionItems(execution, TRIGGER)).toEqual(passedOn(event));
	}, 120_000);

	test('a body decoding to exactly the cap (16 MiB, about 16 KB on the wire) is accepted: the whitespace is JSON, the item the event', async () => {
		const { alertId, decoded, event } = ledgerHigh(PAYLOAD_SIZE_MAX - ledgerHigh().decoded.length);
		expect(decoded.length).toBe(PAYLOAD_SIZE_MAX);
		const { response, wire } = await deliver(decoded);
		expect(wire).toBeLessThan(64 * 1024);
		expect(response.status).toBe(200);
		accepted.push(alertId);
		expect(executionItems(await executionOf(alertId), TRIGGER)).toEqual(passedOn(event));
	}, 120_000);

	test('one decoded byte over the cap, and a gzip bomb (40 MiB decoded from about 40 KB), are refused before the node runs: 500, no execution', async () => {
		const { n8n } = running();
		const overByOne = ledgerHigh(PAYLOAD_SIZE_MAX + 1 - ledgerHigh().decoded.length);
		const bomb = ledgerHigh(40 * MiB);
		expect(overByOne.decoded.length).toBe(PAYLOAD_SIZE_MAX + 1);
		for (const { alertId, decoded } of [overByOne, bomb]) {
			const { response, wire } = await deliver(decoded);
			expect(wire).toBeLessThan(64 * 1024);
			// n8n reads the body before it runs the trigger (application/json is parsed in its webhook
			// handler): raw-body's 413 "request entity too large" is not one of n8n's own response errors,
			// so n8n wraps it as "There was a problem executing the workflow" and answers 500. The Service
			// sees a server error (and retries it); the node never sees the delivery.
			expect({ status: response.status, body: response.json() }).toEqual({ status: 500, body: { code: 0, message: 'There was a problem executing the workflow' } });
			refused.push(alertId);
		}
		expect(n8n.logs()).toContain(`Error in handling webhook request POST /webhook/`);
	}, 120_000);

	test('a gzip bomb sent as application/octet-stream (n8n leaves the body to the node) is refused by the same cap when the node reads it: 500 and one failed execution naming the size', async () => {
		const bomb = ledgerHigh(40 * MiB);
		const known = new Set((await executions()).map((execution) => execution.id));
		const { response } = await deliver(bomb.decoded, 'application/octet-stream');
		// The node asks n8n for the raw body (req.readRawBody, the same reader and cap); the error it
		// throws is n8n's generic webhook failure: 500 to the sender, and n8n records a failed execution
		// in which the trigger step fails with raw-body's words (no item reaches the next node).
		expect({ status: response.status, body: response.json() }).toEqual({ status: 500, body: { code: 0, message: 'Workflow Webhook Error: Workflow could not be started!' } });
		refused.push(bomb.alertId);
		const started = await waitFor(
			async () => {
				const list = (await executions()).filter((execution) => !known.has(execution.id) && !['new', 'running', 'waiting'].includes(execution.status));
				return list.length > 0 ? list : undefined;
			},
			{ what: 'the execution n8n records for the oversized octet-stream delivery', timeoutMs: 60_000 },
		);
		expect(started.map((execution) => execution.status)).toEqual(['error']);
		expect(JSON.stringify(started[0].data?.resultData.error ?? {})).toContain('request entity too large');
		expect(Object.keys(started[0].data?.resultData.runData ?? {})).toEqual([TRIGGER]);
	}, 120_000);

	test('n8n still answers afterwards: a normal gzip delivery is one execution, and the refused ones started none', async () => {
		const { alertId, decoded, event } = ledgerHigh();
		const { response } = await deliver(decoded);
		expect(response.status).toBe(200);
		accepted.push(alertId);
		expect(executionItems(await executionOf(alertId), TRIGGER)).toEqual(passedOn(event));
		// Anything the refused deliveries started would be listed by now (n8n stores an execution before it answers).
		await sleep(2_000);
		const all = await executions();
		const counts = countByAlert(all, TRIGGER);
		expect(accepted.map((id) => counts[id])).toEqual([1, 1, 1]);
		expect(refused.map((id) => counts[id])).toEqual([undefined, undefined, undefined]);
		// The accepted three, and the octet-stream bomb's failed execution (it names no alert).
		expect(all.length - before).toBe(accepted.length + 1);
	}, 120_000);
});
