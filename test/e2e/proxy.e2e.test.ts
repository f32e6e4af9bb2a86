import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventCatalogue, startSandbox, type ReceivedRequest, type Sandbox } from '../sandbox';
import { startConnectProxy, type ConnectProxy, type ProxyLogEntry } from './fixtures/connect-proxy';
import { startHttpsJsonServer, type HttpsJsonServer } from './fixtures/https-json-server';
import { freePort } from './free-port';
import { n8nTls, nodeItems, packPackage, startN8n, type ExecuteResult, type N8n } from './n8n';
import { repoRoot } from './n8n-install';
import { waitFor } from './wait-for';

// Behind a corporate proxy: n8n has HTTPS_PROXY (and NO_PROXY=localhost, which does not cover the
// Service), and the Service's address is one only the proxy can reach: https://127.0.0.1:<port>
// where nothing listens on <port>; the proxy maps CONNECT 127.0.0.1:<port> to the sandbox. A request
// that went around the proxy would fail with ECONNREFUSED, and every request the sandbox logs with
// that Host came through a tunnel the proxy logged.

const credentialId = 'svcProxyCred0001';
const slowCredentialId = 'svcProxyCredSlow';
const ids = { reads: 'svcProxyReads001', catalogue: 'svcProxyCatalog1', slow: 'svcProxySlowCat1', trigger: 'svcProxyTrigger1' };
const webhookId = '5e0c9a1b-2d3f-4e5a-8b6c-7d8e9f0a1b2c';
const triggerNode = 'Service Trigger';
/** n8n's own calls home, which go through the proxy too. */
const callHome = /\.n8n\.io:443$/;

const reader = (name: string, y: number, parameters: Record<string, unknown>, credential = credentialId) => ({
	id: name, name, type: 'n8n-nodes-service-reader.serviceReader', typeVersion: 1, position: [260, y], parameters,
	credentials: { serviceApi: { id: credential, name: credential } },
});

/** Manual Trigger -> each Reader node, one branch each (run one after the other, top first). */
function readerWorkflow(id: string, nodes: Array<ReturnType<typeof reader>>) {
	return {
		id,
		name: `Proxy ${id}`,
		settings: { executionOrder: 'v1' },
		nodes: [{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }, ...nodes],
		connections: { Start: { main: [nodes.map((node) => ({ node: node.name, type: 'main', index: 0 }))] } },
	};
}

const portfolio = reader('Portfolio: every page', 0, { resource: 'portfolio', operation: 'getAll', returnAll: true, options: {} });
const record = reader('Record: KE-1001', 200, { resource: 'record', operation: 'get', ke: 'KE-1001', options: {} });
const catalogue = reader('Webhook catalogue', 400, { resource: 'webhook', operation: 'getCatalogue' });
const slowCatalogue = reader('Webhook catalogue', 0, { resource: 'webhook', operation: 'getCatalogue' }, slowCredentialId);

describe('behind an HTTPS proxy (HTTPS_PROXY set, NO_PROXY not covering the Service)', () => {
	let work: string | undefined;
	let sandbox: Sandbox | undefined;
	let proxy: ConnectProxy | undefined;
	let elsewhere: HttpsJsonServer | undefined;
	let n8n: N8n | undefined;
	/** host:port of the Service as the credential names it: reachable only through the proxy. */
	let service = '';
	/** How long the node waited on the hanging Service, for the log. */
	let hangMs: number | undefined;
	const running = () => {
		if (!sandbox || !proxy || !elsewhere || !n8n) throw new Error('the proxy setup did not start');
		return { sandbox, proxy, elsewhere, n8n };
	};

	/** What the proxy and the sandbox saw while `action` ran. */
	async function observe<T>(action: () => Promise<T>): Promise<{ result: T; connects: ProxyLogEntry[]; requests: ReceivedRequest[] }> {
		const { sandbox, proxy } = running();
		const [connectsBefore, requestsBefore] = [proxy.log.length, sandbox.control.requests().length];
		const result = await action();
		return { result, connects: proxy.log.slice(connectsBefore), requests: sandbox.control.requests().slice(requestsBefore) };
	}

	/**
	 * Every request came in on a tunnel the proxy opened to the Service's proxy-only address, one CONNECT
	 * each. (n8n's own background calls home, if one falls in the window, are left to the last test.)
	 */
	function expectThroughProxy(seen: { connects: ProxyLogEntry[]; requests: ReceivedRequest[] }) {
		expect(seen.requests.length).toBeGreaterThan(0);
		for (const request of seen.requests) expect(request.headers.host).toBe(service);
		const connects = seen.connects.filter((entry) => !callHome.test(entry.target));
		expect(connects.map((entry) => `${entry.method} ${entry.target} ${entry.outcome}`)).toEqual(
			seen.requests.map(() => `CONNECT ${service} tunnelled to 127.0.0.1:${running().sandbox.port}`),
		);
	}

	beforeAll(async () => {
		work = await mkdtemp(join(tmpdir(), 'service-e2e-proxy-'));
		const tarball = await packPackage(repoRoot, join(work, 'tarballs'));
		const userFolder = join(work, 'n8n');
		// 4 rows a page: the demo portfolio's 10 shared companies come in 3 pages. The sandbox delivers
		// webhooks to n8n directly (inbound traffic does not use n8n's proxy), so it trusts n8n's CA.
		sandbox = await startSandbox({ seed: 'demo', pageSize: 4, trustedCas: [(await n8nTls(userFolder)).ca] });
		elsewhere = await startHttpsJsonServer(join(work, 'elsewhere-tls'));
		service = `127.0.0.1:${await freePort()}`;
		proxy = await startConnectProxy({ routes: { [service]: { host: '127.0.0.1', port: sandbox.port } } });
		const proxyEnv = {
			HTTPS_PROXY: proxy.url,
			https_proxy: proxy.url,
			HTTP_PROXY: proxy.url,
			http_proxy: proxy.url,
			NO_PROXY: 'localhost',
			no_proxy: 'localhost',
		};
		n8n = await startN8n({ userFolder, trustedCas: [sandbox.ca, elsewhere.ca], communityPackages: [tarball], env: proxyEnv });
		const data = { baseUrl: `https://${service}`, accessToken: sandbox.tokens.reader };
		await n8n.importCredentials([
			{ id: credentialId, name: credentialId, type: 'serviceApi', data },
			{ id: slowCredentialId, name: slowCredentialId, type: 'serviceApi', data: { ...data, advancedSettings: true, requestTimeout: 2 } },
		]);
		await n8n.importWorkflows([
			readerWorkflow(ids.reads, [portfolio, record, catalogue]),
			readerWorkflow(ids.catalogue, [{ ...catalogue, position: [260, 0] }]),
			readerWorkflow(ids.slow, [slowCatalogue]),
			{
				id: ids.trigger,
				name: 'Proxy trigger',
				settings: { executionOrder: 'v1' },
				nodes: [
					{
						id: 't1', name: triggerNode, type: 'n8n-nodes-service-reader.serviceTrigger', typeVersion: 2, position: [0, 0], webhookId,
						parameters: { events: ['ledger_high'], ignoreRedeliveries: true },
						credentials: { serviceApi: { id: credentialId, name: credentialId } },
					},
				],
				connections: {},
			},
		]);
	}, 300_000);

	afterAll(async () => {
		// The whole proxy log, as evidence in the test output.
		if (proxy) console.log(`Hanging Service given up after ${hangMs} ms. Proxy log (${proxy.log.length}):\n${proxy.log.map((e) => `${new Date(e.at).toISOString()} ${e.method} ${e.target} -> ${e.outcome}`).join('\n')}`);
		await n8n?.stop();
		await proxy?.close();
		await elsewhere?.close();
		await sandbox?.close();
		if (work) await rm(work, { recursive: true, force: true });
	}, 60_000);

	test('the Service\'s address in the credential answers only through the proxy', async () => {
		const [host, port] = service.split(':');
		const direct = await new Promise<string>((resolve) => {
			const socket = connect(Number(port), host);
			socket.once('connect', () => {
				socket.destroy();
				resolve('connected');
			});
			socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
		});
		expect(direct).toBe('ECONNREFUSED');
	});

	test('the credential test reaches the Service through the proxy', async () => {
		const { n8n } = running();
		// What the credential dialog does: open the credential (secrets redacted), then Test.
		const opened = await n8n.rest('GET', `/rest/credentials/${credentialId}?includeData=true`);
		const { data } = opened.json<{ data: { data: Record<string, unknown> } }>().data;
		const seen = await observe(() =>
			n8n.rest('POST', '/rest/credentials/test', { credentials: { id: credentialId, name: credentialId, type: 'serviceApi', data } }),
		);
		expect(seen.result.status).toBe(200);
		expect(seen.result.json()).toEqual({ data: { status: 'OK', message: expect.any(String) } });
		// Check Settings: GETs only, at most 40, the first the catalogue, signed in as the reader.
		expect(seen.requests.length).toBeGreaterThan(0);
		expect(seen.requests.length).toBeLessThanOrEqual(40);
		expect([...new Set(seen.requests.map((request) => request.method))]).toEqual(['GET']);
		expect([seen.requests[0].path, seen.requests[0].reader, seen.requests[0].status]).toEqual(['/v1/reader/webhooks/catalogue', 'reader', 200]);
		expectThroughProxy(seen);
	}, 60_000);

	test('Portfolio Get Many (Return All, 3 pages), Record Get and Webhook Get Catalogue reach the Service through the proxy', async () => {
		const { n8n, sandbox } = running();
		const seen = await observe(() => n8n.executeWorkflow(ids.reads));
		const run = seen.result;
		expect(run.data.resultData.error).toBeUndefined();

		const shared = sandbox.control.shares().filter((share) => share.state === 'shared');
		expect(shared).toHaveLength(10);
		expect(nodeItems(run, portfolio.name).map((item) => item.ke).sort()).toEqual(shared.map((share) => share.ke).sort());
		expect(nodeItems(run, record.name)).toEqual([expect.objectContaining({ ke: 'KE-1001' })]);
		expect(nodeItems(run, catalogue.name).map((item) => item.event_type).sort()).toEqual(
			eventCatalogue.map((entry) => entry.event_type).sort(),
		);

		// Three pages (the second and third asked for with the cursor), the record, the catalogue.
		expect(seen.requests.map((request) => [request.method, request.path, 'cursor' in request.query, request.status])).toEqual([
			['GET', '/v1/reader/exports/portfolio', false, 200],
			['GET', '/v1/reader/exports/portfolio', true, 200],
			['GET', '/v1/reader/exports/portfolio', true, 200],
			['GET', '/v1/reader/exports/records/KE-1001', false, 200],
			['GET', '/v1/reader/webhooks/catalogue', false, 200],
		]);
		expectThroughProxy(seen);
	}, 120_000);

	test('activating the trigger registers its endpoint through the proxy, deliveries start executions, deactivating deletes it through the proxy', async () => {
		const { n8n, sandbox } = running();
		const url = `${n8n.url}/webhook/${webhookId}/webhook`;
		const storedUrls = async () => {
			const workflow = await n8n.api.request<{ staticData?: Record<string, { endpoints?: object }> | null }>('GET', `/workflows/${ids.trigger}`);
			return Object.keys(workflow.staticData?.[`node:${triggerNode}`]?.endpoints ?? {});
		};

		// The activate call answers before n8n has registered the endpoint: ready once both sides have it.
		const activation = await observe(async () => {
			await n8n.api.activateWorkflow(ids.trigger);
			return await waitFor(
				async () => {
					const endpoint = sandbox.control.webhookEndpoints().find((candidate) => candidate.url === url);
					return endpoint && (await storedUrls()).includes(url) ? endpoint : undefined;
				},
				{ what: 'the trigger\'s endpoint, registered and stored', timeoutMs: 60_000 },
			);
		});
		const endpoint = activation.result;
		// It looks for endpoints already at its URL (none), then registers one.
		expect(activation.requests.map((request) => [request.method, request.path, request.status, request.body ? JSON.parse(request.body) : ''])).toEqual([
			['GET', '/v1/reader/webhooks', 200, ''],
			['POST', '/v1/reader/webhooks', 201, { url }],
		]);
		expectThroughProxy(activation);

		// Deliveries come from the Service to n8n, not through n8n's proxy; they still verify.
		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1001' });
		const deliveries = await sandbox.control.whenSettled(alert.alertId);
		expect(deliveries.flatMap((delivery) => delivery.attempts.map((attempt) => attempt.status))).toEqual([200]);
		const [execution] = await n8n.api.waitForExecutions(ids.trigger, 1);
		expect(execution.status).toBe('success');

		const deactivation = await observe(async () => {
			await n8n.api.deactivateWorkflow(ids.trigger);
			// Like activation, the deactivate call answers before n8n has run the trigger's delete().
			return await waitFor(
				async () => (sandbox.control.requests({ method: 'DELETE' }).length > 0 && (await storedUrls()).length === 0 ? true : undefined),
				{ what: 'the DELETE of the trigger\'s endpoint', timeoutMs: 30_000 },
			);
		});
		expect(deactivation.requests.map((request) => [request.method, request.path, request.status])).toEqual([
			['DELETE', `/v1/reader/webhooks/${endpoint.id}`, 204],
		]);
		expectThroughProxy(deactivation);
		expect(sandbox.control.webhookEndpoints()).toEqual([]);
	}, 120_000);

	test('a redirect from the Service still fails the item; the other host gets nothing, not even a CONNECT', async () => {
		const { n8n, sandbox, elsewhere, proxy } = running();
		const other = elsewhere.url.replace('https://', '');
		sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'redirect', status: 302, location: `${elsewhere.url}/collect?token=x` });
		try {
			const seen = await observe(() => n8n.executeWorkflow(ids.catalogue));
			expect(seen.result.status).toBe('error');
			expect(seen.result.data.resultData.error?.message).toBe(`The Service answered with a redirect (302 to ${other}), which is not followed`);
			expect(seen.requests.map((request) => [request.method, request.path, request.status])).toEqual([['GET', '/v1/reader/webhooks/catalogue', 302]]);
			expectThroughProxy(seen);
		} finally {
			sandbox.control.clearFaults();
		}
		expect(elsewhere.requests).toEqual([]);
		expect(proxy.log.filter((entry) => entry.target.includes(other))).toEqual([]);
	}, 120_000);

	test('a Service that never answers fails the item after the credential\'s Request Timeout (2 s), through the proxy', async () => {
		const { n8n, sandbox } = running();
		sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'hang' });
		try {
			const seen = await observe(() => n8n.executeWorkflow(ids.slow));
			expect(seen.result.status).toBe('error');
			expect(seen.result.data.resultData.error?.message).toBe('The Service did not answer within 2 seconds');
			// How long the node ran, as n8n measured it (the CLI's own start-up is not in it).
			const took = nodeRunTime(seen.result, slowCatalogue.name);
			hangMs = took;
			expect(took).toBeGreaterThanOrEqual(1_900);
			expect(took).toBeLessThan(10_000);
			// Asked once, never answered, not asked again.
			expect(seen.requests.map((request) => [request.method, request.path, request.status])).toEqual([
				['GET', '/v1/reader/webhooks/catalogue', undefined],
			]);
			expectThroughProxy(seen);
		} finally {
			sandbox.control.clearFaults();
		}
	}, 120_000);

	test('nothing else went out: every other CONNECT is n8n\'s own call home, refused by the proxy', () => {
		const { proxy, n8n } = running();
		const others = proxy.log.filter((entry) => entry.target !== service);
		// n8n 2.40 itself asks https://api.n8n.io/api/mcp-servers at start (its MCP server registry), through
		// the proxy too; this proxy refuses anything not on this machine, and n8n carries on without it.
		for (const entry of others) expect({ target: entry.target, outcome: entry.outcome }).toEqual({ target: expect.stringMatching(callHome), outcome: 'refused' });
		console.log(`n8n log lines about its own outbound calls:\n${n8n.logs().split('\n').filter((line) => /api\.n8n\.io/.test(line)).join('\n')}`);
	});
});

function nodeRunTime(run: ExecuteResult, nodeName: string): number {
	const runs = run.data.resultData.runData[nodeName] as unknown as Array<{ executionTime?: number }> | undefined;
	const time = runs?.[0]?.executionTime;
	if (typeof time !== 'number') throw new Error(`Node "${nodeName}" has no execution time`);
	return time;
}
