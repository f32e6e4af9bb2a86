/**
 * Item 5 (`--only changes`): one poll of the Service Changes Trigger over a portfolio of `rows`
 * companies that did not change, against the same export as one file (Service Reader, Portfolio >
 * Get Many, Return All, output one CSV file), each in a fresh process of its own (bench/changesPoll.ts:
 * n8n-core's engine as the node tests run it), the sandbox in this process.
 *
 * Why not a real n8n server: n8n 2.40 runs a poll when a workflow is activated, but the public API's
 * activation answers before that poll ends (the first version of this item timed 70 ms for 100,000
 * rows and read an empty state), and a scheduled poll that emits nothing leaves no mark to time it by.
 * The poll measured is poll() alone in n8n-core's PollContext, on the state an earlier baseline poll
 * left (read back as after a restart): the export read whole and compared. docs/performance.md, item 5.
 */
import { spawn } from 'node:child_process';

import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { startSandbox } from '../test/sandbox';
import { freePort } from '../test/e2e/free-port';
import { randomToken } from '../test/sandbox/state';
import type { HeldResult } from './changesHeld';
import type { PollBenchInput, PollBenchMode, PollBenchOutput } from './changesPoll';
import { warmPortfolio } from './sandboxPages';
import { median } from './stats';

export interface ChangesResult {
	rows: number;
	pageSize: number;
	method: string;
	heapMiB: number;
	idle: PollBenchOutput;
	baseline: PollBenchOutput;
	unchanged: PollBenchOutput[];
	file: PollBenchOutput[];
	medianUnchangedMs: number;
	medianFileMs: number;
	/** Median of (peak RSS during the work - RSS just before it), MiB. */
	medianUnchangedAboveStartMiB: number;
	medianFileAboveStartMiB: number;
	stateBytes: number;
	stateBytesPerRow: number;
	/** Issue 36: live heap held per page when every page brings new rows (bench/changesHeld.ts). */
	held?: HeldResult;
	errors: string[];
}

export interface ChangesOptions {
	rows: number;
	pageSize: number;
	runs: number;
	/** --max-old-space-size of each measured process, MiB (0: Node's default): a poll that holds more fails. */
	heapMiB?: number;
	workDir: string;
	log: (line: string) => void;
}

/**
 * bench/changesPoll.ts bundled for plain Node (its packages left external): tsx would resolve
 * `ServiceReader.node` to the codex file `ServiceReader.node.json` before the `.ts` source.
 */
async function bundleChild(workDir: string): Promise<string> {
	const outfile = join(workDir, 'changesPoll.cjs');
	await build({
		entryPoints: [join(__dirname, 'changesPoll.ts')],
		outfile,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		packages: 'external',
		resolveExtensions: ['.ts', '.js', '.json'],
		logLevel: 'error',
	});
	return outfile;
}

function runChild(script: string, input: PollBenchInput, timeoutMs: number, heapMiB = 0): Promise<PollBenchOutput> {
	return new Promise((resolve, reject) => {
		// BENCH_CHANGES_NODE_ARGS: extra flags for each run's process, to profile it (e.g. `--cpu-prof --cpu-prof-dir=bench/tmp`).
		const extra = (process.env.BENCH_CHANGES_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
		const child = spawn(process.execPath, [...extra, ...(heapMiB > 0 ? [`--max-old-space-size=${heapMiB}`] : []), script], {
			env: { ...process.env, BENCH_CHANGES: JSON.stringify(input) },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		let err = '';
		child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.on('close', (code) => {
			clearTimeout(timer);
			const line = out.split('\n').find((text) => text.startsWith('RESULT '));
			if (code !== 0 || !line) {
				reject(new Error(`${input.mode} run exited ${code}: ${err.trim().split('\n').slice(-5).join(' | ')}`));
				return;
			}
			resolve(JSON.parse(line.slice('RESULT '.length)) as PollBenchOutput);
		});
	});
}

export async function benchChanges(options: ChangesOptions): Promise<ChangesResult> {
	const { rows, pageSize, log } = options;
	const port = await freePort();
	const token = randomToken('svc_reader_bench');
	const baseUrl = `https://127.0.0.1:${port}`;
	const errors: string[] = [];
	mkdirSync(options.workDir, { recursive: true });
	const statePath = join(options.workDir, 'changes-state.json');
	const sandbox = await startSandbox({ seed: 'empty', portfolioRows: rows, pageSize, port, tokens: { reader: token } });
	try {
		await warmPortfolio(baseUrl, token, sandbox.ca);
		log(`  changes: ${rows.toLocaleString('en')} companies, ${pageSize.toLocaleString('en')} a page; ${options.runs} unchanged polls and ${options.runs} one-file exports, alternating`);
		const script = await bundleChild(options.workDir);
		const run = async (mode: PollBenchMode) => {
			const result = await runChild(script, { mode, baseUrl, token, ca: sandbox.ca, statePath }, 600_000, options.heapMiB);
			log(`    ${mode}: ${Math.round(result.ms)} ms, RSS ${result.startMiB.toFixed(0)} -> ${result.peakMiB.toFixed(0)} MiB (kernel max ${result.maxRssMiB.toFixed(0)}), ${result.items} item(s)`);
			return result;
		};
		const idle = await run('idle');
		const baseline = await run('baseline');
		if (baseline.items !== 0) errors.push(`the baseline poll emitted ${baseline.items} item(s)`);
		const unchanged: PollBenchOutput[] = [];
		const file: PollBenchOutput[] = [];
		for (let i = 0; i < options.runs; i++) {
			// Alternating order, so load from other work falls on both alike.
			for (const mode of (i % 2 === 0 ? ['unchanged', 'file'] : ['file', 'unchanged']) as PollBenchMode[]) {
				const result = await run(mode);
				if (mode === 'unchanged') {
					if (result.items !== 0) errors.push(`an unchanged poll emitted ${result.items} item(s)`);
					unchanged.push(result);
				} else {
					if (!result.fileBytes) errors.push('the one-file export wrote no bytes');
					file.push(result);
				}
			}
		}
		const stateBytes = baseline.stateBytes ?? 0;
		const held = await heldPerPage().catch((error: Error) => {
			errors.push(`held per page: ${error.message}`);
			return undefined;
		});
		return {
			held,
			rows,
			pageSize,
			heapMiB: options.heapMiB ?? 0,
			method: 'each run a fresh process (bench/changesPoll.ts, n8n-core engine as in the node tests), sandbox in the bench process',
			idle,
			baseline,
			unchanged,
			file,
			medianUnchangedMs: median(unchanged.map((r) => r.ms)),
			medianFileMs: median(file.map((r) => r.ms)),
			medianUnchangedAboveStartMiB: median(unchanged.map((r) => r.peakMiB - r.startMiB)),
			medianFileAboveStartMiB: median(file.map((r) => r.peakMiB - r.startMiB)),
			stateBytes,
			stateBytesPerRow: stateBytes / rows,
			errors,
		};
	} finally {
		await sandbox.close();
	}
}

/** bench/changesHeld.ts in a process of its own, with --expose-gc: what a poll holds per page of new rows. */
function heldPerPage(): Promise<HeldResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(__dirname, 'changesHeld.ts'), '60', '300'], { stdio: ['ignore', 'pipe', 'inherit'] });
		let out = '';
		child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
		child.on('error', reject);
		child.on('close', (code) => {
			const line = out.trim().split('\n').pop() ?? '';
			if (code !== 0 || !line.startsWith('{')) return reject(new Error(`exited ${code}: ${out.slice(0, 200)}`));
			resolve(JSON.parse(line) as HeldResult);
		});
	});
}

/** The lines `npm run bench` prints for item 5. */
export function changesLines(result: ChangesResult): string[] {
	const ms = (list: PollBenchOutput[]) => list.map((r) => Math.round(r.ms)).join(', ');
	const mem = (list: PollBenchOutput[]) => list.map((r) => `${r.startMiB.toFixed(0)}->${r.peakMiB.toFixed(0)}`).join(', ');
	const lines = [
		`Item 5, Service Changes Trigger: one poll of ${result.rows.toLocaleString('en')} unchanged companies (pages of ${result.pageSize.toLocaleString('en')})`,
		`  unchanged poll: median ${Math.round(result.medianUnchangedMs)} ms (${ms(result.unchanged)}); RSS +${result.medianUnchangedAboveStartMiB.toFixed(1)} MiB over its start (${mem(result.unchanged)} MiB); emitted nothing: ${result.unchanged.every((r) => r.items === 0)}`,
		`  Portfolio > Get Many, one CSV file: median ${Math.round(result.medianFileMs)} ms (${ms(result.file)}); RSS +${result.medianFileAboveStartMiB.toFixed(1)} MiB (${mem(result.file)} MiB)`,
		`  poll / file: ${(result.medianUnchangedMs / result.medianFileMs).toFixed(2)}x the time; baseline poll ${Math.round(result.baseline.ms)} ms; process floor ${result.idle.maxRssMiB.toFixed(0)} MiB`,
		`  state: ${result.stateBytes.toLocaleString('en')} bytes of static data, ${result.stateBytesPerRow.toFixed(1)} bytes a company`,
	];
	const held = result.held;
	if (held !== undefined) {
		lines.push(
			`  new rows on every page (an endless cursor after the baseline): ${held.heldPerPageKiB} KiB live heap held per page of ${(held.pageBytes / 1024).toFixed(1)} KiB read (${(held.heldPerPageKiB * 1024 / held.pageBytes).toFixed(1)}x), ${held.heldPerRowBytes} bytes a row (${held.rowsPerPage} rows a page, pages 5 to ${held.pages})`,
		);
	}
	for (const error of result.errors) lines.push(`  error: ${error}`);
	return lines;
}
