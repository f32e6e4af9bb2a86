import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow } from '../../harness';
import type { RouteFault } from '../../sandbox';
import { useSandbox } from '../../sandbox/useSandbox';
import { serviceApi } from '../../sandbox/credential';

// What a hostile or broken Service (or anything between it and n8n) can do to the Reader: the token
// never leaves the Service, no wait and no answer is unbounded, and nothing is sent twice once the
// Service has answered.
const sandbox = useSandbox();
let elsewhere: { https: HttpsServer; http: HttpServer; httpsUrl: string; httpUrl: string; received: IncomingMessage[] };

beforeAll(async () => {
	// Another origin on the same machine: "localhost" (the receiver certificate names it), and plain http.
	const received: IncomingMessage[] = [];
	const record = (req: IncomingMessage, res: { end(body: string): void }) => {
		received.push(req);
		res.end('{"data":[{"stolen":true}],"secret":"whsec_AAAA"}');
	};
	const https = createHttpsServer({ key: sandbox.receiverTls.key, cert: sandbox.receiverTls.cert }, record);
	const http = createHttpServer(record);
	await Promise.all([https, http].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
	elsewhere = {
		https,
		http,
		httpsUrl: `https://localhost:${(https.address() as AddressInfo).port}`,
		httpUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
		received,
	};
});

afterAll(async () => {
	for (const server of [elsewhere.https, elsewhere.http]) {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	}
});

beforeEach(() => {
	sandbox.control.clearFaults();
	elsewhere.received.length = 0;
});

const run = async (parameters: INodeParameters, advanced: IDataObject = {}) =>
	await runWorkflow(readerWorkflow(parameters), {
		credentials: { serviceApi: serviceApi(sandbox, { advanced }) },
	});

const catalogue = { resource: 'webhook', operation: 'getCatalogue' };
const decisions = { resource: 'decision', operation: 'getAll', returnAll: true };
const received = (path: string) => sandbox.control.requests({ path }).length;

describe('redirects are never followed: the token goes to the Service only', () => {
	test.each([
		['another host', 302, () => `${elsewhere.httpsUrl}/collect?token=x`, () => `localhost:${elsewhere.httpsUrl.split(':')[2]}`],
		['plain http', 301, () => `${elsewhere.httpUrl}/collect`, () => elsewhere.httpUrl],
		['the same host', 308, () => `${sandbox.baseUrl}/v1/reader/webhooks/catalogue?again=1`, () => `127.0.0.1:${sandbox.port}`],
	])('a %s redirect (%i) on a GET fails the item, naming the status and the host only', async (_, status, location, host) => {
		sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'redirect', status, location: location() } as RouteFault);

		const result = await run(catalogue);

		const error = result.error(READER);
		expect(error?.message).toBe(`The Service answered with a redirect (${status} to ${host()}), which is not followed`);
		expect(error?.description).toContain('The access token is sent to the Base URL only');
		expect(`${error?.message} ${error?.description}`).not.toContain('collect');
		expect(result.output(READER)).toEqual([]);
		expect(elsewhere.received).toHaveLength(0);
		// Not retried either: a redirect is an answer.
		expect(received('/v1/reader/webhooks/catalogue')).toBe(1);
	});

	test('a 307 on Create Endpoint forwards neither the token nor the body, and no secret from elsewhere is output', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/webhooks', method: 'POST', mode: 'redirect', status: 307, location: `${elsewhere.httpsUrl}/v1/reader/webhooks` });

		const result = await run({ resource: 'webhook', operation: 'createEndpoint', url: 'https://hooks.buyer.example/x' });

		expect(result.error(READER)?.message).toMatch(/^The Service answered with a redirect \(307 to localhost:\d+\), which is not followed$/);
		expect(result.output(READER)).toEqual([]);
		expect(elsewhere.received).toHaveLength(0);
		expect(received('/v1/reader/webhooks')).toBe(1);
	});

	test('a redirect answering page 2 fails the export, naming page 2; nothing reaches the other host', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/exports/portfolio', mode: 'redirect', status: 302, location: `${elsewhere.httpsUrl}/page2`, skip: 1 });

		const result = await run({ resource: 'portfolio', operation: 'getAll', returnAll: true }, { pageSizeParameter: sandbox.dialect.pageSizeParameter, pageSize: 2 });

		expect(result.error(READER)?.message).toMatch(/^The Service answered with a redirect \(302 to localhost:\d+\), which is not followed$/);
		expect(result.error(READER)?.description).toMatch(/^Page 2 of the portfolio export \(fetched with cursor "[^"]+"\) failed\. The 2 rows of the 1 earlier page were not passed on/);
		expect(result.output(READER)).toEqual([]);
		expect(elsewhere.received).toHaveLength(0);
		expect(received('/v1/reader/exports/portfolio')).toBe(2);
	});
});

describe('nothing hangs', () => {
	test('a Service that accepts the request and never answers fails the item after the Request Timeout, without retrying', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'hang' });
		const started = Date.now();

		const result = await run(catalogue, { requestTimeout: 1 });

		const took = Date.now() - started;
		expect(result.error(READER)?.message).toBe('The Service did not answer within 1 second');
		expect(result.error(READER)?.description).toContain('raise Request Timeout under Advanced');
		expect(received('/v1/reader/webhooks/catalogue')).toBe(1);
		expect(took).toBeGreaterThanOrEqual(900);
		expect(took).toBeLessThan(15_000);
	});

	test('a JSON answer that stops part-way fails on the idle timeout, not after the whole export', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/exports/decisions', mode: 'stall' });
		const started = Date.now();

		const result = await run(decisions, { requestTimeout: 1 });

		// Idle bound and whole-answer deadline are both 1 s: when the deadline ends the stall first, it is still named a stall (its silence so far).
		expect(result.error(READER)?.message).toMatch(/could not be read: the Service sent nothing for (1|0\.\d) s in the middle of its answer$/);
		expect(result.error(READER)?.description).toContain('Page 1 of the');
		expect(result.error(READER)?.description).toContain('The Service stopped sending part-way, so the answer is incomplete');
		expect(received('/v1/reader/exports/decisions')).toBe(1);
		expect(Date.now() - started).toBeLessThan(15_000);
	});

	test('an answer sent a byte at a time, never pausing as long as the Request Timeout, fails once the whole Request Timeout has passed', async () => {
		// 60 bytes at one every 250 ms would take 15 s; each pause is well under the 1 s timeout.
		const body = JSON.stringify({ data: [{ event_type: 'ledger_high', description: 'x'.repeat(20) }] });
		sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'drip', everyMs: 250, body });
		const started = Date.now();

		const result = await run(catalogue, { requestTimeout: 1 });

		const took = Date.now() - started;
		expect(result.error(READER)?.message).toBe(
			"The Service's answer could not be read: the Service took longer than 1 s, the Request Timeout, to send its whole answer",
		);
		expect(result.error(READER)?.description).toContain('raise Request Timeout under Advanced Settings');
		expect(received('/v1/reader/webhooks/catalogue')).toBe(1);
		expect(took).toBeLessThan(5_000);
	});

	test('a 429 asking to wait longer than the retry budget fails at once, saying how long the Service asked', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'answer', status: 429, contentType: 'application/json', body: '{}', headers: { 'Retry-After': '120' } });
		const started = Date.now();

		const result = await run(catalogue);

		expect(result.error(READER)?.message).toBe('The Service asked to wait 120 seconds (429, Retry-After), beyond the 60 seconds the node waits; try later');
		expect(result.error(READER)?.description).toContain('more than the 60 seconds left of the 60 seconds this node waits in all for one request');
		expect(received('/v1/reader/webhooks/catalogue')).toBe(1);
		expect(Date.now() - started).toBeLessThan(5_000);
	});

	test.each([
		['RateLimit-Reset', () => '120', 'RateLimit-Reset'],
		['X-RateLimit-Reset as a Unix time', () => String(Math.floor(Date.now() / 1000) + 121), 'X-RateLimit-Reset'],
	])('a 429 with %s and no Retry-After is read the same way: the wait it asks for counts', async (_label, value, header) => {
		sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'answer', status: 429, contentType: 'application/problem+json', body: '{"title":"Too Many Requests","status":429}', headers: { [header]: value() } });
		const started = Date.now();

		const result = await run(catalogue);

		expect(result.error(READER)?.message).toMatch(new RegExp(`^The Service asked to wait 12[01] seconds \\(429, ${header}\\), beyond the 60 seconds the node waits; try later$`));
		expect(received('/v1/reader/webhooks/catalogue')).toBe(1);
		expect(Date.now() - started).toBeLessThan(5_000);
	});

	test('a streamed CSV file that stops part-way fails the item: no half file is passed on', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/exports/portfolio', mode: 'stall', contentType: 'text/csv' });
		const started = Date.now();

		const result = await run({ resource: 'portfolio', operation: 'getAll', returnAll: true, output: 'file' }, { requestTimeout: 1 });

		expect(result.error(READER)?.message).toBe("The Service's answer for page 1 of the portfolio export could not be read");
		expect(result.error(READER)?.description).toBe(
			'Page 1 of the portfolio export (fetched without a cursor) failed. Nothing was passed on. the Service sent nothing for 1 s in the middle of its answer.',
		);
		expect(result.output(READER)).toEqual([]);
		expect(Date.now() - started).toBeLessThan(15_000);
	});

	test('a CSV export written as one file fails once the file passes Max File Size, counted as written', async () => {
		const result = await run({ resource: 'portfolio', operation: 'getAll', returnAll: true, output: 'file' }, { maxFileSize: 0.0005 });

		// One page larger than the limit is stopped as it streams; several smaller ones, by the file's total.
		expect(`${result.error(READER)?.message} ${result.error(READER)?.description}`).toMatch(/the file is larger than 524 bytes, the Max File Size/);
		expect(result.output(READER)).toEqual([]);
	});

	test('pages each under Max File Size fail the item once the file they make passes it', async () => {
		const paged = { pageSizeParameter: sandbox.dialect.pageSizeParameter, pageSize: 3 };
		const whole = await run({ resource: 'portfolio', operation: 'getAll', returnAll: true, output: 'file' }, paged);
		const bytes = whole.output(READER)[0].binary!.data.bytes!;

		const result = await run({ resource: 'portfolio', operation: 'getAll', returnAll: true, output: 'file' }, { ...paged, maxFileSize: (bytes - 1) / 1024 / 1024 });

		expect(result.error(READER)?.description).toContain(`The file grew past ${bytes - 1} bytes, the Max File Size under Advanced Settings in the Service API credential`);
		expect(result.output(READER)).toEqual([]);
	});

	test('an audit pack larger than Max File Size fails the item, whatever Content-Length said', async () => {
		const result = await run({ resource: 'auditPack', operation: 'get', ke: 'KE-1001', packId: 'AP-1001-1' }, { maxFileSize: 0.0001 });

		expect(result.error(READER)?.message).toBe('Audit pack AP-1001-1 could not be downloaded whole: the file is larger than 105 bytes, the Max File Size');
		expect(result.error(READER)?.description).toContain('raise Max File Size under Advanced Settings');
		expect(result.output(READER)).toEqual([]);
	});

	test('an audit pack that stops part-way fails the item', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/exports/audit-packs/KE-1001/AP-1001-1', mode: 'stall', contentType: 'application/zip' });

		const result = await run({ resource: 'auditPack', operation: 'get', ke: 'KE-1001', packId: 'AP-1001-1' }, { requestTimeout: 1 });

		expect(result.error(READER)?.message).toBe(
			'Audit pack AP-1001-1 could not be downloaded whole: the Service sent nothing for 1 s in the middle of its answer',
		);
		expect(result.output(READER)).toEqual([]);
	});
});

describe('nothing unbounded', () => {
	test('a JSON answer over Max Response Size fails the item once the cap is passed, and is not fetched again', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/exports/decisions', mode: 'oversize', bytes: 200 * 1024 * 1024 });
		const heapBefore = process.memoryUsage().heapUsed;
		const started = Date.now();

		const result = await run(decisions, { maxResponseSize: 1 });

		expect(result.error(READER)?.message).toBe(
			"The Service's answer could not be read: the answer is larger than 1 MiB, the Max Response Size",
		);
		expect(result.error(READER)?.description).toContain('raise Max Response Size under Advanced');
		expect(received('/v1/reader/exports/decisions')).toBe(1);
		// 200 MiB were on offer: reading stopped near the cap.
		expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
		expect(Date.now() - started).toBeLessThan(20_000);
	});

	test('a Service whose cursors never end fails the item at Max Pages, saying so', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/exports/decisions', mode: 'endlessCursor' });

		const result = await run(decisions, { maxPages: 25 });

		expect(result.error(READER)?.message).toBe('The decisions export did not end after 25 pages, the Max Pages limit');
		expect(result.error(READER)?.description).toContain('The 25 rows fetched were not passed on');
		expect(result.error(READER)?.description).toContain('raise Max Pages under Advanced');
		expect(received('/v1/reader/exports/decisions')).toBe(25);
	});

	test('Max Pages defaults to 100,000: an endless chain is not cut short at a small number', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/exports/decisions', mode: 'endlessCursor', times: 150 });
		sandbox.control.failRoute({ path: '/v1/reader/exports/decisions', mode: 'answer', status: 200, contentType: 'application/json', body: '{"data":[{"page":"last"}]}' });

		const result = await run(decisions);

		expect(result.error(READER)).toBeUndefined();
		expect(result.output(READER)).toHaveLength(151);
	});
});

describe('what the Service says never carries the token', () => {
	test('an error body quoting the token shows *** in the error', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'echoToken', status: 400 });

		const result = await run(catalogue);

		const error = result.error(READER);
		expect(error?.message).toBe('The Service refused the request (400): The token *** may not do this.');
		expect(JSON.stringify(error)).not.toContain(sandbox.tokens.reader);
	});

	test('an answer quoting the token shows *** in the item', async () => {
		sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'echoToken', status: 200 });

		const result = await run(catalogue);

		expect(result.output(READER).map((item) => item.json)).toEqual([{ note: 'issued to ***' }]);
	});
});

describe('Create Endpoint: a 2xx without a usable secret is an error, not an item', () => {
	test.each([
		['not JSON', 'text/html', '<html>Welcome</html>', /^The Service answered with something that is not JSON \(text\/html\)$/, 'It sent: "<html>Welcome</html>"'],
		['no secret', 'application/json', '{"id":"wh_9","url":"https://hooks.buyer.example/x"}', /^The Service created the endpoint but returned no signing secret$/, 'the fields id, url'],
	])('%s', async (_, contentType, body, message, description) => {
		sandbox.control.failRoute({ path: '/v1/reader/webhooks', method: 'POST', mode: 'answer', status: 201, contentType, body });

		const result = await run({ resource: 'webhook', operation: 'createEndpoint', url: 'https://hooks.buyer.example/x' });

		expect(result.error(READER)?.message).toMatch(message);
		expect(result.error(READER)?.description).toContain(description);
		expect(result.output(READER)).toEqual([]);
		expect(received('/v1/reader/webhooks')).toBe(1);
	});
});
