/**
 * `npm run demo [-- --once] [-- --queue]`: builds and packs the package, starts the Service sandbox
 * (demo data) and a real n8n with the package installed from its tarball and the example workflows
 * imported, activates the trigger examples, has the sandbox send a few signed events, runs the manual
 * examples, and prints the editor URL, the login and what ran. Ctrl-C, SIGTERM and SIGHUP stop everything.
 * With --queue n8n runs in queue mode: PostgreSQL, Redis, main, two webhook processes behind a load
 * balancer and two workers (test/e2e/queue/deployment.ts).
 * With --once it stops by itself and exits 0 only if the ledger_high and portfolio examples succeeded
 * (and, with --queue, every trigger example execution ran on a worker).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleFiles, manualExamples, readExample, type ExampleName } from '../test/e2e/examples/catalog';
import { alertIdsOf } from '../test/e2e/examples/executions';
import { chatPath, crmPath, exampleIds, startExampleStack, type ExampleStack } from '../test/e2e/examples/stack';
import { packPackage, type Execution } from '../test/e2e/n8n';
import { n8nInstall, repoRoot } from '../test/e2e/n8n-install';
import { startQueueDeployment, type QueueDeployment } from '../test/e2e/queue/deployment';
import { installServices } from '../test/e2e/queue/services';
import { waitFor } from '../test/e2e/wait-for';
import { whenToldToStop } from './demo/lifetime';
import { executionTable } from './demo/report';

const once = process.argv.includes('--once');
const queue = process.argv.includes('--queue');
// Bounds the whole --once run, n8n's first install included, so CI never hangs on it.
const ONCE_LIMIT_MS = 25 * 60_000;
const say = (line: string) => process.stdout.write(`demo: ${line}\n`);
/** Stops whatever has been started so far (replaced once there is something to stop). */
let stopAll = async (): Promise<void> => undefined;

function run(command: string, args: string[]): Promise<void> {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd: repoRoot, stdio: 'inherit' });
		child.on('error', reject);
		child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
	});
}

/** Signed events from the Service, as a real one would send them. */
async function sendEvents(stack: ExampleStack): Promise<{ ledgerHigh: string }> {
	const { control } = stack.sandbox;
	const ledgerHigh = control.emit('ledger_high', { organisation: 'KE-1010' }, { severity: 'high' });
	const alerts = [
		ledgerHigh,
		control.emit('ledger_medium', { organisation: 'KE-1009' }),
		control.revokeShare('KE-1004'),
		control.emit('reader_tier_changed', { organisation: 'KE-1001' }),
	];
	for (const alert of alerts) {
		const deliveries = await control.whenSettled(alert.alertId);
		const answers = deliveries.flatMap((delivery) => delivery.attempts.map((attempt) => attempt.status ?? attempt.error));
		say(`  ${alert.eventType.padEnd(20)} ${alert.alertId}  n8n answered ${answers.join(', ')}`);
	}
	return { ledgerHigh: ledgerHigh.alertId };
}

async function executionsOf(stack: ExampleStack): Promise<Record<ExampleName, Execution[]>> {
	const names = Object.keys(exampleFiles) as ExampleName[];
	const lists = await Promise.all(names.map((name) => stack.n8n.api.executions(exampleIds[name])));
	return Object.fromEntries(names.map((name, i) => [name, lists[i]])) as Record<ExampleName, Execution[]>;
}

async function main(): Promise<number> {
	say('installing n8n when missing (the first time takes a few minutes)...');
	const install = await n8nInstall();
	say(`n8n ${install.version} is installed`);
	if (queue) {
		say('installing Redis and PostgreSQL when missing (apt-get)...');
		say(`PostgreSQL server binaries in ${await installServices()}`);
	}
	say('building the package (npm run bundle)...');
	await run('npm', ['run', '--silent', 'bundle']);
	const work = await mkdtemp(join(tmpdir(), 'service-demo-'));
	let stack: ExampleStack | undefined;
	let deployment: QueueDeployment | undefined;
	stopAll = async () => {
		await stack?.stop();
		await rm(work, { recursive: true, force: true });
	};
	whenToldToStop((reason) => {
		say(`${reason}: stopping n8n${queue ? ' (every process, PostgreSQL, Redis)' : ''}, the sandbox and the sink...`);
		void stopAll().finally(() => process.exit(130));
	});

	try {
		const tarball = await packPackage(repoRoot, work);
		say(`packed ${tarball}`);
		// 4 rows a page, so the portfolio example really pages (10 companies, 3 pages).
		stack = await startExampleStack({
			tarball,
			sandbox: { pageSize: 4 },
			log: (line) => say(line),
			n8n: queue
				? async (options) => {
						deployment = await startQueueDeployment({ ...options, webhooks: 2, workers: 2, log: (line) => say(line) });
						const started = deployment;
						return { n8n: started.main, webhookBase: started.balancer.url, stop: () => started.stop() };
					}
				: undefined,
		});

		say('the sandbox sends signed events:');
		const { ledgerHigh } = await sendEvents(stack);
		for (const name of manualExamples) {
			const result = await stack.n8n.executeWorkflow(exampleIds[name]);
			say(`ran "${readExample(name).name}": ${result.status ?? (result.data.resultData.error ? 'error' : 'success')}`);
		}
		// Trigger executions run in n8n after it answered the delivery: wait for them, bounded.
		const { api } = stack.n8n;
		await api.waitForExecutions(exampleIds.ledgerAlert, 2, 60_000).catch(() => undefined);
		await api.waitForExecutions(exampleIds.shareRevoked, 2, 60_000).catch(() => undefined);
		await waitFor(async () => (stack?.sink.received(crmPath).length ? true : undefined), {
			what: 'the CRM stand-in to be marked',
			timeoutMs: 30_000,
		}).catch(() => undefined);

		const executions = await executionsOf(stack);
		const rows = (Object.keys(exampleFiles) as ExampleName[]).map((name) => ({
			workflow: readExample(name).name,
			executions: executions[name],
		}));
		const { n8n, sink } = stack;
		process.stdout.write(`\n${executionTable(rows)}\n\n`);
		for (const request of sink.received(chatPath)) say(`chat (Slack stand-in) got: ${JSON.parse(request.body).text}`);
		for (const request of sink.received(crmPath)) say(`CRM stand-in got: ${request.method} ${request.path} ${request.body}`);
		process.stdout.write(
			[
				'',
				`n8n editor:  ${n8n.url}   (its certificate comes from a CA made for the demo: ${n8n.caPath})`,
				`login:       ${n8n.owner.email} / ${n8n.owner.password}`,
				`sandbox:     ${stack.sandbox.baseUrl}  (reader token ${stack.sandbox.tokens.reader})`,
				...(deployment
					? [
							`webhooks:    ${deployment.balancer.url}  (load balancer for ${deployment.webhooks.map((p) => `${p.name} ${p.url}`).join(', ')})`,
							`workers:     ${deployment.workers.map((p) => p.name).join(', ')}`,
							`postgres:    127.0.0.1:${deployment.services.postgres.port}   redis: 127.0.0.1:${deployment.services.redis.port}`,
						]
					: []),
				'',
			].join('\n'),
		);

		const ledgerOk = executions.ledgerAlert.some(
			(execution) => execution.status === 'success' && alertIdsOf([execution], 'Service Trigger: register changes')[0] === ledgerHigh,
		);
		const portfolioOk = executions.portfolio.some((execution) => execution.status === 'success');
		say(`ledger_high example: ${ledgerOk ? 'ok' : 'FAILED'}; portfolio example: ${portfolioOk ? 'ok' : 'FAILED'}`);
		let onWorkers = true;
		if (deployment) {
			// A worker logs "Worker started execution <id>" for each execution it runs.
			const ranOn = deployment.ranOn();
			const triggerRuns = [...executions.ledgerAlert, ...executions.shareRevoked];
			const elsewhere = triggerRuns.filter((execution) => !ranOn.has(execution.id));
			onWorkers = triggerRuns.length > 0 && elsewhere.length === 0;
			const where = triggerRuns.map((execution) => `${execution.id} on ${ranOn.get(execution.id) ?? 'no worker'}`);
			say(`trigger example executions: ${where.join(', ')}; ${onWorkers ? 'all ran on a worker' : 'NOT all on a worker'}`);
		}
		if (once) {
			await stopAll();
			return ledgerOk && portfolioOk && onWorkers ? 0 : 1;
		}
		say('running; press Ctrl-C to stop everything.');
		return await new Promise<number>(() => undefined);
	} catch (error) {
		await stopAll().catch(() => undefined);
		throw error;
	}
}

if (once) {
	setTimeout(() => {
		process.stderr.write(`demo: --once did not finish within ${ONCE_LIMIT_MS / 60_000} minutes\n`);
		void stopAll().finally(() => process.exit(1));
	}, ONCE_LIMIT_MS).unref();
}
main().then(
	(code) => process.exit(code),
	(error: Error) => {
		process.stderr.write(`demo failed: ${error.stack ?? error.message}\n`);
		process.exit(1);
	},
);
