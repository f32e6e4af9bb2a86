import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { useSandbox } from '../../sandbox/useSandbox';
import { getMany, serviceCredentials } from './exportHelpers';

/**
 * Numbers beyond 2^53 (docs/service-choices.md): a registry number the Service sends as a JSON number
 * of 20 digits reaches the workflow as the digits sent, in a JSON page and in JSON lines; a safe number
 * stays a number.
 */
const sandbox = useSandbox();
const PATH = '/v1/reader/exports/decisions';
const BIG = '18446744073709551084';

function answer(contentType: string, body: string): void {
	sandbox.control.failRoute({ path: PATH, mode: 'answer', status: 200, contentType, body, times: 1 });
}

async function decisionItems(): Promise<Array<Record<string, unknown>>> {
	const result = await runWorkflow(readerWorkflow(getMany('decision', { returnAll: true, format: 'json' })), { credentials: serviceCredentials(sandbox) });
	expect(result.error(READER)).toBeUndefined();
	return result.output(READER).map((item) => item.json);
}

describe('Decisions > Get Many: numbers beyond 2^53', () => {
	afterEach(() => sandbox.control.clearFaults());

	it('a JSON page: registry_number 18446744073709551084 arrives as "18446744073709551084", other numbers as numbers', async () => {
		answer('application/json', `{"data": [{"id": "D-1", "ke": "KE-1001", "registry_number": ${BIG}, "score": 12.5, "note": "see ${BIG}"}, {"id": "D-2", "ke": "KE-1002", "registry_number": 9007199254740991, "score": 1e3}]}`);
		const items = await decisionItems();
		expect(items).toHaveLength(2);
		expect(items[0]).toMatchObject({ id: 'D-1', registry_number: BIG, score: 12.5, note: `see ${BIG}` });
		expect(items[1]).toMatchObject({ id: 'D-2', registry_number: 9007199254740991, score: 1000 });
		// What n8n stores and shows: the digits as sent.
		expect(JSON.stringify(items[0])).toContain(`"registry_number":"${BIG}"`);
	});

	it('JSON lines: each line keeps its registry number exact, negative and exponent forms too', async () => {
		answer('application/x-ndjson', [`{"id": "D-1", "registry_number": ${BIG}}`, `{"id": "D-2", "registry_number": -${BIG}}`, '{"id": "D-3", "registry_number": 1.8446744073709551084e19}', '{"id": "D-4", "registry_number": 42}'].join('\n'));
		const items = await decisionItems();
		expect(items.map((item) => item.registry_number)).toEqual([BIG, `-${BIG}`, '1.8446744073709551084e19', 42]);
	});
});
