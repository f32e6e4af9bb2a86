import { ServiceChangesTrigger } from '../../../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import { PollHarness } from '../../harness';
import { useSandbox } from '../../sandbox/useSandbox';
import { serviceApi } from '../../sandbox/credential';

/**
 * Numbers beyond 2^53 in the Changes Trigger (docs/service-choices.md): a decision whose registry_number
 * has 20 digits is read as those digits: polls of the same export find nothing new, and a new decision
 * comes with the digits sent.
 */
const sandbox = useSandbox();
afterEach(() => sandbox.control.clearFaults());

const PATH = '/v1/reader/exports/decisions';
const page = (more: string[]) =>
	`{"data": [${['{"id": "D-1", "ke": "KE-1001", "registry_number": 18446744073709551084, "score": 12.5}', '{"id": "D-2", "ke": "KE-1002", "registry_number": 7}', ...more].join(', ')}]}`;
const answer = (body: string) => sandbox.control.failRoute({ path: PATH, mode: 'answer', status: 200, contentType: 'application/json', body, times: 1 });

describe('Service Changes Trigger: decisions with numbers beyond 2^53', () => {
	it('finds nothing new on the same rows, and a new decision with its registry number as the digits sent', async () => {
		const harness = new PollHarness({ nodeType: new ServiceChangesTrigger(), parameters: { export: 'decisions' }, credentials: { serviceApi: serviceApi(sandbox) } });
		answer(page([]));
		expect(await harness.activate()).toEqual({ items: undefined, error: undefined });
		answer(page([]));
		expect(await harness.poll()).toEqual({ items: undefined, error: undefined });

		// D-3's registry number reads as 18446744073709552000 by JSON.parse, as D-1's does.
		answer(page(['{"id": "D-3", "ke": "KE-1003", "registry_number": 18446744073709551085}']));
		const { items, error } = await harness.poll();
		expect(error).toBeUndefined();
		expect(items).toEqual([{ json: { change: 'added', export: 'decisions', key: 'D-3', row: { id: 'D-3', ke: 'KE-1003', registry_number: '18446744073709551085' } } }]);
		expect(JSON.stringify(items)).toContain('"registry_number":"18446744073709551085"');
	});
});
