import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

export interface GroupOptions {
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** Appends everything the process prints to this file (kept for debugging failures). */
	logFile?: string;
}

// Groups still running, killed synchronously if the test process exits without stopping them.
const live = new Set<number>();
process.once('exit', () => {
	for (const pgid of live) signalGroup(pgid, 'SIGKILL');
});

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pgid, signal);
	} catch {
		// ESRCH: the whole group is gone already.
	}
}

/**
 * A process started as the leader of its own process group, so that stop() also ends the children
 * it starts (n8n's task runners), with its output kept in memory.
 */
export class ProcessGroup {
	readonly child: ChildProcess;
	readonly exited: Promise<number | null>;
	private output = '';
	private readonly streams = { stdout: '', stderr: '' };
	private readonly log?: WriteStream;
	private readonly listeners: Array<(text: string) => void> = [];

	constructor(command: string, args: string[], options: GroupOptions) {
		this.child = spawn(command, args, {
			cwd: options.cwd,
			env: options.env,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		if (options.logFile) this.log = createWriteStream(options.logFile, { flags: 'a' });
		const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
			const text = chunk.toString('utf8');
			this.streams[stream] += text;
			this.output += text;
			this.log?.write(text);
			for (const listener of this.listeners) listener(this.output);
		};
		this.child.stdout?.on('data', collect('stdout'));
		this.child.stderr?.on('data', collect('stderr'));
		const pid = this.child.pid;
		if (pid !== undefined) live.add(pid);
		this.exited = new Promise((resolve) => {
			this.child.once('error', (error) => {
				this.output += `\n${error.message}\n`;
				if (pid !== undefined) live.delete(pid);
				resolve(null);
			});
			// 'close' comes after both pipes are drained.
			this.child.once('close', (code) => {
				if (pid !== undefined) signalGroup(pid, 'SIGKILL');
				if (pid !== undefined) live.delete(pid);
				this.log?.end();
				resolve(code);
			});
		});
	}

	/** stdout and stderr so far, interleaved as printed. */
	get text(): string {
		return this.output;
	}

	get stdout(): string {
		return this.streams.stdout;
	}

	get stderr(): string {
		return this.streams.stderr;
	}

	get running(): boolean {
		return this.child.exitCode === null && this.child.signalCode === null;
	}

	/** Calls `listener` with the whole output so far whenever more arrives. */
	onOutput(listener: (text: string) => void): void {
		this.listeners.push(listener);
	}

	/** SIGTERM to the whole group, SIGKILL after `graceMs`; resolves once the leader has exited. */
	async stop(graceMs = 15_000): Promise<void> {
		const pid = this.child.pid;
		if (pid === undefined) return;
		if (this.running) signalGroup(pid, 'SIGTERM');
		const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
		try {
			await this.exited;
		} finally {
			clearTimeout(timer);
		}
		// Anything the leader left behind in its group goes too.
		signalGroup(pid, 'SIGKILL');
	}
}
