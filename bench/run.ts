/**
 * `npm run bench`: the Service Reader and Service Trigger against what a user builds from stock n8n
 * nodes, side by side in one run, on the same sandbox data and machine. Prints one table and writes
 * the summary figures to bench/results.json and every run to bench/tmp/results.raw.json (see
 * results.ts; options.ts for the flags; docs/performance.md, whose generated block it rewrites).
 *
 * Order: item 4 (verifier), then per portfolio size item 2 (the limit) and item 1 (exports in a
 * real n8n), then item 3 (the trigger under load in a real n8n), then item 5 (one unchanged poll of
 * the Changes Trigger against the export as one file, bench/changes.ts). At most one n8n runs at a time.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { startSandbox } from '../test/sandbox';
import { freePort } from '../test/e2e/free-port';
import { packPackage } from '../test/e2e/n8n';
import { n8nInstall } from '../test/e2e/n8n-install';
import { randomToken } from '../test/sandbox/state';
import { prepareExecuteHost, type ExecuteHost } from './executeHost';
import { benchChanges, changesLines } from './changes';
import { benchExportSize } from './exports';
import { benchCredentials, exportWorkflow, type ExportVariant } from './exportWorkflows';
import { benchLimit } from './limit';
import { benchMemory, memoryLines } from './memory';
import { machineInfo, roundedLoad } from './machine';
import { parseOptions, sections, type BenchOptions, type Section } from './options';
import { judgeTargets, renderTable, renderTableBlock, TABLE_BLOCK_END, TABLE_BLOCK_START, triggerVerdict } from './report';
import { rawPath, withoutSamples, type BenchResults, type Measured } from './results';
import { warmPortfolio } from './sandboxPages';
import { benchTrigger } from './trigger';
import { benchVerifier } from './verifier';

const repoRoot = resolve(__dirname, '..');
const workDir = join(repoRoot, 'bench/tmp');
const log = (line: string) => console.error(line);

async function main(): Promise<void> {
	const options = parseOptions(process.argv.slice(2));
	mkdirSync(workDir, { recursive: true });
	const commit = gitCommit();
	const results: Measured = {
		schema: 1,
		date: new Date().toISOString(),
		command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
		options,
		machine: machineInfo(),
		packageVersion: (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version,
		gitCommit: commit,
		measuredAt: Object.fromEntries(options.only.map((section) => [section, new Date().toISOString()])),
		commits: Object.fromEntries(commit ? options.only.map((section) => [section, commit]) : []),
		limit: {},
		exports: {},
		errors: [],
	};
	log(`bench: ${results.machine.cpuModel}, ${results.machine.cores} cores, load ${results.machine.loadAtStart.join(' ')}, Node ${process.version}`);
	const wants = (section: Section) => options.only.includes(section);
	const attempt = async (what: string, work: () => Promise<void>) => {
		try {
			await work();
		} catch (error) {
			const message = `${what}: ${(error as Error).message}`;
			results.errors.push(message);
			log(`bench: ${message}`);
		}
	};

	if (wants('verifier')) {
		await attempt('verifier', async () => {
			log('bench: item 4, verifier against stripe');
			results.verifier = await benchVerifier({
				bodyBytes: options.verifierBodyBytes,
				rounds: options.verifierRounds,
				roundMs: options.verifierRoundMs,
			});
		});
	}

	let tarball: string | undefined;
	if (wants('export') || wants('trigger') || wants('memory')) {
		await attempt('packing the package', async () => {
			results.n8nVersion = (await n8nInstall()).version;
			tarball = await packPackage(repoRoot, join(workDir, 'pack'));
		});
	}

	if ((wants('limit') || wants('export')) && (tarball || !wants('export'))) {
		await attempt('exports', () => benchSizes(options, results, tarball));
	}

	if (wants('trigger') && tarball) {
		const trigger = (peers: boolean, n8nEnv?: Record<string, string>) =>
			benchTrigger({
				tarball: tarball!,
				deliveries: options.triggerDeliveries,
				forgedEvery: options.forgedEvery,
				concurrency: options.triggerConcurrency,
				rounds: options.triggerRounds,
				peers,
				portfolioPageSize: options.pageSize,
				// The legacy-engine pass shows where n8n's cost is, not the option's: left out to keep it short.
				companyDetails: n8nEnv === undefined,
				sandboxInProcess: options.sandboxInProcess,
				n8nEnv,
				log,
			});
		await attempt('trigger', async () => {
			log('bench: item 3, trigger and its verifying peers under load');
			results.trigger = await trigger(true);
			const verdict = triggerVerdict({ ...results, machine: { ...results.machine, loadAtEnd: roundedLoad() } });
			if (verdict) log(`bench: ${verdict}`);
		});
		if (options.legacyEngine) {
			await attempt('trigger, legacy expression engine', async () => {
				// Where the cost is, not what targets are judged on: the peers are left out to keep the run short.
				log('bench: item 3 again, with N8N_EXPRESSION_ENGINE=legacy (where the cost is)');
				results.triggerLegacyEngine = await trigger(false, { N8N_EXPRESSION_ENGINE: 'legacy' });
			});
		}
	}

	if (wants('changes')) {
		await attempt('changes', async () => {
			log('bench: item 5, one unchanged poll of the Service Changes Trigger against the export as one file');
			results.changes = await benchChanges({
				rows: options.changesRows,
				pageSize: options.pageSize,
				runs: options.runs,
				heapMiB: options.changesHeapMiB,
				workDir,
				log,
			});
			for (const error of results.changes.errors) results.errors.push(`changes: ${error}`);
		});
	}

	if (wants('memory') && tarball) {
		await attempt('memory', async () => {
			log('bench: item 6, memory with deliveries, exports and alerts at once');
			results.memory = await benchMemory({
				tarball: tarball!,
				concurrencies: options.memoryConcurrencies,
				bodySizes: options.memoryBodySizes,
				exportRows: options.memoryRows,
				pageSize: options.pageSize,
				companyTriggers: options.memoryTriggers,
				log,
			});
			for (const error of results.memory.errors) results.errors.push(`memory: ${error}`);
		});
	}

	results.machine.loadAtEnd = roundedLoad();
	results.loads = Object.fromEntries(options.only.map((section) => [section, { start: results.machine.loadAtStart, end: results.machine.loadAtEnd }]));
	const out = resolve(repoRoot, options.out);
	if (options.merge) mergeEarlier(results, out, options.only);
	const table = renderTable(results);
	const targets = judgeTargets(results);
	const full: BenchResults = { ...results, table, targets };
	const raw = rawPath(workDir, out);
	mkdirSync(dirname(out), { recursive: true });
	writeFileSync(out, `${JSON.stringify(withoutSamples(full), null, '\t')}\n`);
	writeFileSync(raw, `${JSON.stringify(full, null, '\t')}\n`);
	// docs/performance.md shows the committed results only, not quick or scratch runs.
	if (out === resolve(repoRoot, 'bench/results.json')) writePerformancePage(full);

	console.log(table);
	if (results.changes) console.log(`\n${changesLines(results.changes).join('\n')}`);
	if (results.memory) console.log(`\n${memoryLines(results.memory).join('\n')}`);
	console.log('');
	for (const target of targets) console.log(`- ${target.target}: ${target.words}`);
	for (const error of results.errors) console.log(`- error: ${error}`);
	// Last, where it is seen: what every change to the trigger path is judged by (docs/development.md).
	const verdict = triggerVerdict(results);
	if (verdict) console.log(`\n${verdict}`);
	console.log(
		`\n${results.machine.cpuModel}, ${results.machine.cores} cores, load ${results.machine.loadAtStart.join(' ')} -> ${results.machine.loadAtEnd.join(' ')}; ` +
			`Node ${process.version}; n8n ${results.n8nVersion ?? 'n/a'}; ${results.date}. Written to ${options.out} (every run: ${relative(repoRoot, raw)})`,
	);
	if (results.errors.length > 0) process.exitCode = 1;
}

/** Replaces the generated block of docs/performance.md with these results (the README links there). */
function writePerformancePage(results: BenchResults): void {
	const path = join(repoRoot, 'docs', 'performance.md');
	const page = readFileSync(path, 'utf8');
	const start = page.indexOf(TABLE_BLOCK_START);
	const end = page.indexOf(TABLE_BLOCK_END);
	if (start < 0 || end < start) {
		log(`bench: docs/performance.md has no ${TABLE_BLOCK_START} ... ${TABLE_BLOCK_END} block; not updated`);
		return;
	}
	writeFileSync(path, `${page.slice(0, start + TABLE_BLOCK_START.length)}\n${renderTableBlock(results)}\n${page.slice(end)}`);
	log('bench: docs/performance.md table updated');
}

/** Items 2 and 1, size by size: one sandbox per size on a fixed port and token, so n8n's credentials stay valid. */
async function benchSizes(options: BenchOptions, results: Measured, tarball?: string): Promise<void> {
	const port = await freePort();
	const token = randomToken('svc_reader_bench');
	const baseUrl = `https://127.0.0.1:${port}`;
	let host: ExecuteHost | undefined;
	try {
		for (const [index, size] of options.sizes.entries()) {
			log(`bench: ${size.toLocaleString('en')} rows, ${options.pageSize.toLocaleString('en')} a page`);
			const sandbox = await startSandbox({ seed: 'empty', portfolioRows: size, pageSize: options.pageSize, port, tokens: { reader: token } });
			try {
				await warmPortfolio(baseUrl, token, sandbox.ca);
				const caPath = join(workDir, 'sandbox-ca.pem');
				writeFileSync(caPath, sandbox.ca);
				if (options.only.includes('limit')) {
					log('  item 2, the limit');
					results.limit[String(size)] = await benchLimit({
						node: (await n8nInstall()).node,
						baseUrl,
						token,
						caPath,
						expectedRows: size,
						runs: options.runs,
					});
				}
				if (options.only.includes('export') && tarball) {
					host ??= await prepareExecuteHost({
						tarball,
						trustedCas: [sandbox.ca],
						credentials: benchCredentials(baseUrl, token),
						workflows: (['baseline', 'A', 'B', 'C', 'floor'] as ExportVariant[]).map((variant) => exportWorkflow(variant, baseUrl)),
					});
					log('  item 1, exports in n8n');
					const variants: ExportVariant[] = index === 0 ? ['baseline', 'A', 'B', 'C', 'floor'] : ['A', 'B', 'C', 'floor'];
					const measured = await benchExportSize(host, size, variants, options.runs, {
						timeoutSeconds: options.timeoutSeconds,
						rssLimitMiB: options.rssLimitMiB,
						sampleEveryMs: options.sampleEveryMs,
						pageSize: options.pageSize,
						workDir,
					}, log);
					results.baseline ??= measured.find((entry) => entry.variant === 'baseline');
					results.exports[String(size)] = measured.filter((entry) => entry.variant !== 'baseline');
				}
			} finally {
				await sandbox.close();
			}
		}
	} finally {
		await host?.remove();
	}
}

/** What each section writes into the results. */
const sectionKeys: Record<Section, ReadonlyArray<keyof Measured>> = {
	verifier: ['verifier'],
	limit: ['limit'],
	export: ['exports', 'baseline'],
	trigger: ['trigger', 'triggerLegacyEngine'],
	changes: ['changes'],
	memory: ['memory'],
};

/**
 * --merge: the sections not measured now come from the existing results file (the summary, so
 * the raw file holds every run of the sections measured now only), with their dates and commits.
 */
function mergeEarlier(results: Measured, out: string, measuredNow: Section[]): void {
	let earlier: BenchResults;
	try {
		earlier = JSON.parse(readFileSync(out, 'utf8')) as BenchResults;
	} catch {
		return;
	}
	results.measuredAt = { ...earlier.measuredAt, ...results.measuredAt };
	results.commits = { ...earlier.commits, ...results.commits };
	results.loads = { ...earlier.loads, ...results.loads };
	for (const section of sections.filter((name) => !measuredNow.includes(name))) {
		for (const key of sectionKeys[section]) Object.assign(results, { [key]: earlier[key] });
		if (!earlier.measuredAt?.[section]) results.measuredAt[section] = earlier.date;
		if (!earlier.commits?.[section] && earlier.gitCommit) results.commits[section] = earlier.gitCommit;
	}
	// Notes on sections kept whole stay; a section measured now gets its notes afresh.
	results.notes = (earlier.notes ?? []).filter((note) => !measuredNow.some((section) => note.startsWith(`${section} `)));
	// Sizes of export and limit not re-measured now stay, said so, rather than vanish from the table.
	for (const [section, key] of [['export', 'exports'], ['limit', 'limit']] as const) {
		if (!measuredNow.includes(section)) continue;
		const kept = Object.keys(earlier[key] ?? {}).filter((size) => !(size in results[key]));
		for (const size of kept) Object.assign(results[key], { [size]: earlier[key][size] });
		if (kept.length > 0) {
			const when = `${earlier.measuredAt?.[section]?.slice(0, 10) ?? earlier.date.slice(0, 10)} at ${earlier.commits?.[section] ?? earlier.gitCommit ?? 'n/a'}`;
			const sizes = kept.map((size) => Number(size).toLocaleString('en')).join(' and ');
			results.notes.push(`${section} at ${sizes} rows kept from the run of ${when}${section === 'export' ? ' (no HTTP Request floor row there)' : ''}`);
		}
	}
	results.n8nVersion ??= earlier.n8nVersion;
	results.earlierMachine = earlier.machine;
}

function gitCommit(): string | undefined {
	try {
		const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
		const dirty = execFileSync('git', ['status', '--porcelain', '--', 'nodes', 'credentials'], { cwd: repoRoot, encoding: 'utf8' }).trim();
		return dirty ? `${commit} (nodes/ or credentials/ changed since)` : commit;
	} catch {
		return undefined;
	}
}

main().catch((error: Error) => {
	console.error(error.stack ?? error.message);
	process.exit(1);
});
