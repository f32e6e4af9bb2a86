/**
 * Resident memory of a process and its descendants, read from /proc (Linux). `n8n execute` starts
 * a task runner as a child process; the sampler keeps the main process and the rest apart so the
 * report can say which is which.
 */
import { readdirSync, readFileSync } from 'node:fs';

const pageBytes = 4096;

export interface RssSample {
	/** Date.now() when read. */
	at: number;
	/** RSS of the process the sampler was pointed at, MiB. */
	mainMiB: number;
	/** RSS of all its descendants together (task runners), MiB. */
	othersMiB: number;
}

/** Direct and indirect children of `pid`, from /proc/<pid>/task/<tid>/children. */
export function descendants(pid: number): number[] {
	const found: number[] = [];
	const queue = [pid];
	// Bounded: a process tree on one machine has far fewer than 10,000 members.
	for (let steps = 0; queue.length > 0 && steps < 10_000; steps++) {
		const current = queue.shift()!;
		let tasks: string[] = [];
		try {
			tasks = readdirSync(`/proc/${current}/task`);
		} catch {
			continue;
		}
		for (const task of tasks) {
			let children = '';
			try {
				children = readFileSync(`/proc/${current}/task/${task}/children`, 'utf8');
			} catch {
				continue;
			}
			for (const child of children.split(' ').filter(Boolean).map(Number)) {
				found.push(child);
				queue.push(child);
			}
		}
	}
	return found;
}

/** Resident set size of one process in MiB (0 once it is gone). */
export function rssMiB(pid: number): number {
	try {
		const resident = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
		return (resident * pageBytes) / 2 ** 20;
	} catch {
		return 0;
	}
}

export function sampleTree(mainPid: number): RssSample {
	const others = descendants(mainPid).reduce((sum, pid) => sum + rssMiB(pid), 0);
	return { at: Date.now(), mainMiB: rssMiB(mainPid), othersMiB: others };
}
