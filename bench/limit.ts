/**
 * Item 2: runs limitClient.ts as a child process (plain Node 24, no n8n) against the sandbox,
 * once per parse mode per run, alternating modes, and keeps the medians.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

import { median, spread } from './stats';

/**
 * stream and page: one keep-alive connection (the limit); page-new-connection: a new TLS connection
 * per page, as n8n's request helpers make, to show what that costs outside n8n.
 */
export type LimitMode = 'stream' | 'page' | 'page-new-connection';

export interface LimitRun {
	rows: number;
	pages: number;
	bytes: number;
	ms: number;
	maxRssKiB: number;
}

export interface LimitResult {
	mode: LimitMode;
	/** Each run (raw file only). */
	runs?: LimitRun[];
	ms: number;
	rowsPerSecond: number;
	peakRssMiB: number;
	msSpread: { min: number; max: number };
}

export interface LimitJob {
	node: string;
	baseUrl: string;
	token: string;
	caPath: string;
	expectedRows: number;
	runs: number;
}

export async function benchLimit(job: LimitJob): Promise<LimitResult[]> {
	const modes: LimitMode[] = ['stream', 'page', 'page-new-connection'];
	const runs: Record<LimitMode, LimitRun[]> = { stream: [], page: [], 'page-new-connection': [] };
	for (let run = 0; run < job.runs; run++) {
		for (const mode of run % 2 === 0 ? modes : [...modes].reverse()) {
			const result = await runClient(job, mode);
			if (result.rows !== job.expectedRows) {
				throw new Error(`The limit client (${mode}) read ${result.rows} rows; the sandbox holds ${job.expectedRows}`);
			}
			runs[mode].push(result);
		}
	}
	return modes.map((mode) => {
		const ms = median(runs[mode].map((run) => run.ms));
		return {
			mode,
			runs: runs[mode],
			ms,
			rowsPerSecond: (job.expectedRows * 1000) / ms,
			peakRssMiB: median(runs[mode].map((run) => run.maxRssKiB / 1024)),
			msSpread: spread(runs[mode].map((run) => run.ms)),
		};
	});
}

function runClient(job: LimitJob, mode: LimitMode): Promise<LimitRun> {
	const config = JSON.stringify({
		baseUrl: job.baseUrl,
		token: job.token,
		caPath: job.caPath,
		parse: mode === 'stream' ? 'stream' : 'page',
		keepAlive: mode !== 'page-new-connection',
		maxPages: 100_000,
	});
	return new Promise((resolve, reject) => {
		execFile(
			job.node,
			// Node 24 runs the TypeScript file itself (type stripping): no loader in the measured process.
			['--disable-warning=ExperimentalWarning', join(__dirname, 'limitClient.ts'), config],
			{ timeout: 600_000, maxBuffer: 1 << 20 },
			(error, stdout, stderr) => {
				if (error) reject(new Error(`limit client (${mode}) failed: ${stderr || error.message}`));
				else resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as LimitRun);
			},
		);
	});
}
