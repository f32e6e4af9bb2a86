import { gzipSync } from 'node:zlib';

import type { INodeParameters } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { captureLogs } from '../../harness/logCapture';
import { allFields, expectNoToken } from '../../property/tokenDecoders';
import { useSandbox } from '../../sandbox/useSandbox';
import { readBinary, serviceCredentials } from '../reader/exportHelpers';

/**
 * Issue 31, the attacker's second round against the Service Reader: new variants of each class, each
 * probe named by the promise it checks (docs/token-and-limits.md, README "Limits and safety").
 */
const TOKEN = 'svc_reader_Qm7/x+Lp3Wd9Tz';
const sandbox = useSandbox({ tokens: { reader: TOKEN } });

const PORTFOLIO = '/v1/reader/exports/portfolio';
const CATALOGUE = '/v1/reader/webhooks/catalogue';
const catalogue: INodeParameters = { resource: 'webhook', operation: 'getCatalogue' };
const portfolioItems: INodeParameters = { resource: 'portfolio', operation: 'getAll', returnAll: true, format: 'csv' };
const portfolioFile: INodeParameters = { ...portfolioItems, output: 'file' };
const portfolioJson: INodeParameters = { resource: 'portfolio', operation: 'getAll', returnAll: true, format: 'json' };

type Answer = { status: number; contentType: string; body: string; headers?: Record<string, string>; bodyEncoding?: 'utf8' | 'latin1'; times?: number };
const answer = (path: string, a: Answer) => sandbox.control.failRoute({ path, mode: 'answer', ...a });

/** Runs the reader and returns everything n8n stores of the run, and the log lines written meanwhile. */
async function storedAfter(parameters: INodeParameters, continueOnFail = false) {
	const logs = captureLogs();
	try {
		const result = await runWorkflow(readerWorkflow(parameters, { continueOnFail }), { credentials: serviceCredentials(sandbox) });
		return { result, stored: JSON.stringify({ run: allFields(result.run), logs: logs.lines }) };
	} finally {
		logs.restore();
	}
}

const hex2 = (c: number) => c.toString(16).padStart(2, '0');
/** The token in numeric HTML references with no closing ';' (hex and decimal, alternating). */
function htmlNoSemicolon(token: string): string {
	return [...token].map((ch, i) => (i % 2 ? `&#x${hex2(ch.charCodeAt(0))}` : `&#${ch.charCodeAt(0)}`)).join('');
}
/** A decoder for numeric references without ';' (the shared test decoder reads them too; this one is independent). */
const decodeHtmlLoose = (text: string) =>
	text.replace(/&#x([0-9a-f]+);?|&#([0-9]+);?/gi, (_m, h?: string, d?: string) => String.fromCodePoint(h ? parseInt(h, 16) : parseInt(d!, 10)));

describe('attack, token: "Nothing the Service sends back shows the token ... in an output item, an error n8n stores, a log line, a file name"', () => {
	afterEach(() => sandbox.control.clearFaults());

	test('"under HTML-entity decoding: `&#x2F;` ... `&#47;` ... with or without the closing `;`": numeric references without ";" in an error message and a list value', async () => {
		const loose = htmlNoSemicolon(TOKEN);
		expect(decodeHtmlLoose(loose)).toBe(TOKEN);
		for (const [status, body] of [
			[400, `{"error":{"code":"bad","message":"see ${loose} here"}}`],
			[200, `{"data":[{"event_type":"x","description":"see ${loose} here"}]}`],
		] as const) {
			sandbox.control.clearFaults();
			answer(CATALOGUE, { status, contentType: 'application/json', body });
			const { stored } = await storedAfter(catalogue, true);
			expect(decodeHtmlLoose(stored)).not.toContain(TOKEN);
			expectNoToken(stored, TOKEN);
		}
	});

	test('"every own field of every error ... at any depth": the token 40 levels deep in an error body is not stored (the body\'s words are kept, not its depth)', async () => {
		let nested = `"${TOKEN}"`;
		for (let i = 0; i < 40; i++) nested = `{"d${i}":${nested},"k":["${TOKEN}"]}`;
		answer(CATALOGUE, { status: 400, contentType: 'application/json', body: `{"error":{"code":"bad","message":"x","detail":${nested}}}` });
		const { result, stored } = await storedAfter(catalogue);
		expect(result.error(READER)).toBeDefined();
		expectNoToken(stored, TOKEN);
	});

	test('"CSV pages as bytes ... every item the Reader outputs": the token as a CSV column name and in cells (raw, %-encoded lower case, \\u-escaped)', async () => {
		const url = [...TOKEN].map((c) => `%${hex2(c.charCodeAt(0))}`).join('');
		const json = [...TOKEN].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
		answer(PORTFOLIO, { status: 200, contentType: 'text/csv', body: `ke,company_name,${TOKEN}\r\nKE-1,${url},${json}\r\nKE-2,"a ""${TOKEN}"" b",x\r\n` });
		const { result, stored } = await storedAfter(portfolioItems);
		expect(result.error(READER)).toBeUndefined();
		expect(result.output(READER).map((i) => i.json.ke)).toEqual(['KE-1', 'KE-2']);
		expectNoToken(stored, TOKEN);
	});

	test('"a cursor seen before still fails at once" and shows nothing of the token: the token repeated as the cursor', async () => {
		answer(PORTFOLIO, { status: 200, contentType: 'application/json', body: '{"data":[{"ke":"KE-1"}]}', headers: { 'X-Service-Next-Cursor': TOKEN } });
		const { result, stored } = await storedAfter(portfolioJson);
		expect(result.error(READER)?.message ?? '').toMatch(/cursor/i);
		expectNoToken(stored, TOKEN);
	});

	test('"a `Retry-After` longer than what is left fails the item at once, saying how long the Service asked": a Retry-After holding the token is not quoted', async () => {
		answer(CATALOGUE, { status: 429, contentType: 'application/json', body: '{"error":{"code":"slow","message":"later"}}', headers: { 'Retry-After': `${TOKEN}` }, times: 1 });
		answer(CATALOGUE, { status: 429, contentType: 'application/json', body: '{"error":{"code":"slow","message":"later"}}', headers: { 'Retry-After': `9999, ${TOKEN}` } });
		const { result, stored } = await storedAfter(catalogue);
		expect(result.error(READER)).toBeDefined();
		expectNoToken(stored, TOKEN);
	});

	test('"a 3xx fails the item with the status and the target host (never its path or query)": the token in the Location\'s user info, path, query and fragment, in URL forms', async () => {
		const url = encodeURIComponent(TOKEN);
		const lower = [...TOKEN].map((c) => `%${hex2(c.charCodeAt(0))}`).join('');
		for (const location of [
			`https://user:${url}@evil.example/x`,
			`https://${lower}@evil.example/`,
			`https://evil.example/${TOKEN}?t=${url}#${lower}`,
			`//evil.example/${url}`,
			`/${lower}`,
		]) {
			sandbox.control.clearFaults();
			answer(CATALOGUE, { status: 302, contentType: 'text/html', body: `<a href="${location}">moved</a>`, headers: { Location: location } });
			const { result, stored } = await storedAfter(catalogue);
			expect(result.error(READER)?.message ?? '').toMatch(/30[0-9]|redirect/i);
			expectNoToken(stored, TOKEN);
		}
	});

	test('"`Content-Disposition` file names (whole before their directory parts are cut, and what is left after)": the token across filename and filename* with backslashes', async () => {
		const record: INodeParameters = { resource: 'record', operation: 'get', ke: 'KE-1001' };
		for (const cd of [
			`attachment; filename="dir\\\\${TOKEN.replace('/', '\\\\')}.json"`,
			`attachment; filename="a.json"; filename*=utf-8''${TOKEN.replace('/', '%2f').replace('+', '%2b')}`,
			`attachment; filename*=UTF-8'en'..%2F..%2F${encodeURIComponent(TOKEN).toLowerCase()}`,
		]) {
			sandbox.control.clearFaults();
			answer('/v1/reader/exports/records/KE-1001', { status: 200, contentType: 'application/json', body: '{"ks":"KS-1"}', headers: { 'Content-Disposition': cd } });
			const { result, stored } = await storedAfter(record);
			expect(result.error(READER)).toBeUndefined();
			expectNoToken(stored, TOKEN);
		}
	});
});

describe('attack, time: "a `Retry-After` longer than what is left fails the item at once, saying how long the Service asked"', () => {
	afterEach(() => sandbox.control.clearFaults());

	test('Retry-After of 400 nines, a date in the year 9999, and 61 seconds: one request each, the item failed at once naming the wait in words (never "Infinity")', async () => {
		for (const retryAfter of ['9'.repeat(400), 'Fri, 31 Dec 9999 23:59:59 GMT', '61']) {
			sandbox.control.clearFaults();
			sandbox.control.clearRequests();
			answer(CATALOGUE, { status: 429, contentType: 'application/json', body: '{"error":{"code":"slow","message":"later"}}', headers: { 'Retry-After': retryAfter } });
			const { result } = await storedAfter(catalogue);
			const error = result.error(READER);
			expect(error).toBeDefined();
			expect(error?.message).toBe(`The Service asked to wait ${retryAfter === '61' ? '61 seconds' : 'more than a year'} (429, Retry-After), beyond the 60 seconds the node waits; try later`);
			expect(`${error?.message} ${error?.description}`).not.toMatch(/Infinity|NaN/);
			expect(sandbox.control.requests({ method: 'GET', path: CATALOGUE })).toHaveLength(1);
		}
	});
});

describe('attack, keys: "Keys from the Service\'s text keep their values"', () => {
	afterEach(() => sandbox.control.clearFaults());

	test('"CSV rows ... a column ... named `__proto__` or `constructor` keeps its value in the item": also toString and hasOwnProperty', async () => {
		answer(PORTFOLIO, { status: 200, contentType: 'text/csv', body: 'ke,__proto__,constructor,toString,hasOwnProperty\r\nKE-1,p,c,t,h\r\n' });
		const { result } = await storedAfter(portfolioItems);
		expect(result.error(READER)).toBeUndefined();
		const [item] = result.output(READER);
		for (const [key, value] of [['ke', 'KE-1'], ['__proto__', 'p'], ['constructor', 'c'], ['toString', 't'], ['hasOwnProperty', 'h']]) {
			expect(Object.getOwnPropertyDescriptor(item.json, key)?.value).toBe(value);
		}
	});

	test('"A header row naming a column twice fails the page naming the column": `__proto__` twice in items; as a file the bytes are kept', async () => {
		answer(PORTFOLIO, { status: 200, contentType: 'text/csv', body: 'ke,__proto__,__proto__\r\nKE-1,a,b\r\n' });
		const first = await storedAfter(portfolioItems);
		const error = first.result.error(READER);
		expect(`${error?.message} ${error?.description}`).toContain('"__proto__" twice');
		expect(first.result.output(READER)).toHaveLength(0);
		sandbox.control.clearFaults();
		const page = 'ke,name,name\r\nKE-1,a,b\r\n';
		answer(PORTFOLIO, { status: 200, contentType: 'text/csv', body: page });
		const second = await storedAfter(portfolioFile);
		expect(second.result.error(READER)).toBeUndefined();
		expect((await readBinary(second.result.output(READER)[0].binary?.data)).toString('latin1')).toBe(page);
	});

	test('"A value the Service sent keeps its JSON type" with keys `__proto__`, `constructor`, `hasOwnProperty` in a JSON answer: own properties in the item', async () => {
		answer(CATALOGUE, { status: 200, contentType: 'application/json', body: '{"data":[{"event_type":"x","__proto__":{"a":1},"constructor":"c","hasOwnProperty":2,"toString":null}]}' });
		const { result } = await storedAfter(catalogue);
		expect(result.error(READER)).toBeUndefined();
		const [item] = result.output(READER);
		expect(Object.getOwnPropertyDescriptor(item.json, '__proto__')?.value).toEqual({ a: 1 });
		expect(Object.getOwnPropertyDescriptor(item.json, 'constructor')?.value).toBe('c');
		expect(Object.getOwnPropertyDescriptor(item.json, 'hasOwnProperty')?.value).toBe(2);
		expect(Object.getOwnPropertyDescriptor(item.json, 'toString')?.value).toBeNull();
	});
});

describe('attack, CPU and memory: "What a sender writes costs time in proportion to its length"', () => {
	afterEach(() => sandbox.control.clearFaults());

	test('JSON nested 100,000 deep (arrays, objects, in a list and in an error body): each answer gives an item or fails the item, and the run ends', async () => {
		const arrays = `${'['.repeat(100_000)}"${TOKEN}"${']'.repeat(100_000)}`;
		const objects = `${'{"a":'.repeat(100_000)}"${TOKEN}"${'}'.repeat(100_000)}`;
		for (const [status, body] of [
			[200, `{"data":[{"event_type":"x","deep":${arrays}}]}`],
			[200, `{"data":[{"event_type":"x","deep":${objects}}]}`],
			[400, `{"error":{"code":"bad","message":"x","deep":${objects}}}`],
		] as const) {
			sandbox.control.clearFaults();
			answer(CATALOGUE, { status, contentType: 'application/json', body });
			const { result, stored } = await storedAfter(catalogue, true);
			const [item] = result.output(READER);
			expect(item).toBeDefined();
			expectNoToken(stored, TOKEN);
		}
	});
});

describe('attack, bytes: "Files as the Service sent them"', () => {
	afterEach(() => sandbox.control.clearFaults());

	test('"any ASCII-compatible charset ... comes out byte for byte": every byte 0x80-0xFF in quoted and unquoted cells, over two pages', async () => {
		const high = Buffer.from(Array.from({ length: 128 }, (_, i) => 0x80 + i));
		const header = Buffer.from('ke;company_name\n', 'latin1');
		const first = Buffer.concat([header, Buffer.from('KE-1;"'), high.subarray(0, 64), Buffer.from('"\n')]);
		const rows2 = Buffer.concat([Buffer.from('KE-2;'), high.subarray(64).filter((b) => b !== 0x85), Buffer.from('\n')]);
		answer(PORTFOLIO, { status: 200, contentType: 'text/csv; charset=iso-8859-1', body: first.toString('latin1'), bodyEncoding: 'latin1', headers: { 'X-Service-Next-Cursor': 'p2' }, times: 1 });
		answer(PORTFOLIO, { status: 200, contentType: 'text/csv; charset=iso-8859-1', body: Buffer.concat([header, rows2]).toString('latin1'), bodyEncoding: 'latin1', times: 1 });
		const { result } = await storedAfter(portfolioFile);
		expect(result.error(READER)).toBeUndefined();
		const bytes = await readBinary(result.output(READER)[0].binary?.data);
		expect(bytes.equals(Buffer.concat([first, rows2]))).toBe(true);
	});

	test('"Files ... stay byte for byte" for a gzip answer: a gzipped windows-1252 page comes out as the page\'s bytes', async () => {
		const page = Buffer.from('ke,company_name\r\nKE-1,M\xFCller \x80\r\n', 'latin1');
		answer(PORTFOLIO, { status: 200, contentType: 'text/csv; charset=windows-1252', body: gzipSync(page).toString('latin1'), bodyEncoding: 'latin1', headers: { 'Content-Encoding': 'gzip' } });
		const { result } = await storedAfter(portfolioFile);
		expect(result.error(READER)).toBeUndefined();
		const bytes = await readBinary(result.output(READER)[0].binary?.data);
		expect(bytes.equals(page)).toBe(true);
	});

	test('"Files (records, audit packs, CSV files) stay byte for byte" for a record: windows-1252 bytes, a BOM, the token inside, gzip on the wire; the item shows no token', async () => {
		const record: INodeParameters = { resource: 'record', operation: 'get', ke: 'KE-1001' };
		const path = '/v1/reader/exports/records/KE-1001';
		const variants: Array<{ bytes: Buffer; gzip: boolean }> = [
			{ bytes: Buffer.from('{"ks":"KS-1","name":"M\xfcller \x80"}', 'latin1'), gzip: false },
			{ bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"ks":"KS-1","name":"Zürich"}')]), gzip: false },
			{ bytes: Buffer.from(`{"ks":"KS-1","note":"${TOKEN}","raw":"\xff\xfe"}`, 'latin1'), gzip: true },
		];
		for (const { bytes, gzip } of variants) {
			sandbox.control.clearFaults();
			const wire = gzip ? gzipSync(bytes) : bytes;
			answer(path, { status: 200, contentType: 'application/json', body: wire.toString('latin1'), bodyEncoding: 'latin1', headers: gzip ? { 'Content-Encoding': 'gzip' } : {} });
			const { result } = await storedAfter(record, true);
			const [item] = result.output(READER);
			expect(item.binary).toBeDefined();
			const file = await readBinary(Object.values(item.binary!)[0]);
			expect(file.equals(bytes)).toBe(true);
			expectNoToken(JSON.stringify({ json: item.json, name: Object.values(item.binary!)[0].fileName }), TOKEN);
		}
	});

	test('a gzip JSON answer is read as JSON (the token inside it redacted as in any answer)', async () => {
		const body = JSON.stringify({ data: [{ event_type: 'x', description: `t ${TOKEN}` }] });
		answer(CATALOGUE, { status: 200, contentType: 'application/json', body: gzipSync(Buffer.from(body)).toString('latin1'), bodyEncoding: 'latin1', headers: { 'Content-Encoding': 'gzip' } });
		const { result, stored } = await storedAfter(catalogue);
		expect(result.error(READER)).toBeUndefined();
		expect(result.output(READER)[0].json.event_type).toBe('x');
		expectNoToken(stored, TOKEN);
	});
});
