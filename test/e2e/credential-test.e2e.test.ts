import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import { PROBE_LIMITS } from '../../nodes/shared/settingsCheck/types';
import { startSandbox, type Sandbox } from '../sandbox';
import { settingsToldIn, testSavedCredential, toldToSet } from './credential-test';
import { nodeItems, packPackage, startN8n, type N8n } from './n8n';
import { repoRoot } from './n8n-install';

/**
 * The Service API credential's Test in a real n8n (N8N_E2E_VERSION chooses 1.x or 2.x), as the credential
 * dialog calls it: a Service speaking the documented defaults, one that chose differently where the spec
 * says "not shown" (the sandbox's alt dialect), then that one's credential with the settings the message
 * names entered, running a portfolio export.
 */
const ids = { defaults: 'svcCheckDefaults', alt: 'svcCheckAltBare', altSet: 'svcCheckAltSet01', workflow: 'svcCheckPortfolio' };

/** Portfolio > Get Many as JSON and as CSV items, and Expiries within 30 days, every page, with one credential. */
function portfolioWorkflow(credentialId: string, id: string): Record<string, unknown> {
	const credentials = { serviceApi: { id: credentialId, name: credentialId } };
	const reader = (name: string, y: number, parameters: IDataObject) => ({
		parameters: { returnAll: true, options: {}, ...parameters },
		id: `c0ffee00-0000-4000-8000-00000000000${y / 200 + 2}`,
		name,
		type: 'n8n-nodes-service-reader.serviceReader',
		typeVersion: 1,
		position: [240, y],
		credentials,
	});
	const nodes = [
		{ parameters: {}, id: 'c0ffee00-0000-4000-8000-000000000001', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] },
		reader('Portfolio as JSON', 0, { resource: 'portfolio', operation: 'getAll', format: 'json' }),
		reader('Portfolio as CSV rows', 200, { resource: 'portfolio', operation: 'getAll', format: 'csv', output: 'items' }),
		reader('Expiries within 30 days', 400, { resource: 'expiry', operation: 'getAll', window: '30', format: 'json' }),
	];
	const next = nodes.slice(1).map((node) => ({ node: node.name, type: 'main', index: 0 }));
	return { id, name: `Check Settings: portfolio (${credentialId})`, nodes, connections: { Start: { main: [next] } }, settings: { executionOrder: 'v1' }, pinData: {} };
}

describe('the Service API credential test in a real n8n', () => {
	let work: string;
	let n8n: N8n | undefined;
	const services: Partial<Record<'defaults' | 'alt', Sandbox>> = {};
	const running = () => {
		if (!n8n || !services.defaults || !services.alt) throw new Error('n8n or the sandboxes did not start');
		return { n8n, defaults: services.defaults, alt: services.alt };
	};

	/** Tests the saved credential as the dialog does; returns the answer and what the Service received meanwhile. */
	async function testCredential(id: string, sandbox: Sandbox) {
		const before = sandbox.control.requests().length;
		const result = await testSavedCredential(running().n8n, id, id);
		return { result, requests: sandbox.control.requests().slice(before) };
	}

	function expectReadOnlyAndBounded(requests: ReturnType<Sandbox['control']['requests']>, token: string, message: string) {
		expect(requests.length).toBeGreaterThan(0);
		expect(requests.length).toBeLessThanOrEqual(PROBE_LIMITS.requests);
		expect([...new Set(requests.map((request) => request.method))]).toEqual(['GET']);
		expect(message).not.toContain(token);
	}

	beforeAll(async () => {
		work = await mkdtemp(join(tmpdir(), 'service-credential-test-'));
		// 4 rows a page: the demo portfolio's 10 companies come in 3 pages, so the cursor must be followed.
		services.defaults = await startSandbox({ dialect: 'default', pageSize: 4 });
		services.alt = await startSandbox({ dialect: 'alt', pageSize: 4 });
		n8n = await startN8n({
			trustedCas: [services.defaults.ca, services.alt.ca],
			communityPackages: [await packPackage(repoRoot, work)],
		});
		// Base URL and Access Token only, as a new user fills them in.
		await n8n.importCredentials([
			{ id: ids.defaults, name: ids.defaults, type: 'serviceApi', data: { baseUrl: services.defaults.baseUrl, accessToken: services.defaults.tokens.reader } },
			{ id: ids.alt, name: ids.alt, type: 'serviceApi', data: { baseUrl: services.alt.baseUrl, accessToken: services.alt.tokens.reader } },
		]);
	}, 300_000);

	afterAll(async () => {
		await n8n?.stop();
		await services.defaults?.close();
		await services.alt?.close();
		if (work) await rm(work, { recursive: true, force: true });
	}, 60_000);

	test('a Service speaking the documented defaults: OK, with GETs only, within the request bound, the token in no word', async () => {
		const { defaults } = running();
		const { result, requests } = await testCredential(ids.defaults, defaults);
		expect(result).toEqual({ status: 'OK', message: expect.any(String) });
		expect(toldToSet(result.message)).toEqual([]);
		expectReadOnlyAndBounded(requests, defaults.tokens.reader, result.message);
	}, 90_000);

	test('a Service that chose differently (alt): Error, naming each setting with its value and what only writing would tell', async () => {
		const { alt } = running();
		const { result, requests } = await testCredential(ids.alt, alt);
		// n8n's dialog shows a message only for Error (docs/token-and-limits.md, "What the credential dialog shows").
		expect(result.status).toBe('Error');
		expect(result.message).toContain('Set Cursor Parameter to `after`');
		expect(result.message).toContain('Set JSON Format Value to `application/json`');
		// Exactly what this Service needs for reading, in the credential's own fields: nothing more, nothing guessed.
		const names = alt.dialect.request.names;
		expect(settingsToldIn(result.message)).toEqual({
			cursorParameter: alt.dialect.cursorParameter,
			jsonFormat: alt.dialect.jsonFormat,
			requestNames: {
				name: expect.arrayContaining([
					{ concept: 'export.json_format', serviceName: names['export.json_format'] },
					{ concept: 'export.window', serviceName: names['export.window'] },
				]),
			},
		});
		expect((settingsToldIn(result.message).requestNames as { name: unknown[] }).name).toHaveLength(2);
		// Said, not tried: webhook creation and the import would have to write.
		expect(result.message).toContain('Secret Encoding');
		expect(result.message).toContain('Import Upload');
		expectReadOnlyAndBounded(requests, alt.tokens.reader, result.message);
	}, 90_000);

	test('with the settings entered as the message says: OK, and the portfolio export runs; without them it fails naming a setting', async () => {
		const { n8n, alt } = running();
		const { result: bare } = await testCredential(ids.alt, alt);
		const told = settingsToldIn(bare.message);
		expect(Object.keys(told).length).toBeGreaterThanOrEqual(2);
		await n8n.importCredentials([
			{ id: ids.altSet, name: ids.altSet, type: 'serviceApi', data: { baseUrl: alt.baseUrl, accessToken: alt.tokens.reader, advancedSettings: true, ...told } },
		]);
		const { result: set } = await testCredential(ids.altSet, alt);
		expect(set).toEqual({ status: 'OK', message: expect.any(String) });

		const shared = alt.control.shares().filter((share) => share.state === 'shared').map((share) => share.ke).sort();
		const [withSettings, withoutSettings] = await n8n.importWorkflows([
			portfolioWorkflow(ids.altSet, ids.workflow),
			portfolioWorkflow(ids.alt, `${ids.workflow}0`),
		]);
		const before = alt.control.requests().length;
		const run = await n8n.executeWorkflow(withSettings);
		expect(run.data.resultData.error).toBeUndefined();
		expect(nodeItems(run, 'Portfolio as JSON').map((item) => item.ke).sort()).toEqual(shared);
		expect(nodeItems(run, 'Portfolio as CSV rows').map((item) => item.ke).sort()).toEqual(shared);
		// The Service was asked in its own words: pages followed under `after`, JSON as `output=application/json`, the window as `within_days`.
		const asked = alt.control.requests().slice(before);
		const portfolio = asked.filter((request) => request.path === '/v1/reader/exports/portfolio');
		expect(portfolio.filter((request) => request.query.after !== undefined).length).toBeGreaterThanOrEqual(4);
		expect(portfolio.some((request) => request.query.output === 'application/json')).toBe(true);
		expect(asked.filter((request) => request.path === '/v1/reader/exports/expiries').map((request) => request.query.within_days)).toContain('30');
		expect(asked.map((request) => request.status)).not.toContain(400);

		// The same workflow on the credential as first filled in fails, and its error names the setting to change.
		const bareRun = await n8n.executeWorkflow(withoutSettings);
		expect(bareRun.status).toBe('error');
		expect(JSON.stringify(bareRun.data.resultData.error)).toMatch(/Cursor Parameter|JSON Format Value|Request Names/);
	}, 180_000);
});
