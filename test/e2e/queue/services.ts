import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePorts } from '../free-port';
import { repoRoot } from '../n8n-install';
import { ProcessGroup } from '../process-group';
import { GiveUp, waitFor } from '../wait-for';

const run = promisify(execFile);

/** Redis and PostgreSQL for one queue-mode deployment: throwaway instances on free ports. */
export interface QueueServices {
	redis: { host: string; port: number };
	postgres: { host: string; port: number; database: string; user: string; password: string };
	/** What every n8n process of the deployment needs to reach them (DB_*, QUEUE_BULL_REDIS_*). */
	env: Record<string, string>;
	/** Runs SQL in n8n's database with psql; returns what it printed (unaligned, tuples only). */
	sql(statement: string): Promise<string>;
	/** Stops PostgreSQL and Redis (call after every n8n process has stopped). */
	stop(): Promise<void>;
}

/**
 * Debian's redis-server and PostgreSQL (installed by install-services.sh when missing), run as an
 * unprivileged user (PostgreSQL refuses root) with their data in a temporary folder removed by stop().
 */
export async function startQueueServices(): Promise<QueueServices> {
	const pgBin = await installServices();
	const asUser = process.getuid?.() === 0 ? ['runuser', '-u', 'nobody', '--'] : [];
	const dir = await mkdtemp(join(tmpdir(), 'n8n-queue-services-'));
	// The unprivileged user must reach its own folders inside.
	await chmod(dir, 0o755);
	const own = async (path: string) => {
		await mkdir(path, { recursive: true, mode: 0o700 });
		if (asUser.length) await chown(path, ...(await nobodyIds()));
	};
	const [redisPort, pgPort] = await freePorts(2);
	const groups: ProcessGroup[] = [];
	const stop = async () => {
		// PostgreSQL's SIGTERM waits for clients to leave: stop() SIGKILLs after the grace time.
		for (const group of groups.reverse()) await group.stop(10_000);
		await rm(dir, { recursive: true, force: true, maxRetries: 3 });
	};
	try {
		const redisDir = join(dir, 'redis');
		await own(redisDir);
		const redis = new ProcessGroup(
			asUser[0] ?? 'redis-server',
			[...asUser.slice(1), ...(asUser.length ? ['redis-server'] : []), '--port', String(redisPort), '--bind', '127.0.0.1',
				'--save', '', '--appendonly', 'no', '--dir', redisDir],
			{ cwd: dir, env: { ...process.env }, logFile: join(dir, 'redis.log') },
		);
		groups.push(redis);

		const pgData = join(dir, 'postgres');
		const pgSocket = join(dir, 'postgres-socket');
		await own(pgData);
		await own(pgSocket);
		const user = 'n8n';
		const password = randomBytes(16).toString('hex');
		const pwFile = join(pgSocket, 'password');
		await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
		if (asUser.length) await chown(pwFile, ...(await nobodyIds()));
		const pg = (tool: string) => [...asUser, join(pgBin, tool)];
		const [initCommand, ...initArgs] = pg('initdb');
		await run(initCommand, [...initArgs, '-D', pgData, '-U', user, `--pwfile=${pwFile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--no-sync'], {
			timeout: 120_000,
		});
		const [pgCommand, ...pgArgs] = pg('postgres');
		const postgres = new ProcessGroup(
			pgCommand,
			[...pgArgs, '-D', pgData, '-p', String(pgPort), '-k', pgSocket, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
			{ cwd: dir, env: { ...process.env }, logFile: join(dir, 'postgres.log') },
		);
		groups.push(postgres);
		const database = 'n8n';
		await waitFor(
			async () => {
				if (!postgres.running) throw new GiveUp(`PostgreSQL exited: ${postgres.text.slice(-2000)}`);
				if (!redis.running) throw new GiveUp(`Redis exited: ${redis.text.slice(-2000)}`);
				const ready = await run(join(pgBin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(pgPort)]).then(() => true, () => false);
				return ready && redis.text.includes('Ready to accept connections') ? true : undefined;
			},
			{ what: 'PostgreSQL and Redis to accept connections', timeoutMs: 60_000 },
		);
		await run(join(pgBin, 'createdb'), ['-h', '127.0.0.1', '-p', String(pgPort), '-U', user, database], {
			env: { ...process.env, PGPASSWORD: password },
		});
		return {
			redis: { host: '127.0.0.1', port: redisPort },
			postgres: { host: '127.0.0.1', port: pgPort, database, user, password },
			env: {
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: '127.0.0.1',
				DB_POSTGRESDB_PORT: String(pgPort),
				DB_POSTGRESDB_DATABASE: database,
				DB_POSTGRESDB_USER: user,
				DB_POSTGRESDB_PASSWORD: password,
				QUEUE_BULL_REDIS_HOST: '127.0.0.1',
				QUEUE_BULL_REDIS_PORT: String(redisPort),
			},
			sql: async (statement) => {
				const { stdout } = await run(
					join(pgBin, 'psql'),
					['-h', '127.0.0.1', '-p', String(pgPort), '-U', user, '-d', database, '-v', 'ON_ERROR_STOP=1', '-At', '-c', statement],
					{ env: { ...process.env, PGPASSWORD: password } },
				);
				return stdout;
			},
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}

/** Runs install-services.sh (apt-get only when something is missing); returns PostgreSQL's bin folder. */
export async function installServices(): Promise<string> {
	const { stdout } = await run('bash', [join(repoRoot, 'test/e2e/queue/install-services.sh')], {
		timeout: 15 * 60_000,
		maxBuffer: 16 << 20,
	});
	return stdout.trim().split('\n').pop() ?? '';
}

async function nobodyIds(): Promise<[number, number]> {
	const { stdout } = await run('id', ['-u', 'nobody']);
	const { stdout: group } = await run('id', ['-g', 'nobody']);
	return [Number(stdout.trim()), Number(group.trim())];
}
