import { isDeepStrictEqual } from 'node:util';

import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { useSandbox } from '../../sandbox/useSandbox';
import {
	accessLogDuring,
	getMany,
	joinCsvPages,
	portfolioCsvRows,
	readBinary,
	serviceCredentials,
	servicePages,
} from './exportHelpers';

// A portfolio of 100,000 companies in 100 pages of 1,000 rows: every row comes out once, in order,
// as items and as one CSV file. A correctness test: nothing here measures time.
const ROWS = 100_000;
const PAGE_SIZE = 1_000;
const PAGES = ROWS / PAGE_SIZE;
const sandbox = useSandbox({ seed: 'empty', portfolioRows: ROWS });

const credentials = () => serviceCredentials(sandbox, { pageSize: PAGE_SIZE });

it('gives 100,000 items from 100 pages, each row as the Service holds it', async () => {
	let result!: Awaited<ReturnType<typeof runWorkflow>>;
	const log = await accessLogDuring(sandbox, async () => {
		result = await runWorkflow(readerWorkflow(getMany('portfolio', { returnAll: true })), {
			credentials: credentials(),
		});
	});

	expect(result.run.status).toBe('success');
	const items = result.output(READER);
	expect(items).toHaveLength(ROWS);
	const expected = portfolioCsvRows(sandbox);
	expect(expected).toHaveLength(ROWS);
	// Compared row by row (one toEqual over 100,000 items makes an unreadable diff on failure).
	const mismatches = items.flatMap((item, index) =>
		isDeepStrictEqual(item.json, expected[index]) && isDeepStrictEqual(item.pairedItem, { item: 0 })
			? []
			: [{ index, got: item, want: expected[index] }],
	);
	expect(mismatches.slice(0, 3)).toEqual([]);
	expect(new Set(items.map((item) => item.json.ke)).size).toBe(ROWS);
	expect(log.map((e) => e.page)).toEqual(Array.from({ length: PAGES }, (_, i) => i + 1));
});

it('gives one CSV file identical to the 100 pages joined, the header row once', async () => {
	let result!: Awaited<ReturnType<typeof runWorkflow>>;
	const log = await accessLogDuring(sandbox, async () => {
		result = await runWorkflow(readerWorkflow(getMany('portfolio', { returnAll: true, output: 'file' })), {
			credentials: credentials(),
		});
	});

	expect(result.run.status).toBe('success');
	const [item] = result.output(READER);
	expect(item.json).toEqual({ export: 'portfolio', fileName: 'portfolio.csv', pages: PAGES, rows: ROWS });
	expect(log).toHaveLength(PAGES);

	const pages = await servicePages(sandbox, `/v1/reader/exports/portfolio?format=csv&page_size=${PAGE_SIZE}`);
	expect(pages).toHaveLength(PAGES);
	const expected = Buffer.from(joinCsvPages(pages, sandbox.dialect.csv), 'utf8');
	const file = await readBinary(item.binary?.data);
	expect(file.length).toBe(expected.length);
	expect(file.equals(expected)).toBe(true);
	const header = pages[0].slice(0, pages[0].indexOf('\r\n'));
	expect(file.toString('utf8').split('\r\n').filter((line) => line === header)).toHaveLength(1);
});
