import { getHeapStatistics } from 'node:v8';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { serviceApi } from '../../sandbox/credential';
import { endlessRecordPage, gzipEndlessRecord } from '../../sandbox/endlessRecord';
import { useSandbox } from '../../sandbox/useSandbox';

/**
 * Output: File holds bytes, bounded (issue 36, HIGH): a page that is one endless CSV record, 64 MiB
 * once inflated from a 64 KiB gzip answer, either fails the item naming the record (when it must be
 * read whole: the first page's header row, a row under an expiries window) or is written through
 * (a later page's first record, known early not to be the header row again). Either way the heap
 * grows by far less than the record: before, every held character cost about 32 bytes (2 GiB here).
 * The bound itself is asserted on the filter's own counter (test/unit/csvHeldBytes.property.test.ts).
 */
const sandbox = useSandbox();
const RECORD = 64 * 1024 * 1024;
/** Heap growth allowed while the export runs: n8n's own work and garbage not yet collected, not the record. */
const HEAP_GROWTH = 160 * 1024 * 1024;

let endless: Buffer;
beforeAll(async () => {
	endless = await gzipEndlessRecord(RECORD);
});

afterEach(() => sandbox.control.clearFaults());

/** Page `page` (1-based) of `path` answers the endless record, gzipped, with no next cursor. */
const endlessPage = (path: string, page: number) => endlessRecordPage(sandbox.control, endless, path, page);

/** Runs the Reader, sampling the heap meanwhile; returns the error and the heap's growth at its peak. */
async function runSampled(parameters: INodeParameters, advanced: IDataObject) {
	const before = getHeapStatistics().used_heap_size;
	let peak = before;
	const sampler = setInterval(() => {
		peak = Math.max(peak, getHeapStatistics().used_heap_size);
	}, 5);
	try {
		const result = await runWorkflow(readerWorkflow(parameters), { credentials: { serviceApi: serviceApi(sandbox, { advanced }) } });
		return { error: result.error(READER), result, growth: peak - before };
	} finally {
		clearInterval(sampler);
	}
}

const file = { operation: 'getAll', returnAll: true, output: 'file' };

it('a first page whose header row is one endless record (CSV Delimiter set) fails at 1 MiB naming it', async () => {
	endlessPage('/v1/reader/exports/portfolio', 1);
	const { error, growth } = await runSampled({ resource: 'portfolio', ...file }, { csvDelimiter: 'comma' });
	expect(error?.message).toBe("The Service's answer for page 1 of the portfolio export could not be read");
	expect(error?.description).toContain('Page 1 of the portfolio export (fetched without a cursor) failed. Nothing was passed on.');
	expect(error?.description).toContain('Its header row is a single CSV record longer than 1 MiB, the most the file export holds of one record before writing it');
	expect(growth).toBeLessThan(HEAP_GROWTH);
});

it('a later page that is one endless record under an expiries window fails at 1 MiB naming the row', async () => {
	endlessPage('/v1/reader/exports/expiries', 2);
	const { error, growth } = await runSampled({ resource: 'expiry', ...file, window: '30' }, { pageSize: 2, pageSizeParameter: sandbox.dialect.pageSizeParameter });
	expect(error?.message).toBe("The Service's answer for page 2 of the expiries export could not be read");
	expect(error?.description).toMatch(/^Page 2 of the expiries export \(fetched with cursor "[^"]+"\) failed\./);
	expect(error?.description).toContain('Row 1 of the page is a single CSV record longer than 1 MiB, the most the file export holds of one record before writing it, so it cannot be checked against the expiries window: choose All Windows');
	expect(growth).toBeLessThan(HEAP_GROWTH);
});

it('a later page that is one endless record with no window is written through, until Max File Size stops it', async () => {
	endlessPage('/v1/reader/exports/portfolio', 2);
	const { error, growth } = await runSampled({ resource: 'portfolio', ...file }, { pageSize: 2, pageSizeParameter: sandbox.dialect.pageSizeParameter, maxFileSize: 16 });
	expect(error?.message).toBe("The Service's answer for page 2 of the portfolio export could not be read");
	expect(error?.description).toContain('The file grew past 16 MiB, the Max File Size under Advanced Settings in the Service API credential');
	expect(growth).toBeLessThan(HEAP_GROWTH);
});
