import type { INodeListSearchResult, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { listSearch } from '../../harness';
import { ServiceReader } from '../../../nodes/ServiceReader/ServiceReader.node';
import { serviceApi } from '../../sandbox/credential';
import { useSandbox } from '../../sandbox/useSandbox';
import { expectNoToken } from '../../property/tokenDecoders';
import { encodeToken } from '../../sandbox/tokenForms';
import { serviceCredentials } from './exportHelpers';
import { binaryBytes, READER, runReader } from './helpers';

const sandbox = useSandbox();
const reader = new ServiceReader();
const PORTFOLIO_PATH = '/v1/reader/exports/portfolio';

/** One list search of the KE picker, as the editor asks for it. */
const search = async (options: { filter?: string; paginationToken?: string; pageSize?: number } = {}) =>
	await listSearch(reader, 'searchCompanies', {
		credentials: serviceCredentials(sandbox, { pageSize: options.pageSize }),
		parameters: { resource: 'record', operation: 'get' },
		filter: options.filter,
		paginationToken: options.paginationToken,
	});

/** Every page of the picker's list, as a user scrolling to its end sees them. */
async function allPages(options: { filter?: string; pageSize?: number } = {}): Promise<INodeListSearchResult[]> {
	const pages: INodeListSearchResult[] = [];
	let paginationToken: string | undefined;
	do {
		pages.push(await search({ ...options, paginationToken }));
		paginationToken = pages[pages.length - 1].paginationToken as string | undefined;
	} while (paginationToken !== undefined && pages.length < 50);
	return pages;
}

/** The companies that share with the main reader, as the picker should offer them: "name (KE)". */
function sharingCompanies(): Array<{ name: string; value: string }> {
	const names = new Map(sandbox.control.companies().map((company) => [company.ke, company.name]));
	return sandbox.control
		.shares()
		.filter((share) => share.state === 'shared')
		.map((share) => ({ name: `${names.get(share.ke)!.replace(/\s+/g, ' ').trim()} (${share.ke})`, value: share.ke }));
}

const portfolioRequests = () => sandbox.control.requests().filter((request) => request.path === PORTFOLIO_PATH);

describe('KE picker (From List): the companies that share, from the portfolio export', () => {
	it('lists them one Service page per call, the pagination token carrying the cursor, until the last page', async () => {
		const pages: INodeListSearchResult[] = [];
		let paginationToken: string | undefined;
		do {
			const before = portfolioRequests().length;
			const page = await search({ paginationToken, pageSize: 3 });
			// One Service request per list search, never the whole portfolio at once.
			expect(portfolioRequests().length).toBe(before + 1);
			expect(page.results.length).toBeLessThanOrEqual(3);
			expect(page.paginationToken).not.toBe(paginationToken);
			pages.push(page);
			paginationToken = page.paginationToken as string | undefined;
		} while (paginationToken !== undefined && pages.length < 10);

		const expected = sharingCompanies();
		expect(pages).toHaveLength(Math.ceil(expected.length / 3));
		expect(pages.flatMap((page) => page.results)).toEqual(expected);
		// Names on one line and without the Service's formula guard; the KE is the value.
		expect(pages[0].results[0]).toEqual({ name: 'Acme Supplies Ltd (KE-1001)', value: 'KE-1001' });
		expect(pages.flatMap((page) => page.results)).toContainEqual({ name: '=HYPERLINK("http://evil.example","click me") (KE-1002)', value: 'KE-1002' });
		// Each later page was asked for with the cursor the page before it answered with.
		const requests = portfolioRequests().slice(-pages.length);
		expect(requests.every((request) => request.status === 200 && request.reader === 'reader')).toBe(true);
		expect(new Set(requests.map((request) => JSON.stringify(request.query))).size).toBe(pages.length);
	});

	it('offers the same companies with the Service\'s own page size', async () => {
		const pages = await allPages();
		expect(pages.flatMap((page) => page.results)).toEqual(sharingCompanies());
	});

	it.each([
		['part of a name, in another case', 'acme', ['KE-1001']],
		['part of a KE', '-100', ['KE-1001', 'KE-1002', 'KE-1003', 'KE-1004', 'KE-1005', 'KE-1006', 'KE-1007', 'KE-1008', 'KE-1009']],
		['a whole KE, in lower case', 'ke-1010', ['KE-1010']],
		['words of a name written over two lines', 'partners" llp', ['KE-1008']],
		['nothing that matches', 'no such company', []],
	])('filters each page by name or KE: %s', async (_what, filter, kes) => {
		const pages = await allPages({ filter });
		expect(pages.flatMap((page) => page.results.map((result) => result.value))).toEqual(kes);
		// The filter narrows each page; it never changes which pages are fetched.
		expect(pages).toHaveLength((await allPages()).length);
	});

	it('does not offer a company whose share ended, nor one that revoked or never shared', async () => {
		sandbox.control.endShare('KE-1006');
		try {
			const offered = (await allPages()).flatMap((page) => page.results.map((result) => result.value));
			expect(offered).not.toContain('KE-1006');
			expect(offered).not.toContain('KE-1012');
			expect(offered).not.toContain('KE-1011');
			expect(offered).toEqual(sharingCompanies().map((company) => company.value));
		} finally {
			sandbox.control.grantShare('KE-1006');
		}
		expect((await allPages()).flatMap((page) => page.results.map((result) => result.value))).toContain('KE-1006');
	});

	it('seals its pagination token: a cursor echoing the access token (or any Service text) never reaches the browser, yet the next page is asked with it as sent', async () => {
		const token = sandbox.tokens.reader;
		const cursor = encodeToken(token, 'urlLower');
		sandbox.control.failRoute({ path: PORTFOLIO_PATH, mode: 'echoToken', status: 200, form: 'urlLower', in: 'cursor', times: 1 });
		const first = await search();
		expect(first.results).toEqual([{ name: 'Acme (KE-1)', value: 'KE-1' }]);
		const paginationToken = first.paginationToken as string;
		expectNoToken(paginationToken, token);
		// Neither the cursor nor the header row's cells, in any form the browser could read.
		for (const text of [cursor, 'company_name', 'Y29tcGFueV9uYW1l', 'company']) expect(paginationToken).not.toContain(text);

		const before = portfolioRequests().length;
		await search({ paginationToken }).catch(() => undefined);
		const [next] = portfolioRequests().slice(before);
		expect(next.query[sandbox.dialect.cursorParameter]).toBe(cursor);

		// Sealed under this credential's token: another credential (or an edited token) cannot go on from it.
		const requests = sandbox.control.requests().length;
		const other = listSearch(reader, 'searchCompanies', {
			credentials: serviceCredentials(sandbox, { reader: 'other' }),
			parameters: { resource: 'record', operation: 'get' },
			paginationToken,
		});
		await expect(other).rejects.toThrow('The company list cannot go on from where it was: search again');
		const edited = `${paginationToken.slice(0, -2)}${paginationToken.endsWith('A') ? 'B' : 'A'}`;
		await expect(search({ paginationToken: edited })).rejects.toThrow('The company list cannot go on from where it was: search again');
		expect(sandbox.control.requests()).toHaveLength(requests);
	});

	it('refuses a pagination token it did not make, before any request', async () => {
		const before = sandbox.control.requests().length;
		await expect(search({ paginationToken: 'not-a-token' })).rejects.toThrow('The company list cannot go on from where it was: search again');
		expect(sandbox.control.requests()).toHaveLength(before);
	});
});

describe('KE in version 2 (a resource locator) and version 1 (text)', () => {
	const recordGet = (ke: INodeParameters['ke']): INodeParameters => ({ resource: 'record', operation: 'get', ke });
	const rl = (mode: string, value: string) => ({ __rl: true, mode, value });

	it('new nodes are version 2, whose KE defaults to From List; version 1 keeps a text KE', () => {
		expect(reader.description.version).toEqual([1, 2]);
		expect(reader.description.defaultVersion).toBe(2);
		const defaults = (typeVersion: number) =>
			NodeHelpers.getNodeParameters(reader.description.properties, recordGet(undefined), true, false, { typeVersion } as never, reader.description);
		expect(defaults(1)?.ke).toBe('');
		expect(defaults(2)?.ke).toEqual({ __rl: true, mode: 'list', value: '' });
	});

	it('Record > Get: a KE picked from the list or typed By KE gives the same item as version 1\'s text', async () => {
		const v1 = (await runReader(sandbox, recordGet('KE-1009'))).output(READER);
		const fromList = (await runReader(sandbox, recordGet(rl('list', 'KE-1009')), { typeVersion: 2 })).output(READER);
		const byKe = (await runReader(sandbox, recordGet(rl('id', ' KE-1009 ')), { typeVersion: 2 })).output(READER);
		for (const output of [fromList, byKe]) {
			expect(output).toHaveLength(1);
			expect(output[0].json).toEqual(v1[0].json);
			expect(output[0].binary?.data).toMatchObject({ fileName: 'KS-1009-v1.json', mimeType: 'application/json' });
			expect((await binaryBytes(output[0].binary!.data)).equals(sandbox.control.record('KE-1009').bytes)).toBe(true);
		}
		expect(sandbox.control.requests().map((request) => request.path)).toEqual(Array(3).fill('/v1/reader/exports/records/KE-1009'));
	});

	it('a version 1 workflow runs unchanged: a text KE, mapped from the item', async () => {
		const result = await runReader(sandbox, recordGet('={{ $json.ke }}'), { inputItems: [{ json: { ke: 'KE-1001' } }] });
		expect(result.output(READER).map((item) => item.json.ke)).toEqual(['KE-1001']);
	});

	it('Policy Run > Create and Audit Pack > Get read the picked KE', async () => {
		const run = await runReader(sandbox, { resource: 'policyRun', operation: 'create', ke: rl('list', 'KE-1001') }, { typeVersion: 2 });
		expect(run.output(READER)[0].json).toMatchObject({ ke: 'KE-1001', status: 'completed' });
		const pack = await runReader(sandbox, { resource: 'auditPack', operation: 'get', ke: rl('id', 'KE-1001'), packId: 'AP-1001-1' }, { typeVersion: 2 });
		expect(pack.output(READER)[0].json).toMatchObject({ ke: 'KE-1001', pack_id: 'AP-1001-1' });
	});

	it('refuses a KE that could change the request path, typed or from an expression, before any request', async () => {
		// Typed By KE: n8n itself refuses to run the node, with the mode's words.
		await expect(runReader(sandbox, recordGet(rl('id', '../KE-1001')), { typeVersion: 2 })).rejects.toThrow(
			'Not a KE: use only letters, digits, ".", "_" and "-"',
		);
		const mapped = await runReader(sandbox, recordGet(rl('id', '={{ "../KE-1001" }}')), { typeVersion: 2 });
		expect(mapped.error(READER)?.message).toBe('KE "../KE-1001" is malformed: use only letters, digits, ".", "_" and "-". [item 0]');
		const empty = await runReader(sandbox, recordGet(rl('list', '={{ "" }}')), { typeVersion: 2 });
		expect(empty.error(READER)?.message).toBe('KE is empty. Enter the KE exactly as the Service shows it. [item 0]');
		expect(sandbox.control.requests()).toEqual([]);
	});
});

describe('KE picker: each list search is bounded in bytes and time by the credential', () => {
	const searchWith = async (advanced: Record<string, number>) =>
		await listSearch(reader, 'searchCompanies', {
			credentials: { serviceApi: serviceApi(sandbox, { advanced }) },
			parameters: { resource: 'record', operation: 'get' },
		});

	it('a page larger than Max Response Size fails the search, read no further than the cap', async () => {
		sandbox.control.failRoute({ path: PORTFOLIO_PATH, mode: 'oversize', bytes: 8 * 1024 * 1024, times: 1 });
		try {
			await expect(searchWith({ maxResponseSize: 1 })).rejects.toThrow('the answer is larger than 1 MiB, the Max Response Size');
		} finally {
			sandbox.control.clearFaults();
		}
	});

	it('a Service that never answers fails the search at Request Timeout, and it is not asked again', async () => {
		sandbox.control.failRoute({ path: PORTFOLIO_PATH, mode: 'hang', times: 1 });
		const before = portfolioRequests().length;
		const started = Date.now();
		try {
			await expect(searchWith({ requestTimeout: 1 })).rejects.toThrow('The Service did not answer within 1 second');
			expect(Date.now() - started).toBeLessThan(10_000);
			expect(portfolioRequests().length).toBe(before + 1);
		} finally {
			sandbox.control.clearFaults();
		}
	});
});
