import type { INodeParameters } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { useSandbox } from '../../sandbox/useSandbox';
import { readBinary, serviceCredentials } from './exportHelpers';

/**
 * Output: File keeps the Service's bytes whatever the charset (README, docs/token-and-limits.md): a
 * page is never decoded and encoded again; the header row repeated on a later page and a later page's
 * byte order mark are found on the bytes and dropped, nothing else changes.
 */
const sandbox = useSandbox();
const PATH = '/v1/reader/exports/portfolio';
const file: INodeParameters = { resource: 'portfolio', operation: 'getAll', returnAll: true, format: 'csv', output: 'file' };

/** Two pages served as raw bytes (latin1 text: one character, one byte), the first handing out cursor p2. */
function servePages(first: Buffer, second: Buffer, contentType: string): void {
	sandbox.control.failRoute({ path: PATH, mode: 'answer', status: 200, contentType, body: first.toString('latin1'), bodyEncoding: 'latin1', headers: { 'X-Service-Next-Cursor': 'p2' }, times: 1 });
	sandbox.control.failRoute({ path: PATH, mode: 'answer', status: 200, contentType, body: second.toString('latin1'), bodyEncoding: 'latin1', times: 1 });
}

async function exportedFile(): Promise<{ bytes: Buffer; json: Record<string, unknown> }> {
	const result = await runWorkflow(readerWorkflow(file), { credentials: serviceCredentials(sandbox) });
	expect(result.error(READER)).toBeUndefined();
	const [item] = result.output(READER);
	return { bytes: await readBinary(item.binary?.data), json: item.json };
}

describe('Output: File keeps the bytes', () => {
	afterEach(() => sandbox.control.clearFaults());

	it('a windows-1252 export: 0xFC arrives as 0xFC (not EF BF BD), the repeated header row found on its bytes and dropped', async () => {
		const header = Buffer.from('ke;company_name;city\r\n', 'latin1');
		const first = Buffer.concat([header, Buffer.from('KE-1;"M\xFCller; S\xF6hne";K\xF6ln\r\n', 'latin1')]);
		// The header repeated, then a row whose name is in bytes only windows-1252 reads (0x80 is the euro sign there).
		const rows2 = Buffer.from('KE-2;Stra\xDFe \x80 GmbH;D\xFCsseldorf\r\n', 'latin1');
		servePages(first, Buffer.concat([header, rows2]), 'text/csv; charset=windows-1252');
		const { bytes, json } = await exportedFile();
		expect(bytes.equals(Buffer.concat([first, rows2]))).toBe(true);
		expect(bytes.includes(Buffer.from([0xef, 0xbf, 0xbd]))).toBe(false);
		expect(bytes[bytes.indexOf(Buffer.from('M', 'latin1')) + 1]).toBe(0xfc);
		expect(json).toMatchObject({ pages: 2, rows: 2 });
	});

	it('UTF-8 with a byte order mark on every page: the first kept, the later one (found on its bytes) dropped, the rest unchanged', async () => {
		const bom = Buffer.from([0xef, 0xbb, 0xbf]);
		const header = Buffer.from('ke,company_name\n', 'utf8');
		const first = Buffer.concat([bom, header, Buffer.from('KE-1,Zürich AG\n', 'utf8')]);
		const rows2 = Buffer.from('KE-2,Ølstykke ApS\n', 'utf8');
		servePages(first, Buffer.concat([bom, header, rows2]), 'text/csv; charset=utf-8');
		const { bytes, json } = await exportedFile();
		expect(bytes.equals(Buffer.concat([first, rows2]))).toBe(true);
		expect(json).toMatchObject({ pages: 2, rows: 2 });
	});

	it('bytes that are not UTF-8 inside a quoted cell holding the delimiter and a line break pass as they are', async () => {
		const first = Buffer.from('ke,company_name\r\nKE-1,"a,\xFF\xFE\r\nb"\r\n', 'latin1');
		const rows2 = Buffer.from('KE-2,\xC3\x28\r\n', 'latin1');
		servePages(first, Buffer.concat([Buffer.from('ke,company_name\r\n'), rows2]), 'text/csv');
		const { bytes, json } = await exportedFile();
		expect(bytes.equals(Buffer.concat([first, rows2]))).toBe(true);
		expect(json).toMatchObject({ pages: 2, rows: 2 });
	});
});
