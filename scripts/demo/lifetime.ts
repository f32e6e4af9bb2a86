import { readFileSync } from 'node:fs';

/**
 * Calls `end` once when the demo is told to stop: Ctrl-C (SIGINT), SIGTERM, SIGHUP, or its launcher
 * going away without passing a signal on (npm forwards SIGTERM to its script but not SIGHUP, and
 * nothing is forwarded when npm is killed outright).
 */
export function whenToldToStop(end: (reason: string) => void): void {
	let ended = false;
	const once = (reason: string) => {
		if (ended) return;
		ended = true;
		clearInterval(watch);
		end(reason);
	};
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => once(signal));
	const parent = process.ppid;
	// The launcher chain: tsx (parent) and what started it (npm, or a shell).
	const launchers = [parent, parentOf(parent)].filter((pid): pid is number => pid !== undefined && pid > 1);
	const watch = setInterval(() => {
		if (process.ppid !== parent || launchers.some((pid) => !alive(pid))) once('its launcher exited');
	}, 1000);
	watch.unref();
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code !== 'ESRCH';
	}
}

/** A process's parent from /proc (Linux); undefined where there is no /proc. */
function parentOf(pid: number): number | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		// "pid (command) state ppid ...": the command may contain spaces and parentheses.
		return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
	} catch {
		return undefined;
	}
}
