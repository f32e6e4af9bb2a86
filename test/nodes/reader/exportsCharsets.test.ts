import type { INodeParameters } from 'n8n-workflow';

import { listSearch, READER, readerWorkflow, runWorkflow, trustCa } from '../../harness';
import { ServiceReader } from '../../../nodes/ServiceReader/ServiceReader.node';
import { PollHarness } from '../../harness/pollHarness';
import { ServiceChangesTrigger } from '../../../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import { startSandbox, type Sandbox } from '../../sandbox';
import { defaultCsvFormat, type CsvFormat } from '../../sandbox/csv';
import type { Encoding } from '../../sandbox/csvEncoding';
import { defaultDialect } from '../../sandbox/dialect';
import { getMany, joinCsvPageBytes, portfolioCsvRows, readBinary, serviceCredentials, servicePageBytes } from './exportHelpers';

/**
 * CSV as Excel-minded Services ship it (issue 44 item 3): UTF-16LE/BE with a byte order mark,
 * windows-1252 named in Content-Type, Excel's `sep=` first line; later pages without the header row
 * too. Items equal the rows of the UTF-8 export (and the sandbox's data), the file keeps the bytes as
 * sent (the first page's mark and sep= line once), expiries under a window are checked, and the Changes
 * Trigger emits the same changes.
 */

const SHAPES: Array<[string, Partial<CsvFormat>]> = [
	['UTF-16LE with a BOM', { encoding: 'utf-16le' }],
	['UTF-16BE with a BOM, a sep= line, header on the first page only', { encoding: 'utf-16be', sep: true, delimiter: ';', headerEveryPage: false }],
	['windows-1252 with a sep= line', { encoding: 'windows-1252', sep: true, delimiter: '|' }],
	['UTF-8 with a sep= line naming a tab', { encoding: 'utf-8' as Encoding, sep: true, delimiter: '\t', bom: true }],
];

describe.each(SHAPES)('CSV in %s', (_name, shape) => {
	let sandbox: Sandbox;
	const format: CsvFormat = { ...defaultCsvFormat, ...shape };
	beforeAll(async () => {
		sandbox = await startSandbox({ dialect: { ...defaultDialect, csv: format } });
		trustCa(sandbox.ca);
	});
	afterAll(async () => {
		await sandbox.close();
	});
	const run = async (parameters: INodeParameters, resource = 'portfolio') =>
		await runWorkflow(readerWorkflow(getMany(resource, parameters)), { credentials: serviceCredentials(sandbox, { pageSize: 3 }) });

	it('reads the same items as UTF-8, on Detect', async () => {
		const items = await run({ returnAll: true });
		expect(items.error(READER)).toBeUndefined();
		expect(items.output(READER).map((item) => item.json)).toEqual(portfolioCsvRows(sandbox));
		expect(JSON.stringify(items.output(READER))).toContain("Société Générale d'Été");
	});

	it('writes the file as sent: kept records byte for byte, the first page\'s mark and sep= line once', async () => {
		const file = await run({ returnAll: true, output: 'file' });
		expect(file.error(READER)).toBeUndefined();
		const bytes = await readBinary(file.output(READER)[0].binary?.data);
		const pages = await servicePageBytes(sandbox, '/v1/reader/exports/portfolio?format=csv&page_size=3');
		expect(pages.length).toBeGreaterThan(2);
		expect(bytes.equals(joinCsvPageBytes(pages, format))).toBe(true);
	});

	it('checks expiries against the window in the file too, and keeps them as sent', async () => {
		const file = await run({ returnAll: true, output: 'file', window: '60' }, 'expiry');
		expect(file.error(READER)).toBeUndefined();
		const pages = await servicePageBytes(sandbox, '/v1/reader/exports/expiries?format=csv&page_size=3&window=60');
		expect((await readBinary(file.output(READER)[0].binary?.data)).equals(joinCsvPageBytes(pages, format))).toBe(true);
		const items = await run({ returnAll: true, window: '60' }, 'expiry');
		expect(items.error(READER)).toBeUndefined();
		expect(items.output(READER).length).toBeGreaterThan(0);
	});

	it('offers every company in the KE picker, page after page', async () => {
		const values: string[] = [];
		let paginationToken: string | undefined;
		for (let page = 0; page < 20; page++) {
			const result = await listSearch(new ServiceReader(), 'searchCompanies', {
				credentials: serviceCredentials(sandbox, { pageSize: 3 }),
				parameters: { resource: 'record', operation: 'get' },
				paginationToken,
			});
			values.push(...result.results.map((choice) => String(choice.value)));
			paginationToken = result.paginationToken as string | undefined;
			if (paginationToken === undefined) break;
		}
		expect(values).toEqual(portfolioCsvRows(sandbox).map((row) => row.ke));
	});

	it('lets the Changes Trigger emit the rows changed and removed', async () => {
		const harness = new PollHarness({ nodeType: new ServiceChangesTrigger(), credentials: serviceCredentials(sandbox, { pageSize: 3 }) });
		await harness.activate();
		const before = portfolioCsvRows(sandbox);
		sandbox.control.endShare('KE-1002');
		const was = before.find((row) => row.ke === 'KE-1009')!;
		sandbox.control.changeShare('KE-1009', { tier: `${was.tier}-next` });
		const now = portfolioCsvRows(sandbox);
		const { items, error } = await harness.poll();
		expect(error).toBeUndefined();
		expect(items?.map((item) => item.json)).toEqual([
			{ change: 'changed', export: 'portfolio', key: 'KE-1009', row: now.find((row) => row.ke === 'KE-1009'), previous: { tier: was.tier } },
			{ change: 'removed', export: 'portfolio', key: 'KE-1002', row: before.find((row) => row.ke === 'KE-1002') },
		]);
	});
});
