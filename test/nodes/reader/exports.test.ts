import { parse } from 'csv-parse/sync';
import type { INodeParameters } from 'n8n-workflow';
import { deepCopy } from 'n8n-workflow';

import { csvLine } from '../../sandbox/csv';
import { spokenQuery } from '../../sandbox/dialect';
import { useSandbox } from '../../sandbox/useSandbox';
import { nameFor } from '../../sandbox/requestDialect';
import { SandboxClient } from '../../sandbox/testClient';
import { READER, readerWorkflow, runWorkflow } from '../../harness';
import {
	accessLogDuring,
	asItems,
	getMany,
	guarded,
	invitationCsvRows,
	joinCsvPages,
	portfolioCsvRows,
	readBinary,
	serviceCredentials,
	serviceJsonRows,
	servicePages,
} from './exportHelpers';

// The list and export operations against the demo sandbox, with a page size of 3 sent from the
// credential so every listing spans several pages.
const sandbox = useSandbox();

const pageSize = 3;
// Queries written in the default dialect's names, as the sandbox's dialect names them on the wire.
const sent = (query: Record<string, unknown>) => spokenQuery(sandbox.dialect, query);
const sentPageSize = (request: { query: Record<string, string> }) => request.query[sandbox.dialect.pageSizeParameter];
const run = async (parameters: INodeParameters, resource: string) =>
	await runWorkflow(readerWorkflow(getMany(resource, parameters)), {
		credentials: serviceCredentials(sandbox, { pageSize }),
	});

describe('Portfolio > Get Many', () => {
	it('returns one item per row across all pages, keyed by the header row, formula guard kept', async () => {
		let result!: Awaited<ReturnType<typeof run>>;
		const log = await accessLogDuring(sandbox, async () => {
			result = await run({ returnAll: true }, 'portfolio');
		});

		expect(result.run.status).toBe('success');
		const expected = portfolioCsvRows(sandbox);
		expect(expected).toHaveLength(10);
		expect(result.output(READER)).toEqual(asItems(expected));
		// The guard is there by default: the formula names arrive as text.
		expect(expected[1].company_name).toBe('\'=HYPERLINK("http://evil.example","click me")');

		const requests = sandbox.control.requests({ path: '/v1/reader/exports/portfolio' });
		expect(requests.map((r) => r.query)).toEqual([
			sent({ format: 'csv', page_size: '3' }),
			sent({ format: 'csv', page_size: '3', cursor: expect.any(String) }),
			sent({ format: 'csv', page_size: '3', cursor: expect.any(String) }),
			sent({ format: 'csv', page_size: '3', cursor: expect.any(String) }),
		]);
		expect(new Set(requests.map((r) => r.query[sandbox.dialect.cursorParameter])).size).toBe(4);
		expect(requests.map((r) => [r.reader, r.status])).toEqual(Array(4).fill(['reader', 200]));
		expect(log).toEqual(
			[1, 2, 3, 4].map((page) => ({
				reader: 'reader',
				export: 'portfolio',
				path: '/v1/reader/exports/portfolio',
				format: 'csv',
				page,
			})),
		);
	});

	it('strips the formula guard when asked', async () => {
		const result = await run({ returnAll: true, options: { stripFormulaGuard: true } }, 'portfolio');
		expect(result.output(READER)).toEqual(asItems(portfolioCsvRows(sandbox, { strip: true })));
		expect(result.output(READER)[1].json.company_name).toBe('=HYPERLINK("http://evil.example","click me")');
	});

	it('asks for format=json when Format is JSON and passes typed rows on unchanged', async () => {
		const result = await run({ returnAll: true, format: 'json' }, 'portfolio');
		const companies = new Map(sandbox.control.companies().map((c) => [c.ke, c]));
		const expected = sandbox.control
			.shares()
			.filter((s) => s.state === 'shared')
			.map((s) => ({
				ke: s.ke,
				company_name: companies.get(s.ke)!.name,
				tier: s.tier,
				status: companies.get(s.ke)!.status,
				decision_due: s.decisionDue,
			}));
		expect(result.output(READER)).toEqual(asItems(expected));
		const queries = sandbox.control.requests({ path: '/v1/reader/exports/portfolio' }).map((r) => r.query[nameFor(sandbox.dialect.request, 'export.json_format')]);
		expect(queries).toEqual(Array(4).fill(sandbox.dialect.jsonFormat));
	});

	it('runs once per input item, pairing each row with its item', async () => {
		const result = await runWorkflow(readerWorkflow(getMany('portfolio', { limit: 2 })), {
			credentials: serviceCredentials(sandbox, { pageSize }),
			inputItems: [{ json: {} }, { json: {} }],
		});
		const rows = portfolioCsvRows(sandbox).slice(0, 2);
		expect(result.output(READER)).toEqual([...asItems(rows, 0), ...asItems(rows, 1)]);
	});
});

describe('Expiry > Get Many', () => {
	it.each([
		['all', undefined],
		['30', '30'],
		['60', '60'],
		['90', '90'],
	])('Window %s lists what the Service lists for that window, as CSV text values', async (window, windowSent) => {
		const result = await run({ returnAll: true, window }, 'expiry');

		const query = windowSent === undefined ? '' : `&window=${windowSent}`;
		const serviceRows = await serviceJsonRows(sandbox, `/v1/reader/exports/expiries?format=json&page_size=100${query}`);
		expect(serviceRows.length).toBeGreaterThan(0);
		const asText = serviceRows.map((row) =>
			Object.fromEntries(Object.entries(row).map(([key, value]) => [key, guarded(String(value))])),
		);
		expect(result.output(READER)).toEqual(asItems(asText));

		const requests = sandbox.control.requests({ path: '/v1/reader/exports/expiries' });
		const nodeRequests = requests.filter((r) => sentPageSize(r) === '3');
		expect(nodeRequests[0].query).toEqual(
			sent(windowSent === undefined ? { format: 'csv', page_size: '3' } : { format: 'csv', page_size: '3', window: windowSent }),
		);
		expect(nodeRequests).toHaveLength(Math.ceil(serviceRows.length / pageSize));
	});

	it('windows narrow the list: 30 days lists fewer rows than all windows', async () => {
		const all = await run({ returnAll: true }, 'expiry');
		const in30 = await run({ returnAll: true, window: '30' }, 'expiry');
		expect(in30.output(READER).length).toBeLessThan(all.output(READER).length);
		expect(in30.output(READER).every((item) => item.json.window_days === '30')).toBe(true);
	});
});

describe('Invitation > Get Many', () => {
	it('returns the invitations as CSV rows, guarded cells kept', async () => {
		const result = await run({ returnAll: true }, 'invitation');
		const expected = invitationCsvRows(sandbox);
		expect(result.output(READER)).toEqual(asItems(expected));
		expect(expected[1]).toMatchObject({ company_name: '\'=cmd|" /C calc"!A0', reader_reference: "'+SUP-002" });
	});

	it('strips the guard on request', async () => {
		const result = await run({ returnAll: true, options: { stripFormulaGuard: true } }, 'invitation');
		expect(result.output(READER)).toEqual(asItems(invitationCsvRows(sandbox, { strip: true })));
	});
});

describe('Decision > Get Many', () => {
	it('pages through the JSON list without a format parameter and passes rows on unchanged', async () => {
		const result = await runWorkflow(readerWorkflow(getMany('decision', { returnAll: true })), {
			credentials: serviceCredentials(sandbox, { pageSize: 1 }),
		});
		const expected = await serviceJsonRows(sandbox, '/v1/reader/exports/decisions?page_size=100');
		expect(expected.length).toBe(2);
		expect(result.output(READER)).toEqual(asItems(expected));
		const requests = sandbox.control.requests({ path: '/v1/reader/exports/decisions' });
		expect(requests.slice(0, 2).map((r) => r.query)).toEqual([
			sent({ page_size: '1' }),
			sent({ page_size: '1', cursor: expect.any(String) }),
		]);
	});
});

describe('Statement > Get Many', () => {
	it('lists the statements of policy runs, findings included', async () => {
		const client = new SandboxClient(sandbox);
		for (const ke of ['KE-1001', 'KE-1009', 'KE-1010', 'KE-1002']) {
			const created = await client.request('/v1/reader/policy-runs', { method: 'POST', body: { [nameFor(sandbox.dialect.request, 'policyRun.ke')]: ke } });
			expect(created.status).toBe(201);
		}
		client.close();

		let result!: Awaited<ReturnType<typeof run>>;
		const log = await accessLogDuring(sandbox, async () => {
			result = await run({ returnAll: true }, 'statement');
		});
		const expected = sandbox.control.statements();
		expect(expected).toHaveLength(4);
		expect(result.output(READER)).toEqual(asItems(expected));
		expect(log.map((e) => [e.export, e.page])).toEqual([
			['statements', 1],
			['statements', 2],
		]);
	});
});

describe('Output: File', () => {
	it('gives one CSV file equal to the pages joined, the header row once', async () => {
		const result = await run(
			{ returnAll: true, output: 'file', binaryPropertyName: 'export' },
			'portfolio',
		);
		const [item] = result.output(READER);
		expect(item.json).toEqual({ export: 'portfolio', fileName: 'portfolio.csv', pages: 4, rows: 10 });
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(item.binary?.export).toMatchObject({ fileName: 'portfolio.csv', mimeType: 'text/csv', fileExtension: 'csv' });

		const pages = await servicePages(sandbox, '/v1/reader/exports/portfolio?format=csv&page_size=3');
		expect(pages).toHaveLength(4);
		const file = await readBinary(item.binary?.export);
		expect(file.toString('utf8')).toBe(joinCsvPages(pages, sandbox.dialect.csv));
		expect(item.binary?.export.bytes).toBe(file.length);
	});

	it('writes the same rows as items mode, and strips the guard from the file when asked', async () => {
		const kept = await run({ returnAll: true, output: 'file' }, 'invitation');
		const keptFile = (await readBinary(kept.output(READER)[0].binary?.data)).toString('utf8');
		expect(parse(keptFile, { columns: true, bom: true, delimiter: sandbox.dialect.csv.delimiter })).toEqual(invitationCsvRows(sandbox));

		const stripped = await run(
			{ returnAll: true, output: 'file', options: { stripFormulaGuard: true } },
			'invitation',
		);
		const strippedFile = (await readBinary(stripped.output(READER)[0].binary?.data)).toString('utf8');
		expect(parse(strippedFile, { columns: true, bom: true, delimiter: sandbox.dialect.csv.delimiter })).toEqual(invitationCsvRows(sandbox, { strip: true }));
		// Exactly the two guard quotes are gone; every other byte is as the Service sent it.
		expect(keptFile.length - strippedFile.length).toBe(2);
		expect(strippedFile.split('\r\n')[0]).toBe(keptFile.split('\r\n')[0]);
	});

	it('stops the file at Limit rows without fetching further pages', async () => {
		const result = await run({ limit: 4, output: 'file' }, 'portfolio');
		const [item] = result.output(READER);
		expect(item.json).toEqual({ export: 'portfolio', fileName: 'portfolio.csv', pages: 2, rows: 4 });
		const whole = joinCsvPages(await servicePages(sandbox, '/v1/reader/exports/portfolio?format=csv&page_size=100'), sandbox.dialect.csv);
		const firstFour = whole.split('\r\n').slice(0, 5).join('\r\n') + '\r\n';
		expect((await readBinary(item.binary?.data)).toString('utf8')).toBe(firstFour);
		const nodeRequests = sandbox.control
			.requests({ path: '/v1/reader/exports/portfolio' })
			.filter((r) => sentPageSize(r) === '3');
		expect(nodeRequests).toHaveLength(2);
	});

	it('keeps the window and writes the expiries file under its own name', async () => {
		const result = await run({ returnAll: true, output: 'file', window: '60' }, 'expiry');
		const [item] = result.output(READER);
		expect(item.binary?.data.fileName).toBe('expiries.csv');
		const pages = await servicePages(sandbox, '/v1/reader/exports/expiries?format=csv&page_size=3&window=60');
		expect((await readBinary(item.binary?.data)).toString('utf8')).toBe(joinCsvPages(pages, sandbox.dialect.csv));
	});
});

describe('access log', () => {
	it.each([
		['decision', 'decisions', 'json'],
		['expiry', 'expiries', 'csv'],
		['invitation', 'invitations', 'csv'],
		['portfolio', 'portfolio', 'csv'],
		['statement', 'statements', 'json'],
	])('Get Many of %s is written to the reader\'s access log, one entry per page', async (resource, listing, format) => {
		let result!: Awaited<ReturnType<typeof run>>;
		const log = await accessLogDuring(sandbox, async () => {
			result = await run({ returnAll: true }, resource);
		});
		const rows = result.output(READER).length;
		expect(rows).toBeGreaterThan(0);
		const pages = Math.ceil(rows / pageSize);
		expect(log).toEqual(
			Array.from({ length: pages }, (_, i) => ({
				reader: 'reader',
				export: listing,
				path: `/v1/reader/exports/${listing}`,
				format,
				page: i + 1,
			})),
		);
	});
});

describe('column names are the Service’s text', () => {
	// One page as the Service would write it in this dialect, answered in place of the portfolio export.
	const answerCsv = (rows: string[][]) =>
		sandbox.control.failRoute({
			path: '/v1/reader/exports/portfolio',
			times: 1,
			mode: 'answer',
			status: 200,
			contentType: 'text/csv; charset=utf-8',
			body: (sandbox.dialect.csv.bom ? '\uFEFF' : '') + rows.map((cells) => csvLine(cells, sandbox.dialect.csv)).join(''),
		});

	it('keeps a column named __proto__ (and constructor) in the item, as an own field n8n saves', async () => {
		answerCsv([
			['ke', '__proto__', 'constructor', 'company_name'],
			['KE-1001', 'kept', 'also kept', 'Acme'],
		]);
		const result = await run({ returnAll: true }, 'portfolio');

		expect(result.run.status).toBe('success');
		const [item] = result.output(READER);
		expect(Object.getOwnPropertyDescriptor(item.json, '__proto__')?.value).toBe('kept');
		expect(Object.getOwnPropertyDescriptor(item.json, 'constructor')?.value).toBe('also kept');
		// What n8n stores in the execution and shows: the item as JSON.
		expect(JSON.stringify(item.json)).toBe('{"ke":"KE-1001","__proto__":"kept","constructor":"also kept","company_name":"Acme"}');
		expect(Object.getPrototypeOf(item.json)).toBe(Object.prototype);
		// n8n's own deepCopy (used by a later node that copies its input, e.g. Edit Fields) drops these names on purpose: out of our hands.
		expect(Object.keys(deepCopy(item.json))).toEqual(['ke', 'company_name']);
	});

	it('refuses a header row naming a column twice, naming the column, the page and what to do', async () => {
		answerCsv([
			['ke', 'tier', 'company_name', 'tier'],
			['KE-1001', 'gold', 'Acme', 'silver'],
		]);
		const result = await run({ returnAll: true }, 'portfolio');

		expect(result.run.status).toBe('error');
		expect(result.output(READER)).toEqual([]);
		const error = result.error(READER);
		expect(error?.message).toBe("The Service's answer for page 1 of the portfolio export could not be read");
		expect(error?.description).toBe(
			'Page 1 of the portfolio export (fetched without a cursor) failed. Nothing was passed on. Its header row names the column "tier" twice (columns 2 and 4), so an item keyed by column name would lose one of its values: ask the Service to name its columns apart, or set Output to File to get the CSV as sent.',
		);
	});
});
