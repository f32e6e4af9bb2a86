import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow } from '../../harness';
import type { ObjectStoreRequest, RouteFault } from '../../sandbox';
import { serviceApi } from '../../sandbox/credential';
import { dialectFromEnvironment, dialectNamed, type Downloads } from '../../sandbox/dialect';
import { useSandbox } from '../../sandbox/useSandbox';
import { binaryBytes } from './helpers';

// Files served from an object store on another origin, as most APIs serve large files: the record and
// the audit pack follow the Service's redirect there with no credential (the store refuses any and logs
// every header), https only, at most 5 hops, within the Request Timeout and the size bounds.
const redirecting: Downloads = { via: 'objectStore', status: 302, hops: 0 };
const sandbox = useSandbox({ dialect: { ...dialectNamed(dialectFromEnvironment()), downloads: redirecting } });

const recordGet = (ke: string) => ({ resource: 'record', operation: 'get', ke });
const packGet = (ke: string, packId: string) => ({ resource: 'auditPack', operation: 'get', ke, packId });
const recordPath = (ke: string) => `/v1/reader/exports/records/${ke}`;
const run = async (parameters: INodeParameters, advanced: IDataObject = {}) =>
	await runWorkflow(readerWorkflow(parameters), { credentials: { serviceApi: serviceApi(sandbox, { advanced }) } });
const store = () => sandbox.objectStore;
const storePort = () => store().origin.split(':')[2];

/** No request the store got carried a credential: no Authorization, no Cookie, the token in no header. */
function expectNoCredential(requests: ObjectStoreRequest[]): void {
	const tokens = Object.values(sandbox.tokens);
	for (const request of requests) {
		expect(request.refused).toBeUndefined();
		expect(request.headers.authorization).toBeUndefined();
		expect(request.headers.cookie).toBeUndefined();
		const values = JSON.stringify(request.headers);
		for (const token of tokens) expect(values).not.toContain(token);
	}
}

const redirectTo = (location: string, path = recordPath('KE-1001'), status: 301 | 302 | 303 | 307 | 308 = 302) =>
	sandbox.control.failRoute({ path, mode: 'redirect', status, location, times: 1 } as RouteFault);

beforeEach(() => {
	sandbox.control.clearFaults();
	store().clearRequests();
});

describe('a download redirected to an object store', () => {
	test.each([301, 302, 303, 307, 308] as const)('Record > Get through a %i arrives byte for byte; the store saw no credential', async (status) => {
		sandbox.dialect.downloads = { via: 'objectStore', status, hops: 0 };
		try {
			const served = sandbox.control.record('KE-1009');

			const result = await run(recordGet('KE-1009'));

			expect(result.error(READER)).toBeUndefined();
			const [item] = result.output(READER);
			expect((await binaryBytes(item.binary!.data)).equals(served.bytes)).toBe(true);
			expect(item.binary!.data).toMatchObject({ fileName: `${served.ks}.json`, mimeType: 'application/json' });
			expect(item.json).toEqual(JSON.parse(served.bytes.toString('utf8')));
			const requests = store().requests();
			expect(requests.map((r) => [r.method, r.status])).toEqual([['GET', 200]]);
			expectNoCredential(requests);
			// Only the header the node chose, beside those of n8n's HTTP client.
			expect(requests[0].headers.accept).toBe('*/*');
			expect(sandbox.control.requests().map((r) => [r.path, r.reader, r.status])).toEqual([[recordPath('KE-1009'), 'reader', status]]);
		} finally {
			sandbox.dialect.downloads = redirecting;
		}
	});

	test('Audit Pack > Get through the dialect\'s redirect and 4 more inside the store (relative Locations) arrives byte for byte', async () => {
		sandbox.dialect.downloads = { via: 'objectStore', status: 307, hops: 4 };
		try {
			const result = await run(packGet('KE-1001', 'AP-1001-1'));

			expect(result.error(READER)).toBeUndefined();
			const [item] = result.output(READER);
			const requests = store().requests();
			expect(requests.map((r) => r.status)).toEqual([307, 307, 307, 307, 200]);
			expect((await binaryBytes(item.binary!.data)).equals(requests[4].served!)).toBe(true);
			expect(item.json).toMatchObject({ ke: 'KE-1001', pack_id: 'AP-1001-1', file_name: 'AP-1001-1.zip', mime_type: 'application/zip', size: requests[4].served!.length });
			expectNoCredential(requests);
		} finally {
			sandbox.dialect.downloads = redirecting;
		}
	});

	test('the record route\'s share check (after an audit pack\'s 404) follows too, and the pack\'s 404 stays a missing pack', async () => {
		const result = await run(packGet('KE-1001', 'AP-9999-9'));

		expect(result.error(READER)?.message).toBe('The Service has no audit pack AP-9999-9 for company KE-1001 (404)');
		expectNoCredential(store().requests());
	});
});

describe('a redirected download that cannot arrive fails loudly, naming what happened and the host only', () => {
	const failsWith = async (parameters: INodeParameters, message: string | RegExp, advanced: IDataObject = {}) => {
		const result = await run(parameters, advanced);
		const error = result.error(READER);
		expect(result.output(READER)).toEqual([]);
		if (typeof message === 'string') expect(error?.message).toBe(message);
		else expect(error?.message).toMatch(message);
		// Never the pre-signed path or query (a signature), never the token.
		const shown = `${error?.message} ${error?.description} ${JSON.stringify(error)}`;
		expect(shown).not.toMatch(/X-Store-Signature|\/o\/|\/hop\/|\/loop\//);
		for (const token of Object.values(sandbox.tokens)) expect(shown).not.toContain(token);
		return error!;
	};

	test('a plain http target is refused and not asked', async () => {
		redirectTo(`http://localhost:${storePort()}/o/abc?X-Store-Signature=secret`);
		await failsWith(recordGet('KE-1001'), `The download was redirected (302) to http://localhost:${storePort()}, which is not https, so it was not followed`);
		expect(store().requests()).toEqual([]);
	});

	test('5 redirects are followed, a 6th is not', async () => {
		const bytes = sandbox.control.record('KE-1001').bytes;
		redirectTo(store().presign({ bytes, contentType: 'application/json' }, 4));
		expect((await run(recordGet('KE-1001'))).error(READER)).toBeUndefined();

		store().clearRequests();
		redirectTo(store().presign({ bytes, contentType: 'application/json' }, 5));
		await failsWith(recordGet('KE-1001'), `The download was redirected more than 5 times (last 307 to localhost:${storePort()}), so it was given up`);
		expect(store().requests()).toHaveLength(5);
		expectNoCredential(store().requests());
	});

	test('a loop is given up as a loop', async () => {
		redirectTo(store().loopUrl());
		await failsWith(recordGet('KE-1001'), `The download was redirected in a loop (302 back to localhost:${storePort()}), so it was given up`);
		expect(store().requests()).toHaveLength(2);
	});

	test('a stall at the store fails on the Request Timeout, naming the store (record read whole, audit pack streamed)', async () => {
		const bytes = Buffer.alloc(64 * 1024, 'x');
		redirectTo(store().presign({ bytes, contentType: 'application/json', stall: true }));
		const started = Date.now();
		// The deadline counts from the first request: a loaded machine's hop leaves less than 1 s of silence before it.
		const error = await failsWith(recordGet('KE-1001'), /^The Service's answer could not be read: the Service (sent nothing for (0\.\d|1) s|took longer than 1 s)/, { requestTimeout: 1 });
		expect(error.description).toContain(`The file was being downloaded from localhost:${storePort()}, where the Service redirected it.`);
		expect(Date.now() - started).toBeLessThan(15_000);

		redirectTo(store().presign({ bytes, contentType: 'application/zip', stall: true }), '/v1/reader/exports/audit-packs/KE-1001/AP-1001-1');
		await failsWith(packGet('KE-1001', 'AP-1001-1'), /^Audit pack AP-1001-1 could not be downloaded whole: the Service sent nothing for 1 s/, { requestTimeout: 1 });
	});

	test('a file over the size bounds is refused: Max Response Size for the record, Max File Size for the audit pack', async () => {
		const bytes = Buffer.alloc(1536 * 1024, 'x');
		redirectTo(store().presign({ bytes, contentType: 'application/json' }));
		await failsWith(recordGet('KE-1001'), 'The Service\'s answer could not be read: the answer is larger than 1 MiB, the Max Response Size', { maxResponseSize: 1 });

		redirectTo(store().presign({ bytes, contentType: 'application/zip' }), '/v1/reader/exports/audit-packs/KE-1001/AP-1001-1');
		await failsWith(packGet('KE-1001', 'AP-1001-1'), 'Audit pack AP-1001-1 could not be downloaded whole: the file is larger than 1 MiB, the Max File Size', { maxFileSize: 1 });
	});

	test('a Location holding the access token is not followed, and the token is shown nowhere', async () => {
		redirectTo(`${store().origin}/o/abc?X-Store-Signature=${encodeURIComponent(sandbox.tokens.reader)}`);
		await failsWith(recordGet('KE-1001'), 'The download was redirected (302) to an address holding the access token, which is not followed');
		expect(store().requests()).toEqual([]);
	});

	test('a Location with the token disguised for the URL parser (split by a tab) or with a user name is not followed', async () => {
		const token = sandbox.tokens.reader;
		redirectTo(`${store().origin}/o/${token.slice(0, 6)}\t${token.slice(6)}`);
		await failsWith(recordGet('KE-1001'), 'The download was redirected (302) to an address holding the access token, which is not followed');
		redirectTo(store().origin.replace('https://', 'https://reader:x@') + '/o/abc');
		await failsWith(recordGet('KE-1001'), 'The download was redirected (302) to an address with a user name or password, which is not followed');
		expect(store().requests()).toEqual([]);
	});

	test('a store that refuses (an expired or bad signature) is named with its status, never read as an ended share', async () => {
		redirectTo(`${store().origin}/o/abc?X-Store-Signature=expired`);
		await failsWith(recordGet('KE-1001'), `The file's host localhost:${storePort()}, where the Service redirected the download, answered 403`);
	});

	test('a redirect back to the Service\'s own origin goes without the token too', async () => {
		redirectTo(`${sandbox.baseUrl}/v1/reader/exports/records/KE-1002`);
		await failsWith(recordGet('KE-1001'), `The file's host 127.0.0.1:${sandbox.port}, where the Service redirected the download, answered 401`);
		expect(sandbox.control.requests().map((r) => [r.path, r.reader, r.status])).toEqual([
			[recordPath('KE-1001'), undefined, 302],
			[recordPath('KE-1002'), undefined, 401],
		]);
	});

	test('a call that is not a download (the catalogue) still refuses the redirect; the store is not asked', async () => {
		redirectTo(store().presign({ bytes: Buffer.from('{}'), contentType: 'application/json' }), '/v1/reader/webhooks/catalogue');
		await failsWith({ resource: 'webhook', operation: 'getCatalogue' }, `The Service answered with a redirect (302 to localhost:${storePort()}), which is not followed`);
		expect(store().requests()).toEqual([]);
	});
});
