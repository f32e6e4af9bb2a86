import { demoState, listening, portIn, RUNNING, signalAndWait, startDemo } from './demo-process';

const DEMO_LIMIT_MS = 10 * 60_000;

// What docs/development.md (The demo) promises for queue mode, and that the demo leaves nothing behind when it is told to stop.
describe('npm run demo -- --queue', () => {
	test('--once brings up PostgreSQL, Redis, main, webhook processes and workers, runs the examples on workers and exits 0', async () => {
		const demo = startDemo(['--queue', '--once']);
		try {
			const code = await demoState(demo, () => false, DEMO_LIMIT_MS);
			const output = demo.text;
			expect({ code, tail: code === 0 ? '' : output.slice(-4000) }).toEqual({ code: 0, tail: '' });
			expect(output).toMatch(/Service: company register alert to chat\s+2\s+success x2/);
			expect(output).toMatch(/Service: portfolio to spreadsheet\s+1\s+success x1/);
			expect(output).toMatch(/Service: share ended, mark the CRM copy\s+2\s+success x2/);
			expect(output).toContain('ledger_high example: ok; portfolio example: ok');
			expect(output).toMatch(/trigger example executions: (\d+ on worker-[12], ){3}\d+ on worker-[12]; all ran on a worker/);
			expect(output).toContain('CRM stand-in got: PATCH /crm/companies/KE-1004 {"share":"ended"}');
			expect(output).toMatch(/webhooks: {4}https:\/\/localhost:\d+ {2}\(load balancer for webhook-1 https:\/\/localhost:\d+, webhook-2/);
		} finally {
			await demo.stop(60_000);
		}
	}, DEMO_LIMIT_MS + 90_000);

	test('a SIGTERM to npm stops every n8n process, PostgreSQL, Redis, the balancer and the sandbox', async () => {
		const demo = startDemo(['--queue']);
		try {
			const state = await demoState(demo, (text) => text.includes(RUNNING), DEMO_LIMIT_MS);
			const output = demo.text;
			expect({ state, tail: state === 'running' ? '' : output.slice(-4000) }).toEqual({ state: 'running', tail: '' });
			const port = (pattern: RegExp) => portIn(output, pattern);
			const ports = {
				n8n: port(/n8n editor: {2}https:\/\/localhost:(\d+)/),
				sandbox: port(/sandbox: {5}https?:\/\/[^:]+:(\d+)/),
				balancer: port(/webhooks: {4}https:\/\/localhost:(\d+)/),
				webhook1: port(/webhook-1 https:\/\/localhost:(\d+)/),
				webhook2: port(/webhook-2 https:\/\/localhost:(\d+)/),
				postgres: port(/postgres: {4}127\.0\.0\.1:(\d+)/),
				redis: port(/redis: 127\.0\.0\.1:(\d+)/),
			};
			for (const [name, value] of Object.entries(ports)) {
				expect({ name, open: Number.isInteger(value) && (await listening(value)) }).toEqual({ name, open: true });
			}

			// To npm only, as a process manager or `kill <pid>` sends it.
			const left = await signalAndWait(demo, 'SIGTERM', ports);
			expect(left).toEqual([]);
			expect(demo.text).toContain('SIGTERM: stopping n8n (every process, PostgreSQL, Redis), the sandbox and the sink...');
		} finally {
			await demo.stop(60_000);
		}
	}, DEMO_LIMIT_MS + 180_000);
});
