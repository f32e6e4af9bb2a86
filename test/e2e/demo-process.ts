import { connect } from 'node:net';
import { repoRoot } from './n8n-install';
import { ProcessGroup } from './process-group';
import { waitFor } from './wait-for';

/** `npm run demo -- <args>` as its own process group (npm is the leader). */
export function startDemo(args: string[]): ProcessGroup {
	return new ProcessGroup('npm', ['run', 'demo', '--', ...args], { cwd: repoRoot, env: { ...process.env } });
}

/** Resolves with the exit code, 'running' once `until` holds for the output, or 'timeout'. */
export async function demoState(
	demo: ProcessGroup,
	until: (output: string) => boolean,
	limitMs: number,
): Promise<number | null | 'running' | 'timeout'> {
	let timer: NodeJS.Timeout | undefined;
	const timedOut = new Promise<'timeout'>((resolve) => {
		timer = setTimeout(() => resolve('timeout'), limitMs);
	});
	const reached = new Promise<'running'>((resolve) => demo.onOutput((text) => until(text) && resolve('running')));
	try {
		return await Promise.race([demo.exited, timedOut, reached]);
	} finally {
		clearTimeout(timer);
	}
}

export const RUNNING = 'running; press Ctrl-C to stop everything.';

/** Whether something still accepts TCP connections on 127.0.0.1:port. */
export function listening(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = connect({ host: '127.0.0.1', port });
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

/** Whether any process of the process group `pgid` is left. */
function groupAlive(pgid: number): boolean {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * Sends `signal` to npm alone (as `kill <pid>` or a process manager does) and waits until the demo's
 * process group is gone and nothing listens on `ports` any more; returns the names still open (none).
 */
export async function signalAndWait(demo: ProcessGroup, signal: NodeJS.Signals, ports: Record<string, number>): Promise<string[]> {
	const pid = demo.child.pid as number;
	process.kill(pid, signal);
	return waitFor(
		async () => {
			const open = [];
			for (const [name, port] of Object.entries(ports)) if (await listening(port)) open.push(name);
			return open.length === 0 && !groupAlive(pid) ? open : undefined;
		},
		{ what: `the demo and everything it started to stop after ${signal}`, timeoutMs: 90_000 },
	);
}

/** The port in the first match of `pattern` (its group 1) in the demo's output. */
export function portIn(output: string, pattern: RegExp): number {
	return Number(pattern.exec(output)?.[1]);
}
