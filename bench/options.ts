/**
 * Command line of `npm run bench`. The full run measures what docs/performance.md shows; `--quick` is a
 * check that everything works, in a few minutes, and writes to bench/tmp/ unless --out is given.
 *
 *   npm run bench                              full run, writes bench/results.json and bench/tmp/results.raw.json
 *   npm run bench -- --quick                   10k and 100k rows, one run each, fewer deliveries
 *   npm run bench -- --only export --sizes 1000000 --runs 2
 *   npm run bench -- --only trigger --merge    re-measure one part into the existing results file
 *   npm run bench -- --only trigger --no-legacy-engine   item 3 with n8n as installed only (no second n8n)
 *   npm run bench -- --only trigger --sandbox-in-process  item 3 with the sandbox inside the timing process (the method before 2026-11-25)
 *   npm run bench -- --only changes --out bench/tmp/changes.json   item 5: one unchanged poll of the Changes Trigger against one file
 *   npm run bench -- --only memory --quick   item 6: peak memory with N deliveries, exports or alerts at once
 */
export type Section = 'verifier' | 'limit' | 'export' | 'trigger' | 'changes' | 'memory';
export const sections: readonly Section[] = ['verifier', 'limit', 'export', 'trigger', 'changes', 'memory'];

export interface BenchOptions {
	quick: boolean;
	only: Section[];
	/** Portfolio sizes for items 1 and 2. */
	sizes: number[];
	pageSize: number;
	/** Runs per variant and size (item 1) and per parse mode and size (item 2). */
	runs: number;
	verifierRounds: number;
	verifierRoundMs: number;
	verifierBodyBytes: number;
	triggerDeliveries: number;
	/** One forged delivery after every this many valid ones. */
	forgedEvery: number;
	triggerConcurrency: number;
	triggerRounds: number;
	/** Limits applied to one `n8n execute`. */
	timeoutSeconds: number;
	rssLimitMiB: number;
	sampleEveryMs: number;
	out: string;
	/** Keep the other sections of an existing results file and replace only those measured now. */
	merge: boolean;
	/** Item 3 again with N8N_EXPRESSION_ENGINE=legacy (where the cost is; not what targets are judged on). */
	legacyEngine: boolean;
	/** Item 3 with the sandbox in the benchmark's own process, whose event loop also times the deliveries. */
	sandboxInProcess: boolean;
	/** Item 5: companies in the portfolio the Changes Trigger polls. */
	changesRows: number;
	/** Item 5: each measured process runs with --max-old-space-size of this many MiB (0: Node's default). */
	changesHeapMiB: number;
	/** Item 6: how many at once, delivery body sizes (bytes), rows per export, triggers with Add Company Details. */
	memoryConcurrencies: number[];
	memoryBodySizes: number[];
	memoryRows: number;
	memoryTriggers: number;
}

const defaults: BenchOptions = {
	quick: false,
	only: [...sections],
	sizes: [10_000, 100_000, 1_000_000],
	pageSize: 1_000,
	runs: 3,
	verifierRounds: 9,
	verifierRoundMs: 400,
	verifierBodyBytes: 2_048,
	triggerDeliveries: 2_000,
	forgedEvery: 10,
	triggerConcurrency: 20,
	triggerRounds: 3,
	timeoutSeconds: 900,
	rssLimitMiB: 6_144,
	sampleEveryMs: 20,
	out: 'bench/results.json',
	merge: false,
	legacyEngine: true,
	sandboxInProcess: false,
	changesRows: 100_000,
	changesHeapMiB: 0,
	memoryConcurrencies: [1, 8, 32],
	memoryBodySizes: [16_384, 1_048_576],
	memoryRows: 100_000,
	memoryTriggers: 3,
};

const quick: Partial<BenchOptions> = {
	sizes: [10_000, 100_000],
	runs: 1,
	verifierRounds: 3,
	verifierRoundMs: 200,
	triggerDeliveries: 500,
	triggerRounds: 1,
	out: 'bench/tmp/results-quick.json',
	memoryConcurrencies: [1, 8],
	memoryRows: 20_000,
	memoryTriggers: 2,
};

/** The flags that set one number, and the option each sets. */
type NumberOption = { [K in keyof BenchOptions]: BenchOptions[K] extends number ? K : never }[keyof BenchOptions];
const numberFlags = new Map<string, NumberOption>([
	['--runs', 'runs'],
	['--page-size', 'pageSize'],
	['--deliveries', 'triggerDeliveries'],
	['--concurrency', 'triggerConcurrency'],
	['--trigger-rounds', 'triggerRounds'],
	['--timeout-s', 'timeoutSeconds'],
	['--rss-limit-mib', 'rssLimitMiB'],
	['--changes-rows', 'changesRows'],
	['--changes-heap-mib', 'changesHeapMiB'],
	['--memory-rows', 'memoryRows'],
	['--memory-triggers', 'memoryTriggers'],
]);

export function parseOptions(argv: string[]): BenchOptions {
	const options: BenchOptions = { ...defaults, ...(argv.includes('--quick') ? { ...quick, quick: true } : {}) };
	const number = (flag: string, value: string | undefined) => {
		const parsed = Number(value);
		if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${flag} needs a positive number; got "${value}"`);
		return parsed;
	};
	for (let i = 0; i < argv.length; i++) {
		const flag = argv[i];
		const value = argv[i + 1];
		const take = (): string => {
			if (value === undefined) throw new Error(`${flag} needs a value`);
			i++;
			return value;
		};
		const numberOption = numberFlags.get(flag);
		if (numberOption) {
			options[numberOption] = number(flag, take());
			continue;
		}
		switch (flag) {
			case '--quick':
				break;
			case '--merge':
				options.merge = true;
				break;
			case '--no-legacy-engine':
				options.legacyEngine = false;
				break;
			case '--sandbox-in-process':
				options.sandboxInProcess = true;
				break;
			case '--only':
				options.only = take()
					.split(',')
					.map((name) => {
						if (!sections.includes(name as Section)) throw new Error(`--only takes ${sections.join(', ')}; got "${name}"`);
						return name as Section;
					});
				break;
			case '--sizes':
				options.sizes = take().split(',').map((size) => number(flag, size));
				break;
			case '--memory-at-once':
				options.memoryConcurrencies = take().split(',').map((n) => number(flag, n));
				break;
			case '--memory-body-sizes':
				options.memoryBodySizes = take().split(',').map((n) => number(flag, n));
				break;
			case '--out':
				options.out = take();
				break;
			default:
				throw new Error(`Unknown option "${flag}". See bench/options.ts.`);
		}
	}
	return options;
}
