import type { IDataObject } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { eventCatalogue, type RouteFault } from '../../sandbox';
import { serviceApi } from '../../sandbox/credential';
import { dialectFromEnvironment, dialectNamed } from '../../sandbox/dialect';
import { useSandbox } from '../../sandbox/useSandbox';

// Every list is paged (spec section 4's rule is general): Webhook > Get Catalogue reads every page of
// the catalogue, under the credential's paging settings, and a page that fails fails the item naming it.
const sandbox = useSandbox({ dialect: { ...dialectNamed(dialectFromEnvironment()), listPageSize: 4 } });
const CATALOGUE = '/v1/reader/webhooks/catalogue';
const run = async (advanced: IDataObject = {}) =>
	await runWorkflow(readerWorkflow({ resource: 'webhook', operation: 'getCatalogue' }), { credentials: { serviceApi: serviceApi(sandbox, { advanced }) } });
/** The event type an entry names, in the dialect's words. */
const typeOf = (json: IDataObject) => String(json.event_type ?? json.type);
const everyType = () => [...new Set(eventCatalogue.map((type) => type.event_type))].sort();

beforeEach(() => sandbox.control.clearFaults());

test('every page of the catalogue becomes items: no event type is missed', async () => {
	const result = await run();

	expect(result.error(READER)).toBeUndefined();
	const types = result.output(READER).map((item) => typeOf(item.json));
	expect([...new Set(types)].sort()).toEqual(everyType());
	// The alt dialect lists one event the spec does not name, again, on its last page.
	expect(types).toHaveLength(eventCatalogue.length + (sandbox.dialect.name === 'alt' ? 1 : 0));
	const asked = sandbox.control.requests({ path: CATALOGUE });
	expect(asked.map((r) => r.query[sandbox.dialect.cursorParameter])).toEqual([undefined, 'cat-4', 'cat-8']);
});

test('the credential\'s Page Size is sent on every page, as for exports', async () => {
	const result = await run({ pageSizeParameter: sandbox.dialect.pageSizeParameter, pageSize: 5 });

	expect(result.output(READER).map((item) => typeOf(item.json)).length).toBeGreaterThanOrEqual(eventCatalogue.length);
	const asked = sandbox.control.requests({ path: CATALOGUE });
	expect(asked.map((r) => [r.query[sandbox.dialect.pageSizeParameter], r.query[sandbox.dialect.cursorParameter]])).toEqual([
		['5', undefined],
		['5', 'cat-5'],
		['5', 'cat-10'],
	]);
});

test('a page that fails fails the item naming the page, never a short list', async () => {
	sandbox.control.failRoute({ path: CATALOGUE, mode: 'redirect', status: 302, location: 'https://localhost:9/elsewhere', skip: 1, times: 1 } as RouteFault);

	const result = await run();

	expect(result.output(READER)).toEqual([]);
	const error = result.error(READER);
	expect(error?.message).toBe('The Service answered with a redirect (302 to localhost:9), which is not followed');
	expect(error?.description).toMatch(/^Page 2 of the event catalogue \(fetched with cursor "cat-4"\) failed\. The 4 rows of the 1 earlier page were not passed on/);
});

test('a catalogue whose cursors never end stops at 100 pages, far below Max Pages, saying so and passing nothing on', async () => {
	sandbox.control.failRoute({ path: CATALOGUE, mode: 'endlessCursor' });

	const result = await run();

	expect(result.output(READER)).toEqual([]);
	expect(result.error(READER)?.message).toBe('The event catalogue did not end after 100 pages, the most read of it');
	expect(result.error(READER)?.description).toContain('check Cursor Parameter and Send Cursor As under Advanced Settings');
	expect(sandbox.control.requests({ path: CATALOGUE })).toHaveLength(100);
});

test('a catalogue that never ends stops at Max Pages, saying so', async () => {
	const result = await run({ maxPages: 2 });

	expect(result.output(READER)).toEqual([]);
	expect(result.error(READER)?.message).toBe('The event catalogue did not end after 2 pages, the Max Pages limit');
});
