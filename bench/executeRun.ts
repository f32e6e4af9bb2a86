/**
 * One measured `n8n execute --id=<workflow> --rawOutput`: run under GNU time (-v) for the kernel's
 * peak RSS, its memory sampled from /proc meanwhile, its output written to a file (a million items
 * print hundreds of megabytes), and killed with its whole process group at a time or memory limit.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { scanRunOutput, type RunSummary } from './outputScan';
import { rssMiB, sampleTree, type RssSample } from './processTree';

export interface ExecuteCommand {
	node: string;
	bin: string;
	cwd: string;
	env: NodeJS.ProcessEnv;
	workflowId: string;
	/** Folder for the output and GNU time's report (removed after reading unless the run failed). */
	workDir: string;
	timeoutMs: number;
	/** The run is killed when the n8n process and its task runner together hold more than this. */
	rssLimitMiB: number;
	sampleEveryMs: number;
	/** Text to count in the run data (e.g. one per output row). */
	countPatterns: string[];
	numericFields: string[];
}

export interface ExecuteMeasure {
	ok: boolean;
	/** Why it failed: n8n's error, the time limit or the memory limit. */
	failure?: string;
	/** Whole process, from spawn to exit (boot, execution, printing the run data). */
	processMs: number;
	/** startedAt to stoppedAt of the execution, as n8n recorded it. */
	executionMs?: number;
	/** Highest sampled RSS of the n8n process from its start until the execution stopped. */
	peakMainMiB: number;
	/** Highest sampled RSS of its descendants (the task runner) in the same window. */
	peakRunnerMiB: number;
	/** Highest sampled RSS of both together in that window. */
	peakTotalMiB: number;
	/** Kernel high-water mark from GNU time over the whole process life, printing included. */
	kernelMaxRssMiB?: number;
	samples: number;
	/** [ms since the execution started, main RSS MiB], at most ~100 points: the shape of memory over the run. */
	timeline: Array<[number, number]>;
	/** Exit code of GNU time's child (n8n); 139 or a signal means it crashed while exiting. */
	exitCode: number | null;
	crashedOnExit: boolean;
	summary?: RunSummary;
}

export async function measureExecute(command: ExecuteCommand): Promise<ExecuteMeasure> {
	const tag = `${command.workflowId}-${Date.now()}`;
	const outPath = join(command.workDir, `${tag}.out`);
	const timePath = join(command.workDir, `${tag}.time`);
	const out = openSync(outPath, 'w');
	const started = Date.now();
	const child = spawn(
		'/usr/bin/time',
		['-v', '-o', timePath, command.node, command.bin, 'execute', `--id=${command.workflowId}`, '--rawOutput'],
		// Its own process group, so the task runner goes too when the run is stopped.
		{ cwd: command.cwd, env: command.env, detached: true, stdio: ['ignore', out, out] },
	);
	closeSync(out);
	const exited = new Promise<number | null>((resolve) => {
		child.once('error', () => resolve(null));
		child.once('exit', (code) => resolve(code));
	});

	const samples: RssSample[] = [];
	let failure: string | undefined;
	const killGroup = () => {
		try {
			process.kill(-child.pid!, 'SIGKILL');
		} catch {
			// The group is gone.
		}
	};
	const kill = (why: string) => {
		failure ??= why;
		killGroup();
	};
	const deadline = setTimeout(() => kill(`did not finish within ${Math.round(command.timeoutMs / 1000)} s (killed)`), command.timeoutMs);
	const sampler = setInterval(() => {
		const nodePid = firstChild(child.pid!);
		if (nodePid === undefined) return;
		const sample = sampleTree(nodePid);
		samples.push(sample);
		if (sample.mainMiB + sample.othersMiB > command.rssLimitMiB) {
			kill(`went over the ${command.rssLimitMiB} MiB memory limit (killed)`);
		}
	}, command.sampleEveryMs);
	const code = await exited;
	const processMs = Date.now() - started;
	clearInterval(sampler);
	clearTimeout(deadline);
	// Anything left in the group (a task runner the kill raced with) goes now.
	killGroup();

	const kernelMaxRssMiB = readKernelMaxRss(timePath);
	const summary = await scanRunOutput(outPath, command.countPatterns, command.numericFields).catch(() => undefined);
	const stoppedAt = summary?.stoppedAt ? Date.parse(summary.stoppedAt) : Number.POSITIVE_INFINITY;
	const window = samples.filter((sample) => sample.at <= stoppedAt);
	const peak = (pick: (sample: RssSample) => number) => Math.max(0, ...window.map(pick));
	const executionMs =
		summary?.startedAt && summary.stoppedAt ? Date.parse(summary.stoppedAt) - Date.parse(summary.startedAt) : undefined;
	// n8n 2.40's CLI sometimes dies of SIGSEGV while exiting, after it printed the run data: the
	// run itself succeeded, so it counts, and the crash is recorded.
	const crashedOnExit = code !== 0 && summary?.status === 'success';
	if (failure === undefined && summary?.status !== 'success') {
		failure = `n8n execute exited with ${code}, status ${summary?.status ?? 'unknown'}${summary?.error ? `: ${summary.error}` : ''}`;
	}
	const ok = failure === undefined;
	// Failed runs keep their output for a look; successful ones can be hundreds of megabytes.
	if (ok) await Promise.all([rm(outPath, { force: true }), rm(timePath, { force: true })]);
	return {
		ok,
		failure: ok ? undefined : `${failure} (output: ${outPath})`,
		processMs,
		executionMs,
		peakMainMiB: peak((sample) => sample.mainMiB),
		peakRunnerMiB: peak((sample) => sample.othersMiB),
		peakTotalMiB: peak((sample) => sample.mainMiB + sample.othersMiB),
		kernelMaxRssMiB,
		samples: window.length,
		timeline: downsample(window, summary?.startedAt ? Date.parse(summary.startedAt) : started),
		exitCode: code,
		crashedOnExit,
		summary,
	};
}

function downsample(samples: RssSample[], zero: number): Array<[number, number]> {
	const step = Math.max(1, Math.ceil(samples.length / 100));
	return samples
		.filter((_, i) => i % step === 0 || i === samples.length - 1)
		.map((sample) => [sample.at - zero, Math.round(sample.mainMiB)]);
}

/** The process GNU time started (n8n itself). */
function firstChild(pid: number): number | undefined {
	try {
		const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
		return children.length > 0 && rssMiB(Number(children[0])) > 0 ? Number(children[0]) : undefined;
	} catch {
		return undefined;
	}
}

/** "Maximum resident set size (kbytes): N" from GNU time -v, in MiB. */
function readKernelMaxRss(path: string): number | undefined {
	try {
		const match = /Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(path, 'utf8'));
		return match ? Number(match[1]) / 1024 : undefined;
	} catch {
		return undefined;
	}
}
