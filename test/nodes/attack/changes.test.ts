import { gzipSync } from 'node:zlib';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceChangesTrigger } from '../../../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import { PollHarness } from '../../harness';
import { captureLogs } from '../../harness/logCapture';
import { allFields, expectNoToken } from '../../property/tokenDecoders';
import { serviceApi } from '../../sandbox/credential';
import { encodeToken } from '../../sandbox/tokenForms';
import { useSandbox } from '../../sandbox/useSandbox';

/**
 * Issue 31, the attacker's second round against the Service Changes Trigger: the token in what it
 * stores (static data) and emits, keys from Service text, endless cursors; each probe named by the
 * promise it checks (docs/token-and-limits.md, README "Limits and safety").
 */
const TOKEN = 'svc_changes_Hk2/v+Rw8Nq5Ys';
const sandbox = useSandbox({ tokens: { reader: TOKEN } });
afterEach(() => sandbox.control.clearFaults());

const PORTFOLIO = '/v1/reader/exports/portfolio';
const csv = 'text/csv; charset=utf-8';

function newHarness(parameters: INodeParameters = {}, advanced: IDataObject = {}): PollHarness {
	return new PollHarness({ nodeType: new ServiceChangesTrigger(), parameters, credentials: { serviceApi: serviceApi(sandbox, { advanced }) } });
}
const page = (body: string, times = 1) => sandbox.control.failRoute({ path: PORTFOLIO, times, mode: 'answer', status: 200, contentType: csv, body });

describe('attack, token: "Nothing the Service sends back shows the token ... in an output item, an error n8n stores, a log line"', () => {
	test('the token in portfolio cells and as a column name (raw, %xx lower case, \\u, &#x..;, mixed): not in emitted items, static data or logs', async () => {
		const logs = captureLogs();
		try {
			const harness = newHarness();
			page(`ke,company_name,tier\r\nKE-1,Acme,gold\r\n`);
			await harness.activate();
			const cells = (['raw', 'urlLower', 'jsonEscaped', 'htmlHex', 'mixed'] as const).map((form) => encodeToken(TOKEN, form));
			page(`ke,company_name,tier,${TOKEN}\r\nKE-1,Acme ${cells[0]},gold,${cells[1]}\r\nKE-2,"${cells[2]}",${cells[3]},${cells[4]}\r\n`);
			const { items, error } = await harness.poll();
			expect(error).toBeUndefined();
			expect(items?.map((i) => [i.json.change, i.json.key])).toEqual([['changed', 'KE-1'], ['added', 'KE-2']]);
			expectNoToken(JSON.stringify({ items, live: harness.liveNodeData(), saved: harness.saved, logs: logs.lines }), TOKEN);
		} finally {
			logs.restore();
		}
	});

	test('"every own field of every error ... `errorResponse`": a page 2 error body holding the token at depth in HTML and \\u forms: not in the poll error, static data or logs; state kept', async () => {
		const logs = captureLogs();
		try {
			const harness = newHarness();
			await harness.activate();
			const live = JSON.stringify(harness.liveNodeData());
			sandbox.control.failRoute({ path: PORTFOLIO, times: 1, mode: 'answer', status: 200, contentType: csv, body: 'ke,company_name\r\nKE-1,Acme\r\n', headers: { 'X-Service-Next-Cursor': 'p2' } });
			const deep = `{"a":{"b":[{"c":"${encodeToken(TOKEN, 'htmlHex')}","d":{"e":"${encodeToken(TOKEN, 'jsonEscaped')}"}}]}}`;
			sandbox.control.failRoute({ path: PORTFOLIO, times: 1, mode: 'answer', status: 400, contentType: 'application/json', body: `{"error":{"code":"${encodeToken(TOKEN, 'jsonEscaped')}","message":"bad ${encodeToken(TOKEN, 'urlUpperPartial')}","details":${deep}}}` });
			const failed = await harness.poll();
			expect(failed.items).toBeUndefined();
			expect(failed.error).toBeDefined();
			expect(JSON.stringify(harness.liveNodeData())).toBe(live);
			expectNoToken(JSON.stringify({ error: allFields(failed.error), live: harness.liveNodeData(), saved: harness.saved, logs: logs.lines }), TOKEN);
		} finally {
			logs.restore();
		}
	});
});

describe('attack, keys: "Keys from the Service\'s text keep their values" and "no plain object keyed by Service text"', () => {
	test('KEs named __proto__, constructor, toString, hasOwnProperty are companies like any other: added, changed and removed exactly', async () => {
		const harness = newHarness();
		page('ke,company_name,__proto__\r\n__proto__,P,x\r\nconstructor,C,x\r\ntoString,T,x\r\nhasOwnProperty,H,x\r\n');
		await harness.activate();
		page('ke,company_name,__proto__\r\n__proto__,P2,y\r\ntoString,T,x\r\nhasOwnProperty,H,x\r\nvalueOf,V,x\r\n');
		const { items, error } = await harness.poll();
		expect(error).toBeUndefined();
		const seen = (items ?? []).map((i) => [i.json.change, i.json.key]);
		expect(seen).toEqual(expect.arrayContaining([['changed', '__proto__'], ['added', 'valueOf'], ['removed', 'constructor']]));
		expect(seen).toHaveLength(3);
		const changed = items!.find((i) => i.json.key === '__proto__')!.json;
		const row = changed.row as IDataObject;
		expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('y');
		expect(Object.getOwnPropertyDescriptor(row, 'company_name')?.value).toBe('P2');
		const previous = changed.previous as IDataObject;
		expect(Object.getOwnPropertyDescriptor(previous, '__proto__')?.value).toBe('x');
		expect(Object.getOwnPropertyDescriptor(previous, 'company_name')?.value).toBe('P');
		// Nothing changed since: nothing emitted (the state kept every key, after n8n saved it as JSON).
		page('ke,company_name,__proto__\r\n__proto__,P2,y\r\ntoString,T,x\r\nhasOwnProperty,H,x\r\nvalueOf,V,x\r\n');
		expect((await harness.restart().activate('init')).items).toBeUndefined();
	});

	test('"A header row naming a column twice fails the page naming the column": the poll fails, emits nothing, the state kept', async () => {
		const harness = newHarness();
		page('ke,company_name\r\nKE-1,Acme\r\n');
		await harness.activate();
		const live = JSON.stringify(harness.liveNodeData());
		page('ke,company_name,constructor,constructor\r\nKE-1,Acme,a,b\r\n');
		const failed = await harness.poll();
		expect(failed.items).toBeUndefined();
		const error = failed.error as Error & { description?: string };
		expect(`${error.message} ${error.description}`).toContain('"constructor" twice');
		expect(JSON.stringify(harness.liveNodeData())).toBe(live);
	});
});

describe('attack, bytes: a gzip page', () => {
	test('a gzip portfolio page is read like any other: the poll emits exactly the change', async () => {
		const harness = newHarness();
		page('ke,company_name\r\nKE-1,Acme\r\n');
		await harness.activate();
		const body = gzipSync(Buffer.from('ke,company_name\r\nKE-1,Acme\r\nKE-2,Zürich AG\r\n')).toString('latin1');
		sandbox.control.failRoute({ path: PORTFOLIO, times: 1, mode: 'answer', status: 200, contentType: csv, body, bodyEncoding: 'latin1', headers: { 'Content-Encoding': 'gzip' } });
		const { items, error } = await harness.poll();
		expect(error).toBeUndefined();
		expect(items).toEqual([{ json: { change: 'added', export: 'portfolio', key: 'KE-2', row: { ke: 'KE-2', company_name: 'Zürich AG' } } }]);
	});
});

describe('attack, bounds: "every loop that reads pages has its own cap" (issue 36: the trigger\'s Max Rows, below the credential\'s Max Pages)', () => {
	test('an endless cursor after the baseline, the credential\'s Max Pages left at 100,000: the poll stops at the trigger\'s Max Rows (requests counted at the Service), emits nothing, keeps the state; the next complete poll emits nothing false', async () => {
		const harness = newHarness({ options: { maxRows: 25 } });
		await harness.activate();
		const live = JSON.stringify(harness.liveNodeData());
		sandbox.control.clearRequests();
		sandbox.control.failRoute({ path: PORTFOLIO, mode: 'endlessCursor', csv: true });
		const failed = await harness.poll();
		expect(failed.items).toBeUndefined();
		expect((failed.error as Error).message).toMatch(/more than 25 rows, this trigger's Max Rows/);
		// One row a page: page 26 passes the bound, one more page may have been asked for ahead.
		expect(sandbox.control.requests({ method: 'GET', path: PORTFOLIO }).length).toBeGreaterThanOrEqual(26);
		expect(sandbox.control.requests({ method: 'GET', path: PORTFOLIO }).length).toBeLessThanOrEqual(27);
		expect(JSON.stringify(harness.liveNodeData())).toBe(live);
		sandbox.control.clearFaults();
		expect(await harness.poll()).toEqual({ items: undefined, error: undefined });
	});

	test('the credential\'s Max Pages still stops a cursor chain first when it is the lower bound', async () => {
		const harness = newHarness({}, { maxPages: 7 });
		await harness.activate();
		sandbox.control.clearRequests();
		sandbox.control.failRoute({ path: PORTFOLIO, mode: 'endlessCursor', csv: true });
		const failed = await harness.poll();
		expect((failed.error as Error).message).toMatch(/Max Pages/);
		expect(sandbox.control.requests({ method: 'GET', path: PORTFOLIO })).toHaveLength(7);
	});
});
