import type { INodeParameters } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow, trustCa } from '../../harness';
import { certificates } from '../../tls/certificates';
import { listenHttps, type LocalHttpsServer } from '../../tls/httpsServer';

// Which answers the transport tries again. A scripted HTTPS stand-in answers each request in turn,
// because the sandbox only injects faults into paged listings.
describe('retries', () => {
	let server: LocalHttpsServer;
	let baseUrl: string;
	let script: Array<{ status: number; headers?: Record<string, string>; body: string }> = [];
	let received: string[] = [];

	beforeAll(async () => {
		const { ca, leaves } = await certificates('Retries Test CA', { service: 'scripted Service' });
		trustCa(ca);
		server = await listenHttps(leaves.service, (req, res) => {
			received.push(`${req.method} ${req.url}`);
			const answer = script.shift() ?? { status: 500, body: '{"error":{"message":"script exhausted"}}' };
			req.resume();
			req.on('end', () => {
				res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
				res.end(answer.body);
			});
		});
		baseUrl = server.origin;
	});

	afterAll(async () => {
		await server.close();
	});

	beforeEach(() => {
		received = [];
	});

	const run = async (parameters: INodeParameters) =>
		await runWorkflow(readerWorkflow(parameters), {
			credentials: { serviceApi: { baseUrl, accessToken: 'svc_test_token' } },
		});

	const createInvitation = {
		resource: 'invitation',
		operation: 'create',
		companyName: 'Acme Ltd',
		registrationNumber: 'GB1',
		workEmail: 'buyer@acme.example',
		additionalFields: {},
	};

	test('a POST answered 503 is not sent again: the Service may already have acted on it', async () => {
		script = [
			{ status: 503, body: '{"error":{"code":"unavailable","message":"Try later"}}' },
			{ status: 201, body: '{"id":"inv_1"}' },
		];

		const result = await run(createInvitation);

		expect(received).toEqual(['POST /v1/reader/invitations']);
		expect(result.error(READER)?.message).toBe('The outcome of this write is unknown: the Service answered 503');
	});

	test('a POST answered 429 is sent again after Retry-After, and succeeds', async () => {
		script = [
			{ status: 429, headers: { 'Retry-After': '0' }, body: '{"error":{"code":"rate_limited"}}' },
			{ status: 201, body: '{"id":"inv_2","status":"sent"}' },
		];

		const result = await run(createInvitation);

		expect(received).toEqual(['POST /v1/reader/invitations', 'POST /v1/reader/invitations']);
		expect(result.output(READER).map((item) => item.json)).toEqual([{ id: 'inv_2', status: 'sent' }]);
	});

	test('a GET answered 503 is tried again and then succeeds', async () => {
		script = [
			{ status: 503, body: '{}' },
			{ status: 200, body: '{"data":[{"event_type":"ledger_high"}]}' },
		];

		const result = await run({ resource: 'webhook', operation: 'getCatalogue' });

		expect(received).toEqual(['GET /v1/reader/webhooks/catalogue', 'GET /v1/reader/webhooks/catalogue']);
		expect(result.output(READER).map((item) => item.json)).toEqual([{ event_type: 'ledger_high' }]);
	});

	test('a 503 carrying RateLimit headers with quota left (sent on every answer) keeps its short backoff: they ask for no wait', async () => {
		const informational = { RateLimit: '"default";r=42;t=3600', 'RateLimit-Policy': '"default";q=100;w=3600' };
		script = [
			{ status: 503, headers: informational, body: '{}' },
			{ status: 200, headers: informational, body: '{"data":[{"event_type":"ledger_high"}]}' },
		];
		const started = Date.now();

		const result = await run({ resource: 'webhook', operation: 'getCatalogue' });

		expect(result.output(READER).map((item) => item.json)).toEqual([{ event_type: 'ledger_high' }]);
		expect(received).toHaveLength(2);
		expect(Date.now() - started).toBeLessThan(5_000);
	});

	test('a 429 whose RateLimit says the quota is spent waits its t= seconds, then succeeds', async () => {
		script = [
			{ status: 429, headers: { RateLimit: '"burst";r=0;t=1, "daily";r=900;t=80000', 'RateLimit-Policy': '"burst";q=10;w=1, "daily";q=1000;w=86400' }, body: '{}' },
			{ status: 200, body: '{"data":[{"event_type":"ledger_high"}]}' },
		];
		const started = Date.now();

		const result = await run({ resource: 'webhook', operation: 'getCatalogue' });

		expect(result.output(READER).map((item) => item.json)).toEqual([{ event_type: 'ledger_high' }]);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
	});

	test('a GET that keeps failing stops after four attempts with the status in words', async () => {
		script = Array.from({ length: 4 }, () => ({ status: 502, body: '{"error":{"message":"bad gateway"}}' }));

		const result = await run({ resource: 'webhook', operation: 'getCatalogue' });

		expect(received).toHaveLength(4);
		expect(result.error(READER)?.message).toBe('The Service failed to answer (502 after 4 attempts)');
		expect(result.error(READER)?.description).toContain('The Service said: "bad gateway"');
	});
});
