import type { INodeListSearchResult } from 'n8n-workflow';

import { listSearch } from '../../harness';
import { captureLogs } from '../../harness/logCapture';
import { ServiceReader } from '../../../nodes/ServiceReader/ServiceReader.node';
import { allFields, expectNoToken } from '../../property/tokenDecoders';
import { serviceApi } from '../../sandbox/credential';
import { encodeToken } from '../../sandbox/tokenForms';
import { useSandbox } from '../../sandbox/useSandbox';

/**
 * Issue 31, the attacker's second round against the KE picker (a list search): the token in what the
 * browser gets, the sealed pagination token, one page per call. Each probe named by the promise it
 * checks (docs/token-and-limits.md).
 */
const TOKEN = 'svc_picker_Bn4/t+Ke6Ux1Jc';
const sandbox = useSandbox({ tokens: { reader: TOKEN } });
const reader = new ServiceReader();
const PORTFOLIO = '/v1/reader/exports/portfolio';
afterEach(() => sandbox.control.clearFaults());

const search = async (options: { filter?: string; paginationToken?: string; baseUrl?: string } = {}): Promise<INodeListSearchResult> => {
	const credential = serviceApi(sandbox);
	return await listSearch(reader, 'searchCompanies', {
		credentials: { serviceApi: options.baseUrl ? { ...credential, baseUrl: options.baseUrl } : credential },
		parameters: { resource: 'record', operation: 'get' },
		filter: options.filter,
		paginationToken: options.paginationToken,
	});
};
const portfolioRequests = () => sandbox.control.requests().filter((r) => r.path === PORTFOLIO);

describe('attack, token: "Nothing the Service sends back shows the token in ... the KE picker\'s pagination token"', () => {
	test('the token as company names and KEs (raw, %xx, \\u, &#x..;, mixed) is not in what the browser gets, nor in the log', async () => {
		const forms = (['raw', 'urlLower', 'jsonEscaped', 'htmlHex', 'mixed'] as const).map((f) => encodeToken(TOKEN, f));
		const rows = forms.map((f, i) => `KE-${i},"name ${f}"\r\n`).join('') + `"${TOKEN}",Acme\r\n`;
		sandbox.control.failRoute({ path: PORTFOLIO, mode: 'answer', status: 200, contentType: 'text/csv', body: `ke,company_name\r\n${rows}`, headers: { 'X-Service-Next-Cursor': `c-${forms[4]}` } });
		const logs = captureLogs();
		try {
			const page = await search();
			expect(page.results.length).toBeGreaterThanOrEqual(5);
			expectNoToken(JSON.stringify({ page, logs: logs.lines }), TOKEN);
		} finally {
			logs.restore();
		}
	});

	test('"every own field of every error" at the list-search boundary: a page answering 400 with the token at depth fails the search showing it nowhere', async () => {
		sandbox.control.failRoute({
			path: PORTFOLIO, mode: 'answer', status: 400, contentType: 'application/json',
			body: `{"error":{"code":"${encodeToken(TOKEN, 'jsonEscaped')}","message":"${encodeToken(TOKEN, 'htmlNamed')}","x":[[{"y":"${encodeToken(TOKEN, 'urlUpperPartial')}"}]]}}`,
		});
		const logs = captureLogs();
		let thrown: unknown;
		try {
			await search().catch((error: unknown) => (thrown = error));
			expect(thrown).toBeDefined();
			expectNoToken(JSON.stringify({ error: allFields(thrown), logs: logs.lines }), TOKEN);
		} finally {
			logs.restore();
		}
	});
});

describe('attack, the sealed pagination token: "bound to the Base URL ... a token sealed under another credential or edited is refused"', () => {
	test('a pagination token taken to a credential with the same access token but another Base URL is refused before any request', async () => {
		sandbox.control.failRoute({ path: PORTFOLIO, mode: 'answer', status: 200, contentType: 'text/csv', body: 'ke,company_name\r\nKE-1,Acme\r\n', headers: { 'X-Service-Next-Cursor': 'c2' }, times: 1 });
		const first = await search();
		const paginationToken = first.paginationToken as string;
		expect(paginationToken).toBeDefined();
		const before = sandbox.control.requests().length;
		await expect(search({ paginationToken, baseUrl: `${sandbox.baseUrl}/elsewhere` })).rejects.toThrow('The company list cannot go on from where it was: search again');
		// Truncated, doubled, or with a character flipped in the middle: refused too.
		for (const edited of [paginationToken.slice(0, -1), paginationToken + paginationToken, `${paginationToken.slice(0, 20)}${paginationToken[20] === 'x' ? 'y' : 'x'}${paginationToken.slice(21)}`]) {
			await expect(search({ paginationToken: edited })).rejects.toThrow('The company list cannot go on from where it was: search again');
		}
		expect(sandbox.control.requests()).toHaveLength(before);
	});
});

describe('attack, bounds: "The KE picker is bounded per list search: one portfolio page per call"', () => {
	test('an endless cursor with a filter that matches nothing still costs one request per call, and the user scrolls on', async () => {
		sandbox.control.failRoute({ path: PORTFOLIO, mode: 'endlessCursor', csv: true });
		let paginationToken: string | undefined;
		for (let call = 0; call < 5; call++) {
			const before = portfolioRequests().length;
			const page = await search({ filter: 'no company is named this', paginationToken });
			expect(portfolioRequests().length).toBe(before + 1);
			expect(page.results).toEqual([]);
			paginationToken = page.paginationToken as string | undefined;
			expect(paginationToken).toBeDefined();
		}
	});

	test('"Keys from the Service\'s text keep their values": KEs and names __proto__, constructor, toString are offered as they are', async () => {
		sandbox.control.failRoute({ path: PORTFOLIO, mode: 'answer', status: 200, contentType: 'text/csv', body: 'ke,company_name\r\n__proto__,constructor\r\nconstructor,toString\r\ntoString,__proto__\r\n' });
		const page = await search();
		expect(page.results).toEqual([
			{ name: 'constructor (__proto__)', value: '__proto__' },
			{ name: 'toString (constructor)', value: 'constructor' },
			{ name: '__proto__ (toString)', value: 'toString' },
		]);
	});
});
