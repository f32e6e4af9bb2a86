import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { startSandbox } from './index';
import { SandboxClient } from './testClient';
import { startReceiver } from './testReceiver';

describe('start and stop', () => {
	it('starts and stops 50 times, each time serving a kept-alive request, leaving nothing open', async () => {
		const ports = new Set<number>();
		for (let i = 0; i < 50; i++) {
			const sandbox = await startSandbox({ seed: i % 2 ? 'demo' : 'empty' });
			const client = new SandboxClient(sandbox);
			const reply = await client.request('/v1/reader/webhooks/catalogue');
			expect(reply.status).toBe(200);
			ports.add(sandbox.port);
			// The client keeps its socket alive: close() must end it from the server side.
			await sandbox.close();
			client.close();
		}
		expect(ports.size).toBeGreaterThan(1);
	});

	it('listens on the port asked for', async () => {
		const free = await new Promise<number>((resolve) => {
			const probe = createServer().listen(0, '127.0.0.1', () => {
				const { port } = probe.address() as { port: number };
				probe.close(() => resolve(port));
			});
		});
		const sandbox = await startSandbox({ port: free, seed: 'empty' });
		const client = new SandboxClient(sandbox);
		try {
			expect(sandbox.baseUrl).toBe(`https://127.0.0.1:${free}`);
			expect((await client.request('/v1/reader/exports/portfolio')).json()).toEqual({ data: [] });
		} finally {
			client.close();
			await sandbox.close();
		}
	});

	it('close() stops pending retries and in-flight deliveries; waiting callers are told', async () => {
		const sandbox = await startSandbox({ timeScale: 1 });
		const receiver = await startReceiver(sandbox.receiverTls, [500]);
		try {
			sandbox.control.addWebhookEndpoint(receiver.url);
			const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1001' });
			// Wait for the first failed attempt; the next one is 60 real seconds away.
			await sandbox.control.waitForDeliveries((list) => list.some((d) => d.attempts.some((a) => a.status === 500)));
			const settled = sandbox.control.whenSettled(alert.alertId);
			await sandbox.close();
			await expect(settled).rejects.toThrow('The sandbox was closed while waiting for deliveries.');
			expect(sandbox.control.deliveries()[0].state).toBe('pending');
			expect(() => sandbox.control.emit('ledger_high', { organisation: 'KE-1001' })).toThrow(
				'The sandbox is closed: no more deliveries can be sent.',
			);
			await sandbox.close();
		} finally {
			await receiver.close();
		}
	});
});

describe('npm run sandbox', () => {
	it('prints the base URL, a reader token and the CA file, serves with demo data, and stops on SIGINT', async () => {
		const root = join(__dirname, '..', '..');
		const child = spawn(join(root, 'node_modules', '.bin', 'tsx'), ['test/sandbox/cli.ts'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
		try {
			let output = '';
			await new Promise<void>((resolve, reject) => {
				child.stdout.on('data', (chunk: Buffer) => {
					output += chunk.toString();
					if (output.includes('Press Ctrl-C to stop.')) resolve();
				});
				child.on('exit', (code) => reject(new Error(`sandbox CLI exited with ${code}: ${output}`)));
			});
			const baseUrl = /Base URL: +(https:\/\/127\.0\.0\.1:\d+)/.exec(output)![1];
			const token = /Reader token: +(\S+)/.exec(output)![1];
			const caFile = /CA file: +(\S+)/.exec(output)![1];
			const ca = readFileSync(caFile, 'utf8');
			const port = Number(new URL(baseUrl).port);
			const client = new SandboxClient({ baseUrl, ca, tokens: { reader: token } });
			try {
				const reply = await client.request('/v1/reader/exports/portfolio?format=csv&page_size=2');
				expect(reply.status).toBe(200);
				expect(reply.text).toBe('ke,company_name,tier,status,decision_due\r\nKE-1001,Acme Supplies Ltd,tier-1,active,true\r\n'
					+ 'KE-1002,"\'=HYPERLINK(""http://evil.example"",""click me"")",tier-2,active,false\r\n');
			} finally {
				client.close();
			}
			expect(port).toBeGreaterThan(0);
			const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
			child.kill('SIGINT');
			expect(await exit).toBe(0);
			expect(existsSync(caFile)).toBe(false);
		} finally {
			if (child.exitCode === null) child.kill('SIGKILL');
		}
	});
});
