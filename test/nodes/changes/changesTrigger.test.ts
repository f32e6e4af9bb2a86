import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceChangesTrigger } from '../../../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import { PollHarness } from '../../harness';
import { useSandbox } from '../../sandbox/useSandbox';
import { serviceApi } from '../../sandbox/credential';
import { nameFor } from '../../sandbox/requestDialect';
import { invitationCsvRows, portfolioCsvRows } from '../reader/exportHelpers';
import { allFields, expectNoToken } from '../../property/tokenDecoders';

// The Service Changes Trigger in n8n-core's engine against the sandbox over HTTPS: polls as n8n
// runs them (test/harness/pollHarness.ts), the sandbox changed between polls through its control API.
const sandbox = useSandbox();
afterEach(() => sandbox.control.clearFaults());

const PORTFOLIO = '/v1/reader/exports/portfolio';
type Rows = Array<Record<string, string>>;

/** The credential with pages of 3 rows, so the portfolio of about 10 companies takes 4 pages. */
const credentials = (advanced: IDataObject = {}) => ({
	serviceApi: serviceApi(sandbox, { advanced: { pageSizeParameter: sandbox.dialect.pageSizeParameter, pageSize: 3, ...advanced } }),
});

function newHarness(parameters: INodeParameters = {}, advanced: IDataObject = {}): PollHarness {
	return new PollHarness({ nodeType: new ServiceChangesTrigger(), parameters, credentials: credentials(advanced) });
}

const rowOf = (rows: Rows, key: string, column = 'ke') => rows.find((row) => row[column] === key)!;
const item = (json: IDataObject) => ({ json });

describe('Service Changes Trigger: portfolio', () => {
	it('sets the baseline on activation, then emits exactly the companies added, changed and removed at the Service', async () => {
		const harness = newHarness();
		expect(await harness.activate()).toEqual({ items: undefined, error: undefined });
		expect(harness.outcomes).toEqual([]);
		const before = portfolioCsvRows(sandbox);

		sandbox.control.changeShare('KE-1003', { tier: 'tier-9', decisionDue: rowOf(before, 'KE-1003').decision_due !== 'true' });
		sandbox.control.grantShare('KE-1011', { tier: 'tier-1' });
		sandbox.control.endShare('KE-1005');
		const now = portfolioCsvRows(sandbox);

		const { items, error } = await harness.poll();
		expect(error).toBeUndefined();
		const was = rowOf(before, 'KE-1003');
		expect(items).toEqual([
			item({
				change: 'changed', export: 'portfolio', key: 'KE-1003', row: rowOf(now, 'KE-1003'),
				previous: { tier: was.tier, decision_due: was.decision_due },
			}),
			item({ change: 'added', export: 'portfolio', key: 'KE-1011', row: rowOf(now, 'KE-1011') }),
			// The state keeps each row's values, so a removed company comes with its last known row.
			item({ change: 'removed', export: 'portfolio', key: 'KE-1005', row: rowOf(before, 'KE-1005') }),
		]);
		// Nothing changed since: nothing emitted.
		expect(await harness.poll()).toEqual({ items: undefined, error: undefined });
	});

	it('a page failing in the middle of a poll emits nothing and keeps the state; the next complete poll emits what changed', async () => {
		const harness = newHarness();
		await harness.activate();
		const saved = JSON.stringify(harness.savedNodeData());
		const live = JSON.stringify(harness.liveNodeData());
		const before = portfolioCsvRows(sandbox);
		sandbox.control.endShare('KE-1002');
		sandbox.control.changeShare('KE-1008', { tier: 'tier-7' });
		// Page 2 answers 500 to every attempt of this poll (the node tries 4 times).
		sandbox.control.failPage({ route: 'portfolio', page: 2, mode: '500', times: 4 });
		sandbox.control.clearRequests();

		const failed = await harness.poll();
		expect(failed.items).toBeUndefined();
		expect((failed.error as Error & { description?: string }).description).toMatch(
			/^Page 2 of the portfolio export \(fetched with cursor "[^"]+"\) failed\. Nothing was emitted and the state of the last complete poll is kept, so no change is lost or made up: the next poll reads the export again\./,
		);
		// No page after the failed one was asked for, and the state is as the last complete poll left it.
		expect(sandbox.control.requests({ path: PORTFOLIO }).map((r) => r.status)).toEqual([200, 500, 500, 500, 500]);
		expect(JSON.stringify(harness.liveNodeData())).toBe(live);
		expect(JSON.stringify(harness.savedNodeData())).toBe(saved);

		const now = portfolioCsvRows(sandbox);
		const { items, error } = await harness.poll();
		expect(error).toBeUndefined();
		expect(items).toEqual([
			item({ change: 'changed', export: 'portfolio', key: 'KE-1008', row: rowOf(now, 'KE-1008'), previous: { tier: rowOf(before, 'KE-1008').tier } }),
			item({ change: 'removed', export: 'portfolio', key: 'KE-1002', row: rowOf(before, 'KE-1002') }),
		]);
	});

	it('Max Pages reached: the poll fails naming the limit, emits nothing, and a later complete poll sees nothing false', async () => {
		const harness = newHarness({}, { maxPages: 2 });
		await expect(harness.activate()).rejects.toThrow(/^The portfolio export did not end after 2 pages, the Max Pages limit$/);
		expect(harness.saved).toEqual({});
		const whole = harness.restart({ credentials: credentials() });
		// Without a baseline yet, the first complete poll is the baseline: nothing emitted, nothing removed.
		expect(await whole.activate()).toEqual({ items: undefined, error: undefined });
		expect(await whole.poll()).toEqual({ items: undefined, error: undefined });
	});

	it('keeps its state across a restart: the first poll of the new process emits what changed meanwhile', async () => {
		const harness = newHarness();
		await harness.activate();
		const before = portfolioCsvRows(sandbox);
		sandbox.control.changeShare('KE-1001', { tier: 'tier-5' });
		// n8n stops and starts again: only the saved static data is left.
		const restarted = harness.restart();
		const { items } = await restarted.activate('init');
		expect(items).toEqual([
			item({ change: 'changed', export: 'portfolio', key: 'KE-1001', row: rowOf(portfolioCsvRows(sandbox), 'KE-1001'), previous: { tier: rowOf(before, 'KE-1001').tier } }),
		]);
		// The emitted poll's state was saved with it: a second restart emits nothing again.
		expect(await restarted.restart().activate('init')).toEqual({ items: undefined, error: undefined });
	});

	it('Changes filters what starts the workflow, while the state follows every change', async () => {
		const harness = newHarness({ changes: ['removed'] });
		await harness.activate();
		const before = portfolioCsvRows(sandbox);
		sandbox.control.grantShare('KE-1012', { tier: 'tier-3' });
		sandbox.control.changeShare('KE-1004', { tier: 'tier-8' });
		sandbox.control.endShare('KE-1006');
		expect((await harness.poll()).items).toEqual([item({ change: 'removed', export: 'portfolio', key: 'KE-1006', row: rowOf(before, 'KE-1006') })]);
		// Added and changed were not emitted, but they are not held back either: with every kind chosen, nothing is pending.
		const all = harness.restart({ parameters: {} });
		expect(await all.activate('init')).toEqual({ items: undefined, error: undefined });
	});

	it('Emit Current Rows on First Poll emits every company as added, then only changes', async () => {
		const harness = newHarness({ emitCurrentRows: true });
		const rows = portfolioCsvRows(sandbox);
		const { items } = await harness.activate();
		expect(items).toEqual(rows.map((row) => item({ change: 'added', export: 'portfolio', key: row.ke, row })));
		expect(await harness.poll()).toEqual({ items: undefined, error: undefined });
	});

	it("Fetch Test Event shows the first rows as added and leaves the state as it was", async () => {
		const harness = newHarness();
		await harness.activate();
		sandbox.control.changeShare('KE-1007', { tier: 'tier-6' });
		const saved = JSON.stringify(harness.saved);
		const rows = portfolioCsvRows(sandbox);
		// n8n's engine pairs the trigger's items with its one start item.
		expect(await harness.fetchTestEvent()).toEqual(
			rows.slice(0, 3).map((row) => ({ ...item({ change: 'added', export: 'portfolio', key: row.ke, row }), pairedItem: { item: 0 } })),
		);
		expect(JSON.stringify(harness.saved)).toBe(saved);
		// The change is still to come.
		expect((await harness.poll()).items?.map((i) => [i.json.change, i.json.key])).toEqual([['changed', 'KE-1007']]);
	});
});

describe('Service Changes Trigger: answers that cannot be used', () => {
	afterEach(() => sandbox.control.clearFaults());

	/** A baselined harness, a change at the Service, and one poll under `fault`: it must fail, emit nothing and keep the state. */
	async function failedPollWith(fault: () => void, advanced: IDataObject = {}) {
		const harness = newHarness({}, advanced);
		await harness.activate();
		const live = JSON.stringify(harness.liveNodeData());
		const { ke } = sandbox.control.addCompany({ name: 'Late Arrival Ltd' });
		sandbox.control.grantShare(ke);
		fault();
		const failed = await harness.poll();
		expect(failed.items).toBeUndefined();
		expect(JSON.stringify(harness.liveNodeData())).toBe(live);
		sandbox.control.clearFaults();
		// The change is not lost: the next complete poll emits it.
		expect((await harness.poll()).items?.map((i) => [i.json.change, i.json.key])).toEqual([['added', ke]]);
		return failed.error as Error & { description?: string };
	}

	it('an unreadable page (a CSV quote that never closes) fails the poll, naming the page', async () => {
		const error = await failedPollWith(() =>
			sandbox.control.failRoute({ path: PORTFOLIO, skip: 2, times: 1, mode: 'answer', status: 200, contentType: 'text/csv', body: '"KE-1,unclosed\r\n' }),
		);
		expect(error.message).toBe("The Service's answer for page 3 of the portfolio export could not be read");
		expect(error.description).toMatch(/^Page 3 of the portfolio export \(fetched with cursor "[^"]+"\) failed\. Nothing was emitted and the state of the last complete poll is kept/);
	});

	it('a cursor echoing the access token (URL-encoded in lower case, or as JSON \\u escapes) then a failing page: the poll error names the page, never the token, in any field', async () => {
		for (const form of ['urlLower', 'jsonEscaped'] as const) {
			const error = await failedPollWith(() => {
				sandbox.control.failRoute({ path: PORTFOLIO, times: 1, mode: 'echoToken', status: 200, form, in: 'cursor' });
				sandbox.control.failRoute({ path: PORTFOLIO, times: 1, mode: 'answer', status: 200, contentType: 'text/csv', body: '"KE-1,unclosed\r\n' });
			});
			expect(error.message).toBe("The Service's answer for page 2 of the portfolio export could not be read");
			expect(error.description).toMatch(/^Page 2 of the portfolio export \(fetched with cursor "\*\*\*"\) failed/);
			expectNoToken(JSON.stringify(allFields(error)), sandbox.tokens.reader);
		}
	});

	// The idle bound and the whole answer's deadline are both 1 s: whichever ends it, a stall is named a stall.
	it('a page that stops part-way (Request Timeout) fails the poll, named a stall', async () => {
		const error = await failedPollWith(() => sandbox.control.failRoute({ path: PORTFOLIO, skip: 1, times: 1, mode: 'stall', contentType: 'text/csv' }), { requestTimeout: 1 });
		expect(error.message).toMatch(/the Service sent nothing for (1|0\.\d) s in the middle of its answer$/);
		expect(error.description).toMatch(/^Page 2 of the portfolio export \(fetched with cursor "[^"]+"\) failed\. Nothing was emitted and the state of the last complete poll is kept, .* The Service stopped sending part-way, so the answer is incomplete/);
	});
});

describe('Service Changes Trigger: parameters', () => {
	it('refuses a Changes expression that gives no list, naming the field, before any request', async () => {
		sandbox.control.clearRequests();
		const harness = newHarness({ changes: '={{ "added" }}' });
		await expect(harness.activate()).rejects.toThrow('Changes is "added", not a list of kinds of change');
		expect(sandbox.control.requests({ path: PORTFOLIO })).toEqual([]);
	});
});

describe('Service Changes Trigger: invitations', () => {
	it('emits a status change keyed by invitation id, with the earlier status', async () => {
		const harness = newHarness({ export: 'invitations' });
		await harness.activate();
		const before = invitationCsvRows(sandbox);
		const id = before[0].invitation_id;
		sandbox.control.setInvitationStatus(id, 'accepted');
		const now = invitationCsvRows(sandbox);
		const previous: IDataObject = {};
		for (const column of Object.keys(now[0])) if (rowOf(now, id, 'invitation_id')[column] !== rowOf(before, id, 'invitation_id')[column]) previous[column] = rowOf(before, id, 'invitation_id')[column];
		expect(previous.status).toBe(rowOf(before, id, 'invitation_id').status);
		expect((await harness.poll()).items).toEqual([item({ change: 'changed', export: 'invitations', key: id, row: rowOf(now, id, 'invitation_id'), previous })]);
	});
});

describe('Service Changes Trigger: expiries', () => {
	it('emits a share entering the 30-day window, keyed by kind and reference, and its leaving when the share ends', async () => {
		const harness = newHarness({ export: 'expiries', window: '30' });
		await harness.activate();
		const { ke } = sandbox.control.addCompany({ name: 'Window Test Ltd' });
		sandbox.control.grantShare(ke, { endsInDays: 10 });
		const endsOn = sandbox.control.shares().find((share) => share.ke === ke)!.endsOn!;
		const row = { kind: 'share', reference: `SHARE-${ke}`, ke, ends_on: endsOn, window_days: '30' };
		const key = JSON.stringify(['share', `SHARE-${ke}`]);
		expect((await harness.poll()).items).toEqual([item({ change: 'added', export: 'expiries', key, row })]);
		expect(sandbox.control.requests({ path: '/v1/reader/exports/expiries' }).every((r) => r.query[nameFor(sandbox.dialect.request, 'export.window')] === '30')).toBe(true);
		sandbox.control.endShare(ke);
		expect((await harness.poll()).items).toEqual([item({ change: 'removed', export: 'expiries', key, row })]);
	});
});
