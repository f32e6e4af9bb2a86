import { startBenchSandbox, type BenchSandbox } from '../../bench/sandboxProcess';
import { httpsRequest } from '../e2e/https-request';

/** The trigger benchmark's sandbox, in a process of its own or in this one: the same answers and the same counts. */
describe.each([false, true])('the benchmark sandbox (in process: %s)', (inProcess) => {
	let sandbox: BenchSandbox;
	beforeAll(async () => {
		sandbox = await startBenchSandbox({ seed: 'empty', portfolioRows: 30, pageSize: 20 }, inProcess);
	}, 60_000);
	afterAll(() => sandbox?.close());

	it('serves the portfolio and counts what it received, through the control surface', async () => {
		await sandbox.control.clearRequests();
		const page = await httpsRequest(`${sandbox.baseUrl}/v1/reader/exports/portfolio?format=csv`, {
			ca: sandbox.ca,
			headers: { authorization: `Bearer ${sandbox.tokens.reader}` },
		});
		expect(page.status).toBe(200);
		expect(page.body.trim().split('\n')).toHaveLength(21);
		const received = await sandbox.control.requests({ method: 'GET', path: '/v1/reader/exports/portfolio' });
		expect(received.map((r) => r.path)).toEqual(['/v1/reader/exports/portfolio']);
		await sandbox.control.clearRequests();
		expect(await sandbox.control.requests()).toEqual([]);
		expect(await sandbox.control.webhookEndpoints()).toEqual([]);
	});
});
