import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../free-port';
import { httpsRequest } from '../https-request';
import { n8nTls, startN8n, type N8n, type StartN8nOptions } from '../n8n';
import { n8nEnv } from '../n8n-env';
import { n8nInstall } from '../n8n-install';
import { e2eDir, readState } from '../n8n-state';
import { ProcessGroup } from '../process-group';
import { GiveUp, waitFor } from '../wait-for';
import { startBalancer, type Balancer } from './balancer';
import { startQueueServices, type QueueServices } from './services';

export interface QueueDeploymentOptions extends Omit<StartN8nOptions, 'keepUserFolder'> {
	/** `n8n webhook` processes behind the balancer. Default 1. */
	webhooks?: number;
	/** `n8n worker` processes. Default 1. */
	workers?: number;
	/** Progress lines. */
	log?: (line: string) => void;
}

/** One process of the deployment and what it printed. */
export interface QueueProcess {
	readonly name: string;
	readonly group: ProcessGroup;
	/** For a webhook process, its own https://localhost:<port>. */
	readonly url?: string;
}

export interface QueueDeployment {
	/** The main process (editor, public API, activation); its `url` is the editor's. */
	main: N8n;
	webhooks: QueueProcess[];
	workers: QueueProcess[];
	/** The load balancer in front of n8n (webhook processes, and main for the rest); webhook URLs start with its url. */
	balancer: Balancer;
	services: QueueServices;
	/** Execution id -> the worker that ran it, from the workers' "Worker started execution" lines. */
	ranOn(): Map<string, string>;
	/** Execution id -> the webhook process that put it on the queue ("Enqueued execution"). */
	enqueuedBy(): Map<string, string>;
	/** Stops every n8n process, then PostgreSQL and Redis; removes the folders it made. */
	stop(): Promise<void>;
}

/**
 * n8n in queue mode (n8n's "scaling mode"), laid out as an operator would: PostgreSQL and Redis,
 * one main process that serves the editor and API and activates workflows but takes no production
 * webhooks, webhook processes behind a load balancer whose URL is n8n's webhook URL, and workers
 * that run every execution. All n8n processes share one user folder (community package, CAs, key).
 */
export async function startQueueDeployment(options: QueueDeploymentOptions = {}): Promise<QueueDeployment> {
	const log = options.log ?? (() => undefined);
	const ownFolder = options.userFolder === undefined;
	const userFolder = options.userFolder ?? (await mkdtemp(join(tmpdir(), 'n8n-queue-')));
	const stops: Array<() => Promise<void>> = [];
	if (ownFolder) stops.push(() => rm(userFolder, { recursive: true, force: true, maxRetries: 3 }));
	let stopping: Promise<void> | undefined;
	const stop = () => {
		stopping ??= (async () => {
			const errors: unknown[] = [];
			for (const step of [...stops].reverse()) await step().catch((error: unknown) => errors.push(error));
			if (errors.length) throw errors[0];
		})();
		return stopping;
	};
	try {
		const services = await startQueueServices();
		stops.push(() => services.stop());
		log(`PostgreSQL on port ${services.postgres.port}, Redis on port ${services.redis.port}`);
		const tls = await n8nTls(userFolder);
		const balancer = await startBalancer(tls);
		stops.push(() => balancer.close());
		const queueEnv = {
			...services.env,
			EXECUTIONS_MODE: 'queue',
			WEBHOOK_URL: `${balancer.url}/`,
			N8N_WEBHOOK_URL: `${balancer.url}/`,
			// Production webhooks go to the webhook processes only; manual runs from the editor go to workers too.
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
			OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
			...options.env,
		};
		log('Starting n8n main (queue mode)...');
		const main = await startN8n({ ...options, userFolder, keepUserFolder: true, env: queueEnv });
		stops.push(() => main.stop());

		const install = await n8nInstall();
		const state = await readState(userFolder);
		if (!state) throw new Error('n8n main left no state');
		const started: Array<QueueProcess & { ready: string }> = [];
		const spawnProcess = async (name: string, command: 'webhook' | 'worker'): Promise<void> => {
			const [port, brokerPort] = await freePorts(2);
			const env = n8nEnv({
				node: install.node,
				userFolder,
				encryptionKey: state.encryptionKey,
				port,
				brokerPort,
				keyPath: tls.keyPath,
				certPath: tls.certPath,
				extraCaPath: join(e2eDir(userFolder), 'trusted-cas.pem'),
				extra: { ...install.env, ...queueEnv, ...(command === 'worker' ? { QUEUE_HEALTH_CHECK_PORT: String(port) } : {}) },
			});
			const group = new ProcessGroup(install.node, [install.bin, command], {
				cwd: userFolder,
				env,
				logFile: join(e2eDir(userFolder), `${name}.log`),
			});
			stops.push(() => group.stop());
			started.push({
				name,
				group,
				url: command === 'webhook' ? `https://localhost:${port}` : undefined,
				ready: command === 'webhook' ? 'Webhook listener waiting for requests' : 'n8n worker is now ready',
			});
		};
		for (let i = 1; i <= (options.workers ?? 1); i++) await spawnProcess(`worker-${i}`, 'worker');
		for (let i = 1; i <= (options.webhooks ?? 1); i++) await spawnProcess(`webhook-${i}`, 'webhook');
		log(`Starting ${started.map((process) => process.name).join(', ')}...`);
		await Promise.all(
			started.map((process) =>
				waitFor(
					async () => {
						if (!process.group.running) throw new GiveUp(`${process.name} exited during start`);
						if (!process.group.text.includes(process.ready)) return undefined;
						if (!process.url) return true;
						const health = await httpsRequest(`${process.url}/healthz`, { ca: tls.ca, timeoutMs: 5_000 });
						return health.status === 200 ? true : undefined;
					},
					{ what: `n8n ${process.name} to be ready`, timeoutMs: options.readyTimeoutMs ?? 120_000 },
				).catch((error: Error) => {
					throw new Error(`${error.message}\n--- ${process.name} output ---\n${process.group.text.slice(-4000)}`);
				}),
			),
		);
		const webhooks = started.filter((process) => process.url);
		const workers = started.filter((process) => !process.url);
		balancer.setBackends(webhooks.map((process) => process.url as string), main.url);
		log(`n8n queue mode: main ${main.url}, webhooks behind ${balancer.url}, ${workers.length} worker(s)`);

		const byLine = (processes: QueueProcess[], pattern: RegExp) => () => {
			const found = new Map<string, string>();
			for (const process of processes) {
				for (const match of process.group.text.matchAll(pattern)) found.set(match[1], process.name);
			}
			return found;
		};
		return {
			main,
			webhooks,
			workers,
			balancer,
			services,
			ranOn: byLine(workers, /Worker started execution (\d+)/g),
			enqueuedBy: byLine(webhooks, /Enqueued execution (\d+)/g),
			stop,
		};
	} catch (error) {
		await stop().catch(() => undefined);
		throw error;
	}
}
