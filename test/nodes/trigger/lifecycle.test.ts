import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';

import { postDelivery, receiverTls, trustCa } from '../../harness';
import { recentKeys } from '../../../nodes/ServiceTrigger/verify/recentKeys';
import { signatureHeader } from '../../sandbox/signing';
import { listenHttps, type LocalHttpsServer } from '../../tls/httpsServer';
import { serviceApi } from '../../sandbox/credential';
import { freshProcess, secretWindows, useTriggerSetup } from './setup';

const KE = 'KE-1001';
const setup = useTriggerSetup();

beforeEach(() => {
	setup.harness = setup.newHarness();
	setup.sandbox.control.clearRequests();
});

afterEach(async () => {
	// Leave no endpoint behind for the next test.
	for (const endpoint of setup.sandbox.control.webhookEndpoints()) {
		await fetchDelete(endpoint.id);
	}
});

/** Deletes an endpoint at the sandbox the way a reader admin would, behind the node's back. */
async function fetchDelete(id: string): Promise<void> {
	const { sandbox } = setup;
	await new Promise<void>((resolve, reject) => {
		const req = request(`${sandbox.baseUrl}/v1/reader/webhooks/${id}`, {
			method: 'DELETE',
			ca: sandbox.ca,
			headers: { Authorization: `Bearer ${sandbox.tokens.reader}` },
		});
		req.on('response', (res: IncomingMessage) => {
			res.resume();
			res.on('end', () => resolve());
		});
		req.on('error', reject);
		req.end();
	});
}

async function deliveredExecutions(alertId: string) {
	await setup.sandbox.control.whenSettled(alertId);
	return await setup.executionsOf(alertId);
}

describe('Service Trigger lifecycle against the sandbox', () => {
	it('registers the https production URL and keeps the secret sealed in static data', async () => {
		const { harness, sandbox } = setup;
		await expect(harness.activate()).resolves.toEqual({ created: true });

		const [endpoint] = sandbox.control.webhookEndpoints();
		expect(endpoint.url).toBe(harness.webhookUrl());
		expect(endpoint.url.startsWith('https://')).toBe(true);
		// An activation is no execution: no Idempotency-Key, so activating again never has a Service replay an endpoint deleted since.
		expect(sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' }).map((request) => request.headers['idempotency-key'])).toEqual([undefined]);

		const stored = harness.savedNodeData();
		expect(stored).toEqual({
			endpoints: { [harness.webhookUrl()]: { id: endpoint.id, sealedSecret: expect.stringMatching(/^s1\./), createdAt: expect.any(String) } },
		});
		const saved = JSON.stringify(harness.saved);
		const keyBytes = Buffer.from(endpoint.secret.replace(/^whsec_/, ''), 'base64');
		for (const part of [...secretWindows(endpoint.secret), ...secretWindows(keyBytes.toString('hex')), ...secretWindows(keyBytes.toString('base64url'))]) {
			expect(saved).not.toContain(part);
		}
	});

	it('survives an n8n restart: checkExists holds, nothing is re-registered, deliveries verify', async () => {
		await setup.harness.activate();
		const [endpoint] = setup.sandbox.control.webhookEndpoints();
		setup.harness = setup.harness.restart();
		setup.sandbox.control.clearRequests();

		await expect(setup.harness.activate('production', 'init')).resolves.toEqual({ created: false });
		expect(setup.sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' })).toHaveLength(0);
		expect(setup.sandbox.control.webhookEndpoints().map((e) => e.id)).toEqual([endpoint.id]);

		const alert = setup.sandbox.control.emit('ledger_high', { organisation: KE });
		expect(await deliveredExecutions(alert.alertId)).toHaveLength(1);
	});

	it("after n8n's public URL changes and n8n restarts: one endpoint, at the new URL, and deliveries verify", async () => {
		const { sandbox } = setup;
		setup.harness = setup.newHarness({ publicUrl: 'https://n8n-before.example' });
		await setup.harness.activate();
		const [old] = sandbox.control.webhookEndpoints();
		expect(old.url).toBe(setup.harness.webhookUrl());
		setup.harness = setup.harness.restart({ publicUrl: setup.receiver.origin });
		sandbox.control.clearRequests();

		await expect(setup.harness.activate('production', 'init')).resolves.toEqual({ created: true });
		expect(sandbox.control.webhookEndpoints().map((endpoint) => endpoint.url)).toEqual([setup.harness.webhookUrl()]);
		expect(sandbox.control.requests({ method: 'DELETE', path: `/v1/reader/webhooks/${old.id}` }).map((r) => r.status)).toEqual([204]);
		expect(Object.keys(setup.harness.savedNodeData().endpoints as object)).toEqual([setup.harness.webhookUrl()]);
		expect(setup.logs.some((line) => line.message.includes(`deleting the endpoint registered for the earlier URL ${old.url}`))).toBe(true);
		const alert = sandbox.control.emit('ledger_high', { organisation: KE });
		expect(await deliveredExecutions(alert.alertId)).toHaveLength(1);
	});

	it("deactivation after n8n's public URL changed deletes the endpoint of the earlier URL too", async () => {
		const { sandbox } = setup;
		setup.harness = setup.newHarness({ publicUrl: 'https://n8n-before.example' });
		await setup.harness.activate();
		const [old] = sandbox.control.webhookEndpoints();
		setup.harness = setup.harness.restart({ publicUrl: setup.receiver.origin });

		await setup.harness.deactivate();
		expect(sandbox.control.requests({ method: 'DELETE', path: `/v1/reader/webhooks/${old.id}` }).map((r) => r.status)).toEqual([204]);
		expect(sandbox.control.webhookEndpoints()).toEqual([]);
		expect(setup.harness.savedNodeData()).toEqual({});
	});

	it('a production activation leaves the test registration of the listening editor alone', async () => {
		const { sandbox } = setup;
		await setup.harness.activate('test');
		const testUrl = setup.harness.webhookUrl('test');
		await setup.harness.activate();
		expect(sandbox.control.webhookEndpoints().map((endpoint) => endpoint.url).sort()).toEqual([setup.harness.webhookUrl(), testUrl].sort());
		await setup.harness.deactivate('test');
		await setup.harness.deactivate();
		expect(sandbox.control.webhookEndpoints()).toEqual([]);
	});

	it('re-registers when the Service no longer lists the stored endpoint', async () => {
		await setup.harness.activate();
		const [first] = setup.sandbox.control.webhookEndpoints();
		await fetchDelete(first.id);

		await expect(setup.harness.activate('production', 'init')).resolves.toEqual({ created: true });
		const [second] = setup.sandbox.control.webhookEndpoints();
		expect(second.id).not.toBe(first.id);
		const alert = setup.sandbox.control.emit('share_granted', { organisation: KE });
		expect(await deliveredExecutions(alert.alertId)).toHaveLength(1);
	});

	it('an endpoint listing whose cursors never end: activation stops at 1,000 pages, far below Max Pages, saying so, and registers nothing', async () => {
		await setup.harness.activate();
		setup.harness = setup.harness.restart();
		setup.sandbox.control.clearRequests();
		setup.sandbox.control.failRoute({ method: 'GET', path: '/v1/reader/webhooks', mode: 'endlessCursor' });

		await expect(setup.harness.activate('production', 'init')).rejects.toThrow('The webhook endpoint listing did not end after 1000 pages, the most read of it');
		setup.sandbox.control.clearFaults();
		expect(setup.sandbox.control.requests({ method: 'GET', path: '/v1/reader/webhooks' })).toHaveLength(1000);
		expect(setup.sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' })).toHaveLength(0);
	});

	it('deactivation deletes the endpoint and clears the stored state', async () => {
		await setup.harness.activate();
		const [endpoint] = setup.sandbox.control.webhookEndpoints();
		await setup.harness.deactivate();

		expect(setup.sandbox.control.requests({ method: 'DELETE', path: `/v1/reader/webhooks/${endpoint.id}` })).toHaveLength(1);
		expect(setup.sandbox.control.webhookEndpoints()).toEqual([]);
		expect(setup.harness.saved).toEqual({ [`node:${setup.harness.node.name}`]: {} });
	});

	it('deactivation goes through when the endpoint is already gone (404) and still clears state', async () => {
		await setup.harness.activate();
		const stale = setup.harness.restart();
		await setup.harness.deactivate();

		await expect(stale.deactivate()).resolves.toBeUndefined();
		expect(setup.sandbox.control.requests({ method: 'DELETE' })).toHaveLength(2);
		expect(stale.savedNodeData()).toEqual({});
	});

	it('refuses a non-https webhook URL before any request, saying how to get one', async () => {
		setup.harness = setup.newHarness({ publicUrl: 'http://localhost:5678' });
		const failure = setup.harness.activate();
		await expect(failure).rejects.toThrow('The Service accepts https webhook URLs only');
		await failure.catch((error: { description?: string }) => {
			expect(error.description).toMatch(/WEBHOOK_URL/);
			expect(error.description).toMatch(/reverse proxy/);
			expect(error.description).toMatch(/tunnel/);
		});
		expect(setup.sandbox.control.requests({ method: 'POST' })).toHaveLength(0);
		expect(setup.sandbox.control.webhookEndpoints()).toEqual([]);
	});

	it('keeps test and production registrations apart: ending the test leaves production verifying', async () => {
		const { sandbox } = setup;
		await setup.harness.activate('production');
		const savedBeforeTest = JSON.stringify(setup.harness.saved);
		await setup.harness.activate('test');

		const endpoints = sandbox.control.webhookEndpoints();
		expect(endpoints.map((e) => e.url).sort()).toEqual([setup.harness.webhookUrl('production'), setup.harness.webhookUrl('test')].sort());
		// The test registration lives with the registration, not in the saved (database) static data.
		expect(JSON.stringify(setup.harness.saved)).toBe(savedBeforeTest);

		const testEndpoint = endpoints.find((e) => e.url === setup.harness.webhookUrl('test'))!;
		const testAlert = sandbox.control.emit('share_revoked', { organisation: KE }, { endpointId: testEndpoint.id });
		const testRuns = await deliveredExecutions(testAlert.alertId);
		expect(testRuns.map((e) => e.kind)).toEqual(['test']);

		await setup.harness.deactivate('test');
		expect(sandbox.control.webhookEndpoints().map((e) => e.url)).toEqual([setup.harness.webhookUrl('production')]);
		expect(Object.keys(setup.harness.savedNodeData().endpoints as object)).toEqual([setup.harness.webhookUrl('production')]);

		const alert = sandbox.control.emit('ledger_high', { organisation: KE });
		const runs = await deliveredExecutions(alert.alertId);
		expect(runs.map((e) => e.kind)).toEqual(['production']);
	});

	it('after the access token changes while n8n restarts, with a renewal tried within the hour: deliveries are refused with a logged reason naming the workflow, re-activation registers afresh', async () => {
		const { sandbox } = setup;
		await setup.harness.activate();
		const otherCredentials = { serviceApi: serviceApi(sandbox, { reader: 'other' }) };
		// A renewal (renewal.ts) was tried 59 minutes ago: this one waits for the hour.
		const endpoints = setup.harness.savedNodeData().endpoints as Record<string, Record<string, unknown>>;
		endpoints[setup.harness.webhookUrl()].renewalAttemptedAt = new Date(Date.now() - 59 * 60_000).toISOString();
		// A new n8n process: it holds none of the secrets it could once unseal.
		freshProcess();
		setup.harness = setup.harness.restart({ credentials: otherCredentials });

		const logsBefore = setup.logs.length;
		sandbox.control.clearRequests();
		const refused = sandbox.control.emit('ledger_high', { organisation: KE });
		// The sandbox retries a 401 for 24 hours; the first attempt's answer is what counts here.
		const answered = await sandbox.control.waitForDeliveries((list) =>
			list.some((d) => d.alertId === refused.alertId && d.attempts.length > 0 && d.attempts[0].status !== undefined),
		);
		expect(answered.find((d) => d.alertId === refused.alertId)!.attempts[0].status).toBe(401);
		await setup.receiver.drained();
		expect(setup.receiver.executions.filter((e) => String(e.items[0]?.json.alert_id) === refused.alertId)).toHaveLength(0);
		// An error an operator must act on, saying what to do: logged once, not once per refused delivery.
		const unsealLines = setup.logs.slice(logsBefore).filter((l) => /cannot be unsealed/.test(l.message));
		expect(unsealLines.map((l) => l.level)).toEqual(['error']);
		expect(unsealLines[0].message).toContain('registers a new endpoint on its own, at most once an hour');
		expect(sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' })).toHaveLength(0);
		expect(unsealLines[0].message).toContain('for workflow "Trigger test workflow" (trigger-test-workflow), node "Service Trigger"');

		expect(await setup.harness.runHook('checkExists')).toBe(false);
		await expect(setup.harness.activate()).resolves.toEqual({ created: true });
		const [fresh] = sandbox.control.webhookEndpoints('other');
		expect(fresh.url).toBe(setup.harness.webhookUrl());
		const alert = sandbox.control.emit('share_granted', { organisation: KE }, { reader: 'other' });
		expect(await deliveredExecutions(alert.alertId)).toHaveLength(1);
		await setup.harness.deactivate();
	});

	it('with a Webhook Signing Secret in the credential, registers nothing and verifies with that secret', async () => {
		const { sandbox } = setup;
		const external = sandbox.control.addWebhookEndpoint(setup.harness.webhookUrl());
		const credentials = {
			serviceApi: serviceApi(sandbox, { advanced: { webhookSigningSecret: external.secret } }),
		};
		setup.harness = setup.newHarness({ credentials });

		await expect(setup.harness.activate()).resolves.toEqual({ created: false });
		expect(sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' })).toHaveLength(0);
		const alert = sandbox.control.emit('finding_new', { organisation: KE, report: 'KS-1001-v2' });
		expect(await deliveredExecutions(alert.alertId)).toHaveLength(1);
	});

	it('takes a Webhook Signing Secret changed in the credential at once: the old one is refused from the next delivery', async () => {
		const { sandbox } = setup;
		const [before, after] = [sandbox.dialect.newSecret(), sandbox.dialect.newSecret()];
		const post = (secret: string, alertId: string) => {
			const payload = JSON.stringify({ event_type: 'ledger_high', alert_id: alertId, ids: { organisation: KE }, severity: 'high' });
			const { signatureEncoding: encoding, timestampUnit: unit, signatureSeparator: separator } = sandbox.dialect;
			const header = signatureHeader(secret, Math.floor(Date.now() / 1000), payload, { encoding, unit, separator });
			return postDelivery(setup.harness.webhookUrl(), { headers: { 'Service-Signature': header }, body: payload, ca: setup.receiverCa });
		};
		const withSecret = (secret: string) => setup.newHarness({ credentials: { serviceApi: serviceApi(sandbox, { advanced: { webhookSigningSecret: secret } }) } });
		// More than a minute after the previous test's secret was read: a new secret is refused until then.
		recentKeys.forgetAll();

		setup.harness = withSecret(before);
		await expect(setup.harness.activate()).resolves.toEqual({ created: false });
		expect((await post(before, 'al_secret_before')).status).toBe(200);
		setup.harness = withSecret(after);
		expect((await post(before, 'al_secret_old')).status).toBe(401);
		await setup.receiver.drained();
		const started = setup.receiver.executions.map((e) => String(e.items[0]?.json.alert_id));
		expect(started).toContain('al_secret_before');
		expect(started).not.toContain('al_secret_old');
	});

	it('loads the Events options from the catalogue, and falls back to the named events', async () => {
		const fromCatalogue = await setup.harness.loadOptions('getEvents');
		expect(fromCatalogue.map((o) => o.value)).toEqual(
			[
				'finding_new', 'ledger_high', 'ledger_info', 'ledger_low', 'ledger_medium', 'questionnaire_answered',
				'reader_decision_due', 'reader_invitation_status', 'reader_tier_changed', 'report_superseded',
				'share_granted', 'share_revoked',
			],
		);
		expect(fromCatalogue.find((o) => o.value === 'ledger_high')!.description).toMatch(/cannot silence/);

		const unreachable = setup.newHarness({ credentials: { serviceApi: { baseUrl: 'https://127.0.0.1:1', accessToken: 'x' } } });
		const fallback = await unreachable.loadOptions('getEvents');
		expect(fallback).toHaveLength(10);
		expect(fallback.map((o) => o.value)).not.toContain('ledger_low');
	});
});

describe('Service Trigger create against a Service that returns no secret', () => {
	// The sandbox always returns a secret; this stand-in answers like a Service that does not.
	let stub: LocalHttpsServer;
	let origin: string;
	const seen: string[] = [];

	beforeAll(async () => {
		const tls = await receiverTls();
		trustCa(tls.ca);
		stub = await listenHttps(tls, (req, res) => {
			seen.push(`${req.method} ${req.url}`);
			req.resume();
			if (req.method === 'POST') res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"id":"we_nosecret","url":"x"}');
			else res.writeHead(204).end();
		});
		origin = stub.origin;
	});

	afterAll(async () => {
		await stub.close();
	});

	it('fails clearly, removes the endpoint again and stores nothing', async () => {
		const harness = setup.newHarness({ credentials: { serviceApi: { baseUrl: origin, accessToken: 'svc_token' } } });
		await expect(harness.activate()).rejects.toThrow('The Service registered the webhook but returned no signing secret');
		// Endpoints for this URL are looked up first (none listed here), then the one made is removed again.
		expect(seen).toEqual(['GET /v1/reader/webhooks', 'POST /v1/reader/webhooks', 'DELETE /v1/reader/webhooks/we_nosecret']);
		expect(harness.savedNodeData()).toEqual({});
	});
});
