import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:net';

import { selfSignedCertificate, type TlsMaterial } from '../tls/certificates';
import { retryOffsetsSeconds, startSandbox } from './index';
import { startReceiver, type ReceivedDelivery, type TestReceiver } from './testReceiver';
import { useSandboxWithClient } from './useSandbox';

/**
 * Independent check written from spec section 5 (and the encodings in docs/service-choices.md), not from the sandbox code:
 * refuse when t is more than 300 s from the receiver's clock; HMAC-SHA256 with the decoded secret over
 * t, a full stop, then the raw body; compare with v1 in constant time.
 */
function checkSignature(header: string | undefined, rawBody: Buffer, secret: string, nowSeconds: number): 'ok' | 'stale' | 'mismatch' | 'malformed' {
	if (!header) return 'malformed';
	const parts = header.split(',').map((part) => part.trim().split('='));
	const t = parts.find(([name]) => name === 't')?.[1];
	const candidates = parts.filter(([name]) => name === 'v1').map(([, value]) => value);
	if (!t || !/^\d+$/.test(t) || candidates.length === 0) return 'malformed';
	if (Math.abs(nowSeconds - Number(t)) > 300) return 'stale';
	const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
	const expected = createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${t}.`), rawBody])).digest();
	const matches = candidates.some((v1) => {
		const given = Buffer.from(v1, 'hex');
		return given.length === expected.length && timingSafeEqual(given, expected);
	});
	return matches ? 'ok' : 'mismatch';
}

const check = (delivery: ReceivedDelivery, secret: string) =>
	checkSignature(delivery.headers['service-signature'] as string | undefined, delivery.body, secret, delivery.receivedAt);

// 86400: the whole 24-hour retry schedule runs in about a second.
const { sandbox, client } = useSandboxWithClient({ timeScale: 86_400 });
let receiver: TestReceiver;
let secret: string;

beforeAll(async () => {
	receiver = await startReceiver(sandbox.receiverTls);
	const created = await client.request('/v1/reader/webhooks', { method: 'POST', body: { url: receiver.url } });
	secret = created.json().secret;
});

afterAll(async () => {
	await receiver.close();
});

beforeEach(() => {
	receiver.answer([200]);
	receiver.received.length = 0;
});

describe('catalogue', () => {
	it('lists the ten named event types and the ledger_* family, each with a description and an identifiers-only sample', async () => {
		const reply = await client.request('/v1/reader/webhooks/catalogue');
		expect(reply.status).toBe(200);
		const { data } = reply.json();
		const names = data.map((e: { event_type: string }) => e.event_type);
		expect(names).toEqual(expect.arrayContaining([
			'share_granted', 'share_revoked', 'report_superseded', 'finding_new', 'ledger_high', 'ledger_medium',
			'reader_tier_changed', 'reader_decision_due', 'reader_invitation_status', 'questionnaire_answered',
		]));
		expect(names.filter((n: string) => n.startsWith('ledger_'))).toEqual(['ledger_high', 'ledger_medium', 'ledger_low', 'ledger_info']);
		expect(new Set(names).size).toBe(names.length);
		for (const entry of data) {
			expect(Object.keys(entry)).toEqual(['event_type', 'description', 'sample']);
			expect(entry.description.length).toBeGreaterThan(20);
			expect(Object.keys(entry.sample)).toEqual(['event_type', 'alert_id', 'ids', 'severity', 'occurred_at']);
			expect(entry.sample.event_type).toBe(entry.event_type);
			expect(['high', 'medium', 'low', 'info']).toContain(entry.sample.severity);
		}
		expect(data.find((e: { event_type: string }) => e.event_type === 'ledger_high').sample).toEqual({
			event_type: 'ledger_high', alert_id: 'al_sample0000000000000000', ids: { organisation: 'KE-1001' }, severity: 'high', occurred_at: '2026-01-01T00:00:00.000Z',
		});
	});
});

describe('endpoint creation', () => {
	it.each([
		['an http target', 'http://127.0.0.1:8080/hook', 'The target URL must use https (spec: endpoint URL scheme https only); "http://127.0.0.1:8080/hook" uses http.'],
		['an ftp target', 'ftp://files.example/hook', 'The target URL must use https (spec: endpoint URL scheme https only); "ftp://files.example/hook" uses ftp.'],
		['a relative target', '/hook', 'The target URL "/hook" is not a valid absolute URL: use https://host/path.'],
		['no target', undefined, 'Send the target as "url": an https:// address.'],
	])('refuses %s with 400 and says why', async (_label, url, message) => {
		const reply = await client.request('/v1/reader/webhooks', { method: 'POST', body: { url } });
		expect(reply.status).toBe(400);
		expect(reply.json()).toEqual({ error: { code: 'invalid_url', message } });
	});

	it('returns the endpoint with its signing secret once; listings never show it again', async () => {
		const reply = await client.request('/v1/reader/webhooks', { method: 'POST', body: { url: 'https://hooks.buyer.example/service' } });
		expect(reply.status).toBe(201);
		const endpoint = reply.json();
		expect(endpoint).toEqual({
			id: expect.stringMatching(/^we_[0-9a-f]{16}$/),
			url: 'https://hooks.buyer.example/service',
			secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
			created_at: expect.any(String),
		});
		expect(Buffer.from(endpoint.secret.slice(6), 'base64')).toHaveLength(32);
		const list = await client.request('/v1/reader/webhooks');
		expect(list.json().data).toContainEqual({ id: endpoint.id, url: endpoint.url, created_at: endpoint.created_at });
		expect(list.text).not.toContain(endpoint.secret);
		expect(sandbox.control.requests({ path: '/v1/reader/webhooks', method: 'GET' }).every((r) => !r.body.includes('whsec_'))).toBe(true);

		const removed = await client.request(`/v1/reader/webhooks/${endpoint.id}`, { method: 'DELETE' });
		expect(removed.status).toBe(204);
		expect((await client.request(`/v1/reader/webhooks/${endpoint.id}`, { method: 'DELETE' })).status).toBe(404);
	});
});

describe('signed deliveries', () => {
	it('POSTs the five identifier fields, compactly, signed so the independent spec check accepts it', async () => {
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1008' });
		const [delivery] = await sandbox.control.whenSettled(alert.alertId);
		expect(delivery).toMatchObject({ state: 'delivered', kind: 'event', url: receiver.url });
		expect(delivery.attempts).toEqual([
			{ attempt: 1, at: expect.any(String), offsetSeconds: 0, signature: expect.stringMatching(/^t=\d+,v1=[0-9a-f]{64}$/), status: 200 },
		]);
		const [received] = receiver.received;
		expect(received.body.toString()).toMatch(
			new RegExp(`^\\{"event_type":"ledger_high","alert_id":"${alert.alertId}","ids":\\{"organisation":"KE-1008"\\},"severity":"high","occurred_at":"[^"]+"\\}$`),
		);
		// Identifiers only: the company's name never travels in a webhook.
		expect(received.body.toString()).not.toContain('Smith');
		expect(received.headers['content-type']).toBe('application/json');
		expect(received.headers['service-signature']).toBe(delivery.attempts[0].signature);
		expect(check(received, secret)).toBe('ok');
		// The check is not trivially true: another secret fails it.
		expect(check(received, `whsec_${Buffer.alloc(32, 7).toString('base64')}`)).toBe('mismatch');
	});

	it('sends a tampered body that the independent check refuses', async () => {
		const alert = sandbox.control.sendTampered('share_revoked', { organisation: 'KE-1001' });
		const [delivery] = await sandbox.control.whenSettled(alert.alertId);
		const [received] = receiver.received;
		expect(JSON.parse(received.body.toString()).ids.organisation).toBe('KE-1001X');
		expect(received.body.toString()).not.toBe(alert.body);
		expect(check(received, secret)).toBe('mismatch');
		expect(delivery).toMatchObject({ kind: 'tampered', state: 'delivered' });
	});

	it('sends a corrupted signature that the independent check refuses', async () => {
		const alert = sandbox.control.sendTampered('ledger_low', { organisation: 'KE-1001' }, { mode: 'signature' });
		await sandbox.control.whenSettled(alert.alertId);
		const [received] = receiver.received;
		expect(received.body.toString()).toBe(alert.body);
		expect(check(received, secret)).toBe('mismatch');
	});

	it('sends a stale delivery, correctly signed but with t older than 300 seconds', async () => {
		const alert = sandbox.control.sendStale('ledger_medium', { organisation: 'KE-1001' }, { ageSeconds: 301 });
		await sandbox.control.whenSettled(alert.alertId);
		const [received] = receiver.received;
		const t = Number(/t=(\d+)/.exec(received.headers['service-signature'] as string)![1]);
		expect(received.receivedAt - t).toBeGreaterThanOrEqual(301);
		expect(check(received, secret)).toBe('stale');
		// Same HMAC judged at the time it claims: the signature itself is right, only its age is refused.
		expect(checkSignature(received.headers['service-signature'] as string, received.body, secret, t)).toBe('ok');
	});

	it('re-sends a delivery with the same alert_id and body, freshly signed', async () => {
		const alert = sandbox.control.emit('reader_tier_changed', { organisation: 'KE-1002' });
		await sandbox.control.whenSettled(alert.alertId);
		const again = sandbox.control.redeliver(alert.alertId);
		expect(again.alertId).toBe(alert.alertId);
		const settled = await sandbox.control.whenSettled(alert.alertId);
		expect(settled.map((d) => [d.kind, d.state])).toEqual([['event', 'delivered'], ['redelivery', 'delivered']]);
		expect(receiver.received).toHaveLength(2);
		expect(receiver.received[1].body.equals(receiver.received[0].body)).toBe(true);
		expect(receiver.received.map((r) => check(r, secret))).toEqual(['ok', 'ok']);
		expect(() => sandbox.control.redeliver('al_unknown')).toThrow('No alert al_unknown was emitted by this sandbox.');
	});

	it('delivers to every endpoint of the reader, or only the one named', async () => {
		const second = await startReceiver(sandbox.receiverTls);
		const endpoint = sandbox.control.addWebhookEndpoint(second.url);
		try {
			const both = sandbox.control.emit('questionnaire_answered', { organisation: 'KE-1003', questionnaire: 'QN-7' });
			expect(both.deliveryIds).toHaveLength(2);
			await sandbox.control.whenSettled(both.alertId);
			expect(checkSignature(second.received[0].headers['service-signature'] as string, second.received[0].body, endpoint.secret, second.received[0].receivedAt)).toBe('ok');
			expect(check(second.received[0], secret)).toBe('mismatch');
			const one = sandbox.control.emit('finding_new', { organisation: 'KE-1003', report: 'KS-1003-v1' }, { endpointId: endpoint.id });
			const [only] = await sandbox.control.whenSettled(one.alertId);
			expect(only.url).toBe(second.url);
			expect(second.received).toHaveLength(2);
			expect(receiver.received).toHaveLength(1);
		} finally {
			sandbox.control.removeWebhookEndpoint(endpoint.id);
			await second.close();
		}
	});

	it('records an alert with no deliveries for a reader without endpoints', async () => {
		const alert = sandbox.control.emit('ledger_info', { organisation: 'KE-1013' }, { reader: 'other' });
		expect(alert.deliveryIds).toEqual([]);
		await expect(sandbox.control.whenSettled(alert.alertId)).resolves.toEqual([]);
	});

	it('refuses unknown event types and missing ids', () => {
		expect(() => sandbox.control.emit('ledger_unknown', { organisation: 'KE-1' })).toThrow(/^Unknown event type "ledger_unknown": use one of share_granted, /);
		expect(() => sandbox.control.emit('ledger_high')).toThrow('Event ledger_high needs ids.organisation (a KE).');
	});
});

describe('retries', () => {
	it('plans attempts from 60 s doubling, with the last one 24 hours after the first', () => {
		expect(retryOffsetsSeconds()).toEqual([0, 60, 180, 420, 900, 1860, 3780, 7620, 15300, 30660, 61380, 86400]);
	});

	it('retries after non-2xx answers until one succeeds, with the same body and a fresh valid signature each time', async () => {
		receiver.answer([500, 503, 200]);
		const alert = sandbox.control.emit('reader_decision_due', { organisation: 'KE-1005' });
		const [delivery] = await sandbox.control.whenSettled(alert.alertId);
		expect(delivery.state).toBe('delivered');
		expect(delivery.attempts.map((a) => [a.attempt, a.offsetSeconds, a.status])).toEqual([[1, 0, 500], [2, 60, 503], [3, 180, 200]]);
		expect(receiver.received.map((r) => r.body.toString())).toEqual([alert.body, alert.body, alert.body]);
		expect(receiver.received.map((r) => check(r, secret))).toEqual(['ok', 'ok', 'ok']);
	});

	it('gives up after the 24-hour schedule when the receiver keeps failing', async () => {
		receiver.answer([500]);
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1006' });
		const [delivery] = await sandbox.control.whenSettled(alert.alertId);
		expect(delivery.state).toBe('failed');
		expect(delivery.attempts.map((a) => a.offsetSeconds)).toEqual(retryOffsetsSeconds());
		expect(delivery.attempts.every((a) => a.status === 500)).toBe(true);
		expect(receiver.received).toHaveLength(12);
	});

	it('records connection errors per attempt and retries them', async () => {
		const closedPort = await new Promise<number>((resolve) => {
			const probe = createServer().listen(0, '127.0.0.1', () => {
				const { port } = probe.address() as { port: number };
				probe.close(() => resolve(port));
			});
		});
		const endpoint = sandbox.control.addWebhookEndpoint(`https://127.0.0.1:${closedPort}/gone`);
		const alert = sandbox.control.emit('share_granted', { organisation: 'KE-1001' }, { endpointId: endpoint.id });
		const [delivery] = await sandbox.control.whenSettled(alert.alertId);
		expect(delivery.state).toBe('failed');
		expect(delivery.attempts).toHaveLength(12);
		expect(delivery.attempts[0].error).toMatch(/^ECONNREFUSED: /);
		expect(delivery.attempts[0].status).toBeUndefined();
		sandbox.control.removeWebhookEndpoint(endpoint.id);
	});

	it('lists deliveries with their attempts and outcomes, filtered by alert', async () => {
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1009' });
		await sandbox.control.whenSettled(alert.alertId);
		const listed = sandbox.control.deliveries({ alertId: alert.alertId });
		expect(listed).toEqual([{
			id: expect.stringMatching(/^dl_/),
			alertId: alert.alertId,
			eventType: 'ledger_high',
			reader: 'reader',
			endpointId: expect.stringMatching(/^we_/),
			url: receiver.url,
			kind: 'event',
			body: alert.body,
			state: 'delivered',
			attempts: [expect.objectContaining({ attempt: 1, status: 200 })],
		}]);
	});
});

describe('TLS towards receivers', () => {
	let selfSigned: TlsMaterial;

	beforeAll(async () => {
		selfSigned = await selfSignedCertificate('other-ca receiver');
	});

	it('refuses a receiver whose certificate it does not trust, and delivers once that CA is in trustedCas', async () => {
		const foreign = await startReceiver(selfSigned);
		const trusting = await startSandbox({ seed: 'empty', timeScale: 86_400, trustedCas: [selfSigned.cert] });
		try {
			const endpoint = sandbox.control.addWebhookEndpoint(foreign.url, 'other');
			const refused = sandbox.control.emit('ledger_high', { organisation: 'KE-1013' }, { reader: 'other' });
			const [failed] = await sandbox.control.whenSettled(refused.alertId);
			expect(failed.state).toBe('failed');
			expect(failed.attempts[0].error).toMatch(/^DEPTH_ZERO_SELF_SIGNED_CERT: /);
			expect(foreign.received).toHaveLength(0);
			sandbox.control.removeWebhookEndpoint(endpoint.id, 'other');

			trusting.control.addWebhookEndpoint(foreign.url);
			const accepted = trusting.control.emit('ledger_high', { organisation: 'KE-1' });
			const [delivered] = await trusting.control.whenSettled(accepted.alertId);
			expect(delivered.state).toBe('delivered');
			expect(foreign.received).toHaveLength(1);
		} finally {
			await trusting.close();
			await foreign.close();
		}
	});
});
