import { Container } from '@n8n/di';
import { BinaryDataConfig } from 'n8n-core';
import type { INodeParameters } from 'n8n-workflow';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { spokenQuery } from '../../sandbox/dialect';
import { useSandbox } from '../../sandbox/useSandbox';
import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { accessLogDuring, asItems, getMany, portfolioCsvRows, serviceCredentials } from './exportHelpers';
import { startRenamingProxy } from './renamingProxy';

// Paging, Limit, the cursor parameter, page faults and Service refusals of the list operations.
const sandbox = useSandbox();
afterEach(() => sandbox.control.clearFaults());

const PORTFOLIO = '/v1/reader/exports/portfolio';

async function runPortfolio(
	parameters: INodeParameters,
	credentialOptions: Parameters<typeof serviceCredentials>[1] = { pageSize: 3 },
	nodeOptions = {},
) {
	return await runWorkflow(readerWorkflow(getMany('portfolio', parameters), nodeOptions), {
		credentials: serviceCredentials(sandbox, credentialOptions),
	});
}

/** The cursor each portfolio request was sent with, and the status it got, in order. */
function portfolioRequests() {
	return sandbox.control.requests({ path: PORTFOLIO }).map((r) => ({ cursor: r.query[sandbox.dialect.cursorParameter], status: r.status }));
}

/** Files n8n's binary data service holds on disk (temporary files included). */
function storedFiles(): string[] {
	const root = Container.get(BinaryDataConfig).localStoragePath;
	if (!existsSync(root)) return [];
	return readdirSync(root, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => join(entry.parentPath, entry.name));
}

describe('Return All and Limit', () => {
	it('Return All follows the cursor through every page', async () => {
		const result = await runPortfolio({ returnAll: true });
		expect(result.output(READER)).toEqual(asItems(portfolioCsvRows(sandbox)));
		expect(portfolioRequests().map((r) => r.status)).toEqual([200, 200, 200, 200]);
	});

	it.each([
		[1, 1],
		[3, 1],
		[4, 2],
		[7, 3],
	])('Limit %d returns the first rows and fetches only %d page(s)', async (limit, pages) => {
		let result!: Awaited<ReturnType<typeof runPortfolio>>;
		const log = await accessLogDuring(sandbox, async () => {
			result = await runPortfolio({ limit });
		});
		expect(result.output(READER)).toEqual(asItems(portfolioCsvRows(sandbox).slice(0, limit)));
		expect(portfolioRequests()).toHaveLength(pages);
		expect(log.map((e) => e.page)).toEqual(Array.from({ length: pages }, (_, i) => i + 1));
	});

	it('Limit defaults to 50', async () => {
		const result = await runPortfolio({}, { pageSize: 4 });
		expect(result.output(READER)).toHaveLength(10);
	});

	it('sends no page size when the credential sets none (the Service default applies)', async () => {
		const result = await runPortfolio({ returnAll: true }, {});
		expect(result.output(READER)).toEqual(asItems(portfolioCsvRows(sandbox)));
		expect(sandbox.control.requests({ path: PORTFOLIO }).map((r) => r.query)).toEqual([{ format: 'csv' }]);
	});
});

describe('cursor parameter from the credential', () => {
	it('pages through a Service whose cursor parameter is named otherwise', async () => {
		// The proxy turns `next_token` into the sandbox's own cursor name, like a Service that reads `next_token`.
		const own = sandbox.dialect.cursorParameter;
		const proxy = await startRenamingProxy(sandbox, 'next_token', own);
		try {
			const result = await runWorkflow(readerWorkflow(getMany('portfolio', { returnAll: true })), {
				credentials: {
					serviceApi: {
						...serviceCredentials(sandbox, { pageSize: 3, cursorParameter: 'next_token' }).serviceApi,
						baseUrl: proxy.baseUrl,
					},
				},
			});

			expect(result.output(READER)).toEqual(asItems(portfolioCsvRows(sandbox)));
			const sandboxCursors = sandbox.control.requests({ path: PORTFOLIO }).map((r) => r.query[own]);
			expect(sandboxCursors).toHaveLength(4);
			// The node sent each cursor as `next_token` and never under the sandbox's own name.
			const firstPage = spokenQuery(sandbox.dialect, { format: 'csv', page_size: '3' });
			expect(proxy.received).toEqual(
				sandboxCursors.map((cursor) => (cursor === undefined ? firstPage : { ...firstPage, next_token: cursor })),
			);
		} finally {
			await proxy.close();
		}
	});

	it('sends the cursor under the configured name, and stops at the repeated page when the Service ignores it', async () => {
		// The sandbox reads only its own name: told to use `next_token`, the node sends `next_token`, gets
		// page 1 again, and stops there, naming Send Cursor As, instead of looping or passing rows twice.
		const result = await runPortfolio({ returnAll: true }, { pageSize: 3, cursorParameter: 'next_token' });

		const requests = sandbox.control.requests({ path: PORTFOLIO });
		expect(requests).toHaveLength(2);
		const cursor = requests[1].query.next_token;
		const firstPage = spokenQuery(sandbox.dialect, { format: 'csv', page_size: '3' });
		expect(requests.map((r) => r.query)).toEqual([firstPage, { ...firstPage, next_token: cursor }]);
		expect(cursor).toEqual(expect.any(String));

		expect(result.output(READER)).toEqual([]);
		const error = result.error(READER);
		expect(error?.message).toBe('Page 2 of the portfolio export repeated rows already read, so the Service did not read the cursor: check Send Cursor As');
		expect(error?.description).toBe(
			`Page 2 of the portfolio export (fetched with cursor "${cursor}") failed. The 3 rows of the 1 earlier page were not passed on, so an incomplete portfolio export never reaches the next node; run the node again to fetch it whole. It held only rows an earlier page gave, though fetched with a new cursor: the Service answered the first page again. The cursor was sent in the query parameter "next_token". If the Service reads it from a header (such as Service-Cursor), set Send Cursor As to Header with that Cursor Header Name; otherwise check Cursor Parameter under Advanced Settings in the Service API credential.`,
		);
	});
});

describe('a page that fails', () => {
	it('fails the item after retries on 500, naming the page and its cursor; nothing is passed on', async () => {
		sandbox.control.failPage({ route: 'portfolio', page: 2, mode: '500', times: 4 });
		const result = await runPortfolio({ returnAll: true });

		const requests = portfolioRequests();
		expect(requests.map((r) => r.status)).toEqual([200, 500, 500, 500, 500]);
		const cursor = requests[1].cursor;
		expect(new Set(requests.slice(1).map((r) => r.cursor))).toEqual(new Set([cursor]));

		expect(result.run.status).toBe('error');
		expect(result.output(READER)).toEqual([]);
		const error = result.error(READER);
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toBe('The Service failed to answer (500 after 4 attempts)');
		expect(error?.description).toBe(
			`Page 2 of the portfolio export (fetched with cursor "${cursor}") failed. The 3 rows of the 1 earlier page were not passed on, so an incomplete portfolio export never reaches the next node; run the node again to fetch it whole. This is a fault on the Service's side; try again later. The Service said: "Page 2 of the portfolio export failed (sandbox fault): retry the same cursor." (GET /v1/reader/exports/portfolio)`,
		);
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(0);
	});

	it('fails the item when the connection drops on every try of a middle page', async () => {
		sandbox.control.failPage({ route: 'portfolio', page: 3, mode: 'drop', times: 4 });
		const result = await runPortfolio({ returnAll: true });

		const requests = portfolioRequests();
		expect(requests.map((r) => r.status)).toEqual([200, 200, undefined, undefined, undefined, undefined]);
		const cursor = requests[2].cursor;
		expect(result.output(READER)).toEqual([]);
		const error = result.error(READER);
		expect(error?.name).toBe('NodeApiError');
		expect(error?.description).toContain(
			`Page 3 of the portfolio export (fetched with cursor "${cursor}") failed. The 6 rows of the 2 earlier pages were not passed on`,
		);
		expect(error?.description).toContain('The connection failed or was dropped during GET /v1/reader/exports/portfolio');
	});

	it('fails the file too: no file is stored and nothing is passed on', async () => {
		sandbox.control.failPage({ route: 'portfolio', page: 2, mode: '500', times: 4 });
		const before = storedFiles();
		const result = await runPortfolio({ returnAll: true, output: 'file' });

		expect(result.output(READER)).toEqual([]);
		const cursor = portfolioRequests()[1].cursor;
		expect(result.error(READER)?.description).toContain(
			`Page 2 of the portfolio export (fetched with cursor "${cursor}") failed. The 3 rows of the 1 earlier page were not passed on`,
		);
		expect(storedFiles()).toEqual(before);
	});

	it('fails the file when the first page fails, saying nothing was passed on', async () => {
		sandbox.control.failPage({ route: 'portfolio', page: 1, mode: '500', times: 4 });
		const result = await runPortfolio({ returnAll: true, output: 'file' });
		expect(result.error(READER)?.description).toMatch(
			/^Page 1 of the portfolio export \(fetched without a cursor\) failed\. Nothing was passed on\. /,
		);
	});

	it('waits out a 429 as its Retry-After (or RateLimit-Reset) says and carries on with the same cursor', async () => {
		// Asked again sooner than announced, the sandbox would answer 429 again.
		sandbox.control.failPage({ route: 'portfolio', page: 2, mode: '429', retryAfterSeconds: 1, enforce: true });
		const result = await runPortfolio({ returnAll: true });

		expect(result.run.status).toBe('success');
		expect(result.output(READER)).toEqual(asItems(portfolioCsvRows(sandbox)));
		const requests = portfolioRequests();
		expect(requests.map((r) => r.status)).toEqual([200, 429, 200, 200, 200]);
		expect(requests[2].cursor).toBe(requests[1].cursor);
	});
});

describe('the Service refuses', () => {
	it('a wrong token fails with the 401 words and no items', async () => {
		const result = await runPortfolio({ returnAll: true }, { pageSize: 3, accessToken: 'svc_not_a_token' });
		expect(result.output(READER)).toEqual([]);
		const error = result.error(READER);
		expect(error?.message).toBe('The Service rejected the access token (401)');
		expect(error?.description).toMatch(
			/^Page 1 of the portfolio export \(fetched without a cursor\) failed\. Nothing was passed on\. Check the Access Token in the Service API credential/,
		);
		expect(JSON.stringify(error)).not.toContain('svc_not_a_token');
	});

	it('exports switched off fail with the 403 words', async () => {
		const result = await runPortfolio({ returnAll: true }, { pageSize: 3, reader: 'noExports' });
		expect(result.error(READER)?.message).toBe('Exports are not switched on for this reader organisation (403)');
		expect(result.error(READER)?.description).toContain('Ask the Service to switch exports on for your reader organisation.');
	});

	it('a 404 on a list route is the plain error (no company is involved)', async () => {
		// A Base URL with an extra path segment makes every route unknown to the sandbox.
		const credentials = serviceCredentials(sandbox, { pageSize: 3 });
		const result = await runWorkflow(readerWorkflow(getMany('decision', { returnAll: true })), {
			credentials: { serviceApi: { ...credentials.serviceApi, baseUrl: `${sandbox.baseUrl}/elsewhere` } },
		});
		const error = result.error(READER);
		expect(error?.message).toBe('The Service has nothing at this address (404)');
		expect(error?.description).toMatch(/^Page 1 of the decisions export \(fetched without a cursor\) failed\. Nothing was passed on\. /);
		expect(sandbox.control.requests().map((r) => [r.path, r.status])).toEqual([
			['/elsewhere/v1/reader/exports/decisions', 404],
		]);
	});

	it('a reader organisation without a reader admin fails with the 403 words', async () => {
		const result = await runPortfolio({ returnAll: true }, { pageSize: 3, reader: 'noAdmin' });
		expect(result.error(READER)?.message).toBe('This reader organisation has no reader admin (403)');
	});
});

describe('continue on fail and bad input', () => {
	it('gives an error item paired with the failing input item, and the other item its rows', async () => {
		sandbox.control.failPage({ route: 'portfolio', page: 2, mode: '500', times: 4 });
		const result = await runWorkflow(
			readerWorkflow(getMany('portfolio', { limit: '={{ $json.limit }}' }), { onError: 'continueRegularOutput' }),
			{
				credentials: serviceCredentials(sandbox, { pageSize: 3 }),
				inputItems: [{ json: { limit: 2 } }, { json: { limit: 5 } }],
			},
		);

		expect(result.run.status).toBe('success');
		const output = result.output(READER);
		expect(output.slice(0, 2)).toEqual(asItems(portfolioCsvRows(sandbox).slice(0, 2), 0));
		expect(output).toHaveLength(3);
		expect(output[2].pairedItem).toEqual({ item: 1 });
		expect(output[2].json.error).toBe('The Service failed to answer (500 after 4 attempts)');
		expect(output[2].json.description).toMatch(
			/^Page 2 of the portfolio export \(fetched with cursor ".+"\) failed\. The 3 rows of the 1 earlier page were not passed on/,
		);
	});

	it.each([
		['Limit', { limit: '={{ 0 }}' }, 'Limit is not usable: Enter a whole number of 1 or more, or switch on Return All. [item 0]'],
		['Limit', { limit: '={{ 2.5 }}' }, 'Limit is not usable: Enter a whole number of 1 or more, or switch on Return All. [item 0]'],
		[
			'Put Output File in Field',
			{ returnAll: true, output: 'file', binaryPropertyName: ' ' },
			'Put Output File in Field is not usable: Enter the name of the binary field to put the CSV file in, for example "data". [item 0]',
		],
		['Format', { format: '={{ "xml" }}' }, 'Format is not usable: Choose CSV or JSON (an expression must give "csv" or "json"). [item 0]'],
	])('refuses a bad %s before any request', async (_field, parameters, message) => {
		const result = await runPortfolio(parameters as INodeParameters);
		const error = result.error(READER);
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toBe(message);
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(0);
		expect(sandbox.control.requests()).toEqual([]);
	});

	it('refuses a bad Window before any request', async () => {
		const result = await runWorkflow(readerWorkflow(getMany('expiry', { window: '={{ "45" }}' })), {
			credentials: serviceCredentials(sandbox),
		});
		expect(result.error(READER)?.message).toBe('Window is not usable: Choose All Windows or 30, 60 or 90 days. [item 0]');
		expect(result.error(READER)?.description).toBe('The item has Window "45". Choose All Windows or 30, 60 or 90 days.');
		expect(sandbox.control.requests()).toEqual([]);
	});
});
