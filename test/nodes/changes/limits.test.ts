import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceChangesTrigger } from '../../../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import { PollHarness } from '../../harness';
import { serviceApi } from '../../sandbox/credential';
import { useSandbox } from '../../sandbox/useSandbox';

// The trigger's own bounds per poll (Options: Max Rows, Max Poll Time, Max State Size), below the
// credential's Max Pages (default 100,000): each fails the poll naming it, emits nothing, keeps the state.
const sandbox = useSandbox();
afterEach(() => sandbox.control.clearFaults());

const PORTFOLIO = '/v1/reader/exports/portfolio';

function newHarness(parameters: INodeParameters = {}): PollHarness {
	return new PollHarness({ nodeType: new ServiceChangesTrigger(), parameters, credentials: { serviceApi: serviceApi(sandbox) } });
}
const words = (error: Error | undefined) => `${error?.message} ${(error as { description?: string } | undefined)?.description}`;

describe('Service Changes Trigger: its own bounds per poll', () => {
	test('Max Rows: an endless cursor stops at Max Rows (pages counted at the Service), nothing emitted, state kept; raised, the next poll emits the change', async () => {
		const harness = newHarness({ options: { maxRows: 25 } });
		await harness.activate();
		const live = JSON.stringify(harness.liveNodeData());
		const saved = JSON.stringify(harness.savedNodeData());
		sandbox.control.clearRequests();
		// One row a page, a new cursor each time, for ever (the credential's Max Pages is the default 100,000).
		sandbox.control.failRoute({ path: PORTFOLIO, mode: 'endlessCursor', csv: true });
		const failed = await harness.poll();
		expect(failed.items).toBeUndefined();
		expect(words(failed.error)).toContain("more than 25 rows, this trigger's Max Rows (Options)");
		expect(words(failed.error)).toContain('raise Max Rows');
		expect(words(failed.error)).toContain('Nothing was emitted and the state of the last complete poll is kept');
		// Page 26 is the one that passes the bound; one more may have been asked for ahead.
		const asked = sandbox.control.requests({ method: 'GET', path: PORTFOLIO }).length;
		expect(asked).toBeGreaterThanOrEqual(26);
		expect(asked).toBeLessThanOrEqual(27);
		expect(JSON.stringify(harness.liveNodeData())).toBe(live);
		expect(JSON.stringify(harness.savedNodeData())).toBe(saved);

		sandbox.control.clearFaults();
		sandbox.control.grantShare('KE-1011', { tier: 'tier-2' });
		const fixed = await harness.restart({ parameters: { options: { maxRows: 1000 } } }).activate('init');
		expect(fixed.error).toBeUndefined();
		expect(fixed.items?.map((i) => [i.json.change, i.json.key])).toEqual([['added', 'KE-1011']]);
	});

	test('Max Poll Time: an endless cursor stops after the time budget, naming it, nothing emitted, state kept; the next poll of a paging that ends emits nothing false', async () => {
		const harness = newHarness({ options: { maxPollTime: 1 } });
		await harness.activate();
		const live = JSON.stringify(harness.liveNodeData());
		sandbox.control.failRoute({ path: PORTFOLIO, mode: 'endlessCursor', csv: true });
		const started = Date.now();
		const failed = await harness.poll();
		const took = Date.now() - started;
		expect(failed.items).toBeUndefined();
		expect(words(failed.error)).toContain("longer than this trigger's Max Poll Time of 1 s (Options)");
		expect(words(failed.error)).toContain('raise Max Poll Time');
		expect(took).toBeGreaterThanOrEqual(1000);
		expect(JSON.stringify(harness.liveNodeData())).toBe(live);
		sandbox.control.clearFaults();
		expect(await harness.poll()).toEqual({ items: undefined, error: undefined });
	});

	test('Max State Size: a state above it fails the poll naming it, the saved state kept; raised again, the changes since are emitted', async () => {
		const harness = newHarness();
		await harness.activate();
		const saved = JSON.stringify(harness.savedNodeData());
		const stateBytes = Buffer.byteLength((harness.savedNodeData().changes as IDataObject).rows as string);
		sandbox.control.grantShare('KE-1012', { tier: 'tier-2' });
		// A bound just below the state this poll would keep.
		const small = harness.restart({ parameters: { options: { maxStateSize: stateBytes / (1024 * 1024) } } });
		await expect(small.activate('init')).rejects.toThrow(/above its Max State Size of .* MiB \(Options\)/);
		expect(JSON.stringify(small.savedNodeData())).toBe(saved);
		const fixed = await harness.restart().activate('init');
		expect(fixed.items?.map((i) => [i.json.change, i.json.key])).toEqual([['added', 'KE-1012']]);
	});

	test('a bound that is not a positive number is refused naming it', async () => {
		const harness = newHarness({ options: { maxRows: 0 } });
		await expect(harness.activate()).rejects.toThrow('Max Rows is 0, not a positive number');
	});
});
