/**
 * CPU time of a running n8n (its main process and task runners), read from /proc (Linux), for the
 * cost of one delivery inside n8n: refused against accepted (issue: refuse cheaply).
 */
import { readdirSync, readFileSync } from 'node:fs';

import { descendants } from './processTree';

const TICKS_PER_SECOND = 100;

/** The pid of the n8n server listening on `port` (found by its N8N_PORT). */
export function n8nPid(port: number): number {
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
			const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
			if (environ.includes(`N8N_PORT=${port}`) && /\bn8n\b/.test(cmdline) && /\bstart\b/.test(cmdline)) return Number(entry);
		} catch {
			// Gone, or not ours to read.
		}
	}
	throw new Error(`No n8n process with N8N_PORT=${port}`);
}

/** User plus system CPU of `pid` and its descendants so far, in ms. */
export function cpuMs(pid: number): number {
	let ticks = 0;
	for (const each of [pid, ...descendants(pid)]) {
		try {
			const stat = readFileSync(`/proc/${each}/stat`, 'utf8');
			// Fields after the command name (which may hold spaces): utime and stime are 14 and 15.
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			ticks += Number(fields[11]) + Number(fields[12]);
		} catch {
			// A task runner that ended meanwhile.
		}
	}
	return (ticks * 1000) / TICKS_PER_SECOND;
}
