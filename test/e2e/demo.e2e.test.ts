import { demoState, listening, portIn, RUNNING, signalAndWait, startDemo } from './demo-process';
import { repoRoot } from './n8n-install';
import { ProcessGroup } from './process-group';

const DEMO_LIMIT_MS = 8 * 60_000;

// What docs/development.md (The demo) promises: `npm run demo -- --once` runs the examples in a real n8n and exits 0.
describe('npm run demo -- --once', () => {
	test('builds, runs the examples against the sandbox, reports what ran and exits 0', async () => {
		const demo = new ProcessGroup('npm', ['run', 'demo', '--', '--once'], { cwd: repoRoot, env: { ...process.env } });
		let timer: NodeJS.Timeout | undefined;
		try {
			const timedOut = new Promise<'timeout'>((resolve) => {
				timer = setTimeout(() => resolve('timeout'), DEMO_LIMIT_MS);
			});
			const code = await Promise.race([demo.exited, timedOut]);
			const output = demo.text;
			expect({ code, tail: code === 0 ? '' : output.slice(-4000) }).toEqual({ code: 0, tail: '' });
			// The table names each example with its executions and their statuses.
			expect(output).toMatch(/Service: company register alert to chat\s+2\s+success x2/);
			expect(output).toMatch(/Service: portfolio to spreadsheet\s+1\s+success x1/);
			expect(output).toMatch(/Service: invite suppliers from a CSV file\s+1\s+success x1/);
			expect(output).toMatch(/Service: share ended, mark the CRM copy\s+2\s+success x2/);
			expect(output).toContain('ledger_high example: ok; portfolio example: ok');
			expect(output).toContain('CRM stand-in got: PATCH /crm/companies/KE-1004 {"share":"ended"}');
			expect(output).toMatch(/n8n editor: {2}https:\/\/localhost:\d+/);
			expect(output).toMatch(/login: {7}owner@e2e\.example \/ \S+/);
		} finally {
			clearTimeout(timer);
			// SIGTERM lets the demo stop its n8n, sandbox and sink; anything left is killed after the grace time.
			await demo.stop(60_000);
		}
	}, DEMO_LIMIT_MS + 90_000);

	test('a SIGHUP to npm alone (which npm does not pass on) stops n8n and the sandbox', async () => {
		const demo = startDemo([]);
		try {
			const state = await demoState(demo, (text) => text.includes(RUNNING), DEMO_LIMIT_MS);
			const output = demo.text;
			expect({ state, tail: state === 'running' ? '' : output.slice(-4000) }).toEqual({ state: 'running', tail: '' });
			const ports = {
				n8n: portIn(output, /n8n editor: {2}https:\/\/localhost:(\d+)/),
				sandbox: portIn(output, /sandbox: {5}https?:\/\/[^:]+:(\d+)/),
			};
			for (const [name, port] of Object.entries(ports)) {
				expect({ name, open: Number.isInteger(port) && (await listening(port)) }).toEqual({ name, open: true });
			}
			expect(await signalAndWait(demo, 'SIGHUP', ports)).toEqual([]);
			// npm died of the SIGHUP; the demo saw its launcher go and stopped what it started.
			expect(demo.text).toContain('its launcher exited: stopping n8n, the sandbox and the sink...');
		} finally {
			await demo.stop(60_000);
		}
	}, DEMO_LIMIT_MS + 180_000);
});
