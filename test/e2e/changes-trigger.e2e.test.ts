import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../sandbox';
import { serviceApi } from '../sandbox/credential';
import { executionItems } from './examples/executions';
import { filledExample, type ExampleWorkflow } from './examples/catalog';
import { startHttpsSink, type HttpsSink } from './fixtures/https-sink';
import { n8nTls, packPackage, startN8n, type Execution, type N8n } from './n8n';
import { repoRoot } from './n8n-install';
import { waitFor } from './wait-for';

// The Service Changes Trigger polling in a real n8n (package from its tarball): the CRM example
// (examples/portfolio-changes-to-crm.json) against the sandbox and a CRM stand-in, polled every
// minute, across an n8n restart and a page that fails mid-poll; the Google Sheets example as far as
// it runs without Google.

const trigger = 'Service Changes Trigger: portfolio';
const crmPath = '/crm/companies/';
const ids = { crm: 'svcChangesToCrm1', sheet: 'svcChangesSheet1', credential: 'svcServiceApiCr1', google: 'svcGoogleSheets1' };
/**
 * n8n refuses a poll more often than once a minute (isSubMinuteCron: a 6-field cron whose seconds
 * field is not one number); a custom 6-field cron with a fixed second is once a minute, at a known second.
 */
const everyMinute = { item: [{ mode: 'custom', cronExpression: '30 * * * * *' }] };
const pollWaitMs = 100_000;

interface ChangeItem {
	change: string;
	export: string;
	key: string;
	row: Record<string, unknown>;
	previous?: Record<string, unknown>;
}

const byKey = (items: Array<Record<string, unknown>>) =>
	[...(items as unknown as ChangeItem[])].sort((a, b) => a.key.localeCompare(b.key));

describe('Service Changes Trigger in a real n8n', () => {
	let work: string;
	let sandbox: Sandbox;
	let sink: HttpsSink;
	let n8n: N8n;
	/** Executions of the CRM example already asserted on. */
	let seen = 0;

	beforeAll(async () => {
		work = await mkdtemp(join(tmpdir(), 'service-changes-e2e-'));
		const userFolder = join(work, 'n8n');
		const n8nCa = (await n8nTls(userFolder)).ca;
		// Ten shared companies in pages of 4: a poll reads three pages, so page 2 can fail mid-poll.
		sandbox = await startSandbox({ seed: 'demo', pageSize: 4, trustedCas: [n8nCa] });
		sink = await startHttpsSink(join(work, 'sink-tls'));
		const tarball = await packPackage(repoRoot, work);
		n8n = await startN8n({ userFolder, trustedCas: [sandbox.ca, sink.ca], communityPackages: [tarball] });
		await n8n.importCredentials([
			{ id: ids.credential, name: 'Service API', type: 'serviceApi', data: serviceApi(sandbox) },
			// A Google credential as imported before signing in with Google: there is no token, and Google cannot be reached here.
			{ id: ids.google, name: 'Google Sheets account', type: 'googleSheetsOAuth2Api', data: { clientId: 'not-a-client', clientSecret: 'not-a-secret' } },
		]);
		const values = {
			credentialId: ids.credential,
			chatUrl: `${sink.url}/slack/unused`,
			crmUrl: sink.url,
			suppliersCsv: join(work, 'unused.csv'),
			companyKe: 'KE-1001',
			spreadsheetId: '1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg',
			googleCredentialId: ids.google,
		};
		const withPollTimes = (workflow: ExampleWorkflow): ExampleWorkflow => ({
			...workflow,
			nodes: workflow.nodes.map((node) =>
				node.name === trigger ? { ...node, parameters: { ...node.parameters, pollTimes: everyMinute } } : node),
		});
		await n8n.importWorkflows([
			withPollTimes(filledExample('changesCrm', ids.crm, values)),
			filledExample('changesSheet', ids.sheet, values),
		]);
	}, 300_000);

	afterAll(async () => {
		await n8n?.stop();
		await sink?.close();
		await sandbox?.close();
		if (work) await rm(work, { recursive: true, force: true });
	}, 60_000);

	const portfolioRequests = () => sandbox.control.requests({ method: 'GET', path: '/v1/reader/exports/portfolio' });
	/** Requests of the portfolio's first page: one per poll. */
	const pollsStarted = () => portfolioRequests().filter((request) => Object.keys(request.query).every((name) => name === 'format')).length;

	/** The next execution of the CRM example (after those asserted on), once finished. */
	async function nextExecution(): Promise<Execution> {
		const executions = await n8n.api.waitForExecutions(ids.crm, seen + 1, pollWaitMs);
		seen = executions.length;
		return executions[0];
	}

	test('activation polls once to set the baseline and emits nothing; the custom cron with a fixed second is accepted', async () => {
		expect(await n8n.hasNodeType('n8n-nodes-service-reader.serviceChangesTrigger')).toBe(true);
		await n8n.api.activateWorkflow(ids.crm);
		// The activation's poll read the whole portfolio (three pages of 4, 4 and 2 companies)...
		await waitFor(async () => (portfolioRequests().filter((r) => r.status === 200).length >= 3 ? true : undefined), {
			what: 'the activation poll', timeoutMs: 30_000,
		});
		expect(pollsStarted()).toBe(1);
		// ...and started no execution: the first poll is the baseline.
		expect(await n8n.api.executions(ids.crm)).toEqual([]);
		expect(sink.received(crmPath)).toEqual([]);
	}, 120_000);

	test('the next poll emits exactly the companies added, changed and removed at the Service, and the CRM gets one call each', async () => {
		sandbox.control.grantShare('KE-1011');
		sandbox.control.changeShare('KE-1001', { tier: 'tier-3' });
		// No endpoint is registered: this share_revoked reaches nobody, as a delivery the Service gave up on.
		const missed = sandbox.control.revokeShare('KE-1010');
		expect(sandbox.control.deliveries({ alertId: missed.alertId })).toEqual([]);

		const run = await nextExecution();
		expect(run.status).toBe('success');
		expect(byKey(executionItems(run, trigger))).toEqual([
			{
				change: 'changed', export: 'portfolio', key: 'KE-1001',
				row: expect.objectContaining({ ke: 'KE-1001', company_name: 'Acme Supplies Ltd', tier: 'tier-3', status: 'active' }),
				previous: { tier: 'tier-1' },
			},
			{ change: 'removed', export: 'portfolio', key: 'KE-1010', row: expect.objectContaining({ ke: 'KE-1010' }) },
			{
				change: 'added', export: 'portfolio', key: 'KE-1011',
				row: expect.objectContaining({ ke: 'KE-1011', company_name: 'Never Shared Ltd', tier: 'tier-2', status: 'active' }),
			},
		].sort((a, b) => a.key.localeCompare(b.key)));

		// The CRM: an upsert per added or changed company, and the copy of the missed share_revoked marked.
		const calls = await sink.waitForRequests(crmPath, 3);
		const byPath = calls.map((call) => ({ method: call.method, path: call.path, body: JSON.parse(call.body) }))
			.sort((a, b) => a.path.localeCompare(b.path));
		expect(byPath).toEqual([
			{ method: 'PUT', path: '/crm/companies/KE-1001', body: expect.objectContaining({ ke: 'KE-1001', tier: 'tier-3', share: 'active' }) },
			{ method: 'PATCH', path: '/crm/companies/KE-1010', body: { share: 'ended' } },
			{ method: 'PUT', path: '/crm/companies/KE-1011', body: expect.objectContaining({ ke: 'KE-1011', company_name: 'Never Shared Ltd', share: 'active' }) },
		]);
	}, 180_000);

	test('changes made while n8n is stopped are emitted once after the restart, against the state saved before it', async () => {
		const crmBefore = sink.received(crmPath).length;
		await n8n.restart({
			whileStopped: async () => {
				sandbox.control.grantShare('KE-1012');
				sandbox.control.changeShare('KE-1007', { decisionDue: false });
				sandbox.control.revokeShare('KE-1011');
			},
		});
		const run = await nextExecution();
		expect(run.status).toBe('success');
		const items = byKey(executionItems(run, trigger));
		// Values as the export sent them (CSV text here; JSON would keep its booleans).
		expect([String(items[0]?.row.decision_due), String(items[0]?.previous?.decision_due)]).toEqual(['false', 'true']);
		expect(items).toEqual([
			{
				change: 'changed', export: 'portfolio', key: 'KE-1007',
				row: expect.objectContaining({ ke: 'KE-1007' }),
				previous: { decision_due: expect.anything() },
			},
			{ change: 'removed', export: 'portfolio', key: 'KE-1011', row: expect.objectContaining({ ke: 'KE-1011' }) },
			{
				change: 'added', export: 'portfolio', key: 'KE-1012',
				row: expect.objectContaining({ ke: 'KE-1012', company_name: 'Revoked Partner plc' }),
			},
		]);
		const calls = await sink.waitForRequests(crmPath, crmBefore + 3);
		expect(calls.slice(crmBefore).map((call) => `${call.method} ${call.path}`).sort()).toEqual([
			'PATCH /crm/companies/KE-1011', 'PUT /crm/companies/KE-1007', 'PUT /crm/companies/KE-1012',
		]);
	}, 300_000);

	test('a poll during which page 2 fails emits nothing and says why; the next complete poll emits the changes', async () => {
		const crmBefore = sink.received(crmPath).length;
		sandbox.control.failPage({ route: 'portfolio', page: 2, mode: '500', times: 1000 });
		sandbox.control.revokeShare('KE-1012');
		sandbox.control.changeShare('KE-1002', { tier: 'tier-1' });

		const failed = await nextExecution();
		sandbox.control.clearFaults();
		expect(failed.status).toBe('error');
		const error = JSON.stringify(failed.data?.resultData.error ?? {});
		expect(error).toMatch(/page 2|500/i);
		// Nothing reached the trigger's output or the CRM: page 3's companies were never read, and none became `removed`.
		expect(executionItems(failed, trigger)).toEqual([]);
		expect(sink.received(crmPath)).toHaveLength(crmBefore);
		const page2 = portfolioRequests().filter((request) => request.status === 500);
		expect(page2.length).toBeGreaterThan(0);

		// Executions after the failed one until the first success: failed polls again (the fault was
		// cleared after the first one was saved), then the changes, once.
		const run = await waitFor(
			async () => {
				const executions = await n8n.api.executions(ids.crm);
				const fresh = executions.slice(0, executions.length - seen);
				if (fresh.some((execution) => execution.stoppedAt === null)) return undefined;
				const success = fresh.find((execution) => execution.status === 'success');
				if (!success) return undefined;
				expect(fresh.filter((execution) => execution.status === 'success')).toHaveLength(1);
				seen = executions.length;
				return success;
			},
			{ what: 'the next complete poll', timeoutMs: 2 * pollWaitMs },
		);
		expect(byKey(executionItems(run, trigger))).toEqual([
			{
				change: 'changed', export: 'portfolio', key: 'KE-1002',
				row: expect.objectContaining({ ke: 'KE-1002', tier: 'tier-1' }),
				previous: { tier: 'tier-2' },
			},
			{ change: 'removed', export: 'portfolio', key: 'KE-1012', row: expect.objectContaining({ ke: 'KE-1012' }) },
		]);
		const calls = await sink.waitForRequests(crmPath, crmBefore + 2);
		expect(calls.slice(crmBefore).map((call) => `${call.method} ${call.path}`).sort()).toEqual([
			'PATCH /crm/companies/KE-1012', 'PUT /crm/companies/KE-1002',
		]);
		await n8n.api.deactivateWorkflow(ids.crm);
	}, 360_000);

	test('the Google Sheets example activates, emits the current rows on its first poll and sends them to Append or Update (Google itself is not reachable here)', async () => {
		await n8n.api.activateWorkflow(ids.sheet);
		const [run] = await n8n.api.waitForExecutions(ids.sheet, 1, 60_000);
		await n8n.api.deactivateWorkflow(ids.sheet);
		const shared = sandbox.control.shares().filter((share) => share.state === 'shared').map((share) => share.ke).sort();
		const items = byKey(executionItems(run, trigger));
		expect(items.map((item) => item.key)).toEqual(shared);
		expect(items.every((item) => item.change === 'added' && item.row.ke === item.key)).toBe(true);
		// Not removed, so the IF sent every row to Append or Update by KE, which failed reaching Google
		// (no token): what the Google Sheets nodes would write is not checked here.
		expect(executionItems(run, 'Removed?')).toEqual([]);
		expect(run.status).toBe('error');
		expect(run.data?.resultData.lastNodeExecuted).toBe('Append or update by KE');
	}, 120_000);
});
