import { parse } from 'csv-parse/sync';
import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import { PROBE_LIMITS } from '../../../nodes/shared/settingsCheck/types';
import { serviceApi } from '../../sandbox/credential';

import { dialectFromEnvironment, dialectNamed } from '../../sandbox/dialect';
import type { Sandbox } from '../../sandbox';
import { useSandbox } from '../../sandbox/useSandbox';
import { listSearch, PollHarness, READER, readerWorkflow, runWorkflow } from '../../harness';
import { ServiceChangesTrigger } from '../../../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import { ServiceReader } from '../../../nodes/ServiceReader/ServiceReader.node';
import { asItems, getMany, portfolioCsvRows, readBinary, serviceCredentials, serviceJsonRows } from './exportHelpers';

// A Service that reads the cursor from a header only (issue 44 item 5): with Send Cursor As Header every row
// comes once; with the query, the first page comes again with a fresh cursor, and the list stops there,
// naming Send Cursor As, with nothing passed on twice.
const PORTFOLIO = '/v1/reader/exports/portfolio';
const HEADER = 'Service-Cursor';
const reader = new ServiceReader();
const WRONG = 'Page 2 of the portfolio export repeated rows already read, so the Service did not read the cursor: check Send Cursor As';

async function checkSettings(credential: ICredentialDataDecryptedObject) {
	const result = await runWorkflow(readerWorkflow({ resource: 'service', operation: 'checkSettings' }), { credentials: { serviceApi: credential } });
	expect(result.error(READER)).toBeUndefined();
	return result.output(READER);
}

async function runPortfolio(sandbox: Sandbox, parameters: INodeParameters, advanced: Record<string, string> = {}) {
	const credentials = serviceCredentials(sandbox, { pageSize: 3 });
	Object.assign(credentials.serviceApi, { advancedSettings: true }, advanced);
	return await runWorkflow(readerWorkflow(getMany('portfolio', parameters)), { credentials });
}

describe('a Service reading the cursor from a header', () => {
	const sandbox = useSandbox({ dialect: { ...dialectNamed(dialectFromEnvironment()), cursorIn: { in: 'header', header: HEADER } } });
	afterEach(() => sandbox.control.clearFaults());
	const requests = () => sandbox.control.requests({ path: PORTFOLIO });

	it('with Send Cursor As Header: every row once, the cursor in the header and never in the query', async () => {
		const result = await runPortfolio(sandbox, { returnAll: true });

		expect(result.output(READER)).toEqual(asItems(portfolioCsvRows(sandbox)));
		const sent = requests();
		expect(sent).toHaveLength(4);
		expect(sent[0].headers[HEADER.toLowerCase()]).toBeUndefined();
		for (const request of sent.slice(1)) {
			expect(request.headers[HEADER.toLowerCase()]).toEqual(expect.any(String));
			expect(request.query[sandbox.dialect.cursorParameter]).toBeUndefined();
		}
	});

	it('with Send Cursor As Header: JSON items and the file hold every row once', async () => {
		const json = await runPortfolio(sandbox, { returnAll: true, format: 'json' });
		expect(json.error(READER)).toBeUndefined();
		expect(json.output(READER).map((item) => item.json)).toEqual(await serviceJsonRows(sandbox, `${PORTFOLIO}?format=json`));

		const file = await runPortfolio(sandbox, { returnAll: true, output: 'file' });
		const bytes = (await readBinary(file.output(READER)[0].binary?.data)).toString('utf8');
		expect(parse(bytes, { columns: true, bom: true, delimiter: sandbox.dialect.csv.delimiter })).toEqual(portfolioCsvRows(sandbox));
	});

	it.each([
		['CSV items', { returnAll: true }, 2],
		['JSON items', { returnAll: true, format: 'json' }, 2],
		// A file's next page is asked for as soon as a page's headers are in: the third is requested, never read.
		['the file', { returnAll: true, output: 'file' }, 3],
	] as Array<[string, INodeParameters, number]>)('with the cursor in the query, %s stop at page 2 naming Send Cursor As: nothing passed on, never paging on', async (_label, parameters, most) => {
		const started = Date.now();
		const result = await runPortfolio(sandbox, parameters, { cursorPlacement: 'query' });

		expect(result.output(READER)).toEqual([]);
		const error = result.error(READER);
		expect(error?.message).toBe(WRONG);
		expect(error?.description).toContain('set Send Cursor As to Header with that Cursor Header Name');
		expect(requests().length).toBeLessThanOrEqual(most);
		// The first page came again: a new cursor each time, so only its rows told.
		const cursors = requests().map((r) => r.query[sandbox.dialect.cursorParameter]);
		expect(cursors[0]).toBeUndefined();
		expect(cursors[1]).toEqual(expect.any(String));
		expect(Date.now() - started).toBeLessThan(10_000);
	});

	it('Check Settings proposes Send Cursor As Header with its name, within its budget and with GETs only; set, nothing is left to change', async () => {
		const asNew = serviceApi(sandbox, { advanced: { cursorPlacement: 'query' } });
		const output = (await checkSettings(asNew)).map((item) => item.json);
		const cursor = output.find((item) => item.topic === 'Cursor Parameter');
		expect(cursor?.verdict).toBe('change');
		expect(cursor?.settings).toEqual([
			{ field: 'cursorPlacement', label: 'Send Cursor As', value: 'header' },
			{ field: 'cursorHeaderName', label: 'Cursor Header Name', value: HEADER },
		]);
		expect(cursor?.evidence).toContain(`in the header ${HEADER}`);
		expect(cursor?.evidence).toContain('the first page came again (ignored)');
		const received = sandbox.control.requests();
		expect(received.length).toBeLessThanOrEqual(PROBE_LIMITS.requests);
		expect(new Set(received.map((r) => r.method))).toEqual(new Set(['GET']));

		const set = (await checkSettings(serviceApi(sandbox))).map((item) => item.json);
		expect(set.find((item) => item.topic === 'Cursor Parameter')?.verdict).toBe('ok');
		expect(set.filter((item) => item.verdict === 'change')).toEqual([]);
	});

	it('the KE picker: with the query, its second list search says Send Cursor As instead of offering the first companies again; with the header, every company once', async () => {
		const search = async (advanced: Record<string, string>, paginationToken?: string) => {
			const credentials = serviceCredentials(sandbox, { pageSize: 3 });
			Object.assign(credentials.serviceApi, { advancedSettings: true }, advanced);
			return await listSearch(reader, 'searchCompanies', { credentials, parameters: { resource: 'record', operation: 'get' }, paginationToken });
		};
		const first = await search({ cursorPlacement: 'query' });
		await expect(search({ cursorPlacement: 'query' }, first.paginationToken as string)).rejects.toMatchObject({ message: expect.stringContaining('check Send Cursor As') });

		const offered: string[] = [];
		let token: string | undefined;
		do {
			const page = await search({}, token);
			offered.push(...page.results.map((choice) => String(choice.value)));
			token = page.paginationToken as string | undefined;
		} while (token !== undefined && offered.length < 100);
		expect(offered).toEqual(portfolioCsvRows(sandbox).map((row) => row.ke));
	});

	it('the Changes Trigger: with the query, activation fails naming Send Cursor As after 2 pages and keeps no state; with the header, it reads every page', async () => {
		const harness = (advanced: Record<string, string | number>) =>
			new PollHarness({ nodeType: new ServiceChangesTrigger(), parameters: {}, credentials: { serviceApi: serviceApi(sandbox, { advanced: { pageSizeParameter: sandbox.dialect.pageSizeParameter, pageSize: 3, ...advanced } }) } });
		// Activation fails as n8n shows it: the workflow is not activated.
		await expect(harness({ cursorPlacement: 'query' }).activate()).rejects.toThrow(WRONG);
		expect(requests()).toHaveLength(2);

		sandbox.control.clearRequests();
		const right = harness({});
		expect(await right.activate()).toEqual({ items: undefined, error: undefined });
		expect(requests()).toHaveLength(4);
		sandbox.control.grantShare('KE-1011', { tier: 'tier-1' });
		const { items, error } = await right.poll();
		expect(error).toBeUndefined();
		expect(items?.map((entry) => [entry.json.change, entry.json.key])).toEqual([['added', 'KE-1011']]);
		sandbox.control.endShare('KE-1011');
	});

	it('a Limit run, which asks for each page only when it needs it, stops at the repeated page too', async () => {
		const result = await runPortfolio(sandbox, { limit: 5 }, { cursorPlacement: 'query' });
		expect(result.output(READER)).toEqual([]);
		expect(result.error(READER)?.message).toBe(WRONG);
		expect(requests()).toHaveLength(2);
	});
});

describe('a Service reading the cursor from the query, with Send Cursor As Header', () => {
	const sandbox = useSandbox();
	const requests = () => sandbox.control.requests({ path: PORTFOLIO });

	it('stops at page 2 naming Send Cursor As and the header it sent', async () => {
		const result = await runPortfolio(sandbox, { returnAll: true }, { cursorPlacement: 'header', cursorHeaderName: 'X-Service-Cursor' });

		expect(result.output(READER)).toEqual([]);
		expect(result.error(READER)?.message).toBe(WRONG);
		expect(result.error(READER)?.description).toContain('The cursor was sent in the header "X-Service-Cursor". If the Service reads it from a query parameter, set Send Cursor As to Query Parameter');
		expect(requests()).toHaveLength(2);
		expect(requests()[1].headers['x-service-cursor']).toEqual(expect.any(String));
	});

	it('Check Settings proposes the query again, under the name the Service reads', async () => {
		const output = (await checkSettings(serviceApi(sandbox, { advanced: { cursorPlacement: 'header', cursorHeaderName: 'X-Service-Cursor' } }))).map((item) => item.json);
		const cursor = output.find((item) => item.topic === 'Cursor Parameter');
		expect([cursor?.verdict, cursor?.settings]).toEqual([
			'change',
			[
				{ field: 'cursorPlacement', label: 'Send Cursor As', value: 'query' },
				{ field: 'cursorParameter', label: 'Cursor Parameter', value: sandbox.dialect.cursorParameter },
			],
		]);
	});

	it('a Cursor Header Name that is no header name is refused before anything is sent', async () => {
		const result = await runPortfolio(sandbox, { returnAll: true }, { cursorPlacement: 'header', cursorHeaderName: 'Service Cursor' });
		expect(result.error(READER)?.message).toContain('Cursor Header Name "Service Cursor" is not a header name');
		expect(requests()).toHaveLength(0);
	});
});
