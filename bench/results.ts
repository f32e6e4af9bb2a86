/**
 * The shape of the results. Two files: bench/results.json (committed) holds the summary figures
 * docs/performance.md reports; the raw file next to it under bench/tmp/ (not committed) also holds every run's
 * samples (`runs` of the exports and the limit, `rounds` of the trigger).
 */
import { basename, join } from 'node:path';

import type { LimitResult } from './limit';
import type { MachineInfo } from './machine';
import type { ChangesResult } from './changes';
import type { MemoryResult } from './memory';
import type { BenchOptions, Section } from './options';
import type { TriggerResult } from './triggerTypes';
import type { VariantResult } from './exports';
import type { VerifierResult } from './verifier';

export interface TargetCheck {
	target: string;
	/** The measured figure the target is judged on (unrounded). */
	measured: number;
	/** What it must be at most (or at least, for `atLeast`). */
	bound: number;
	atLeast: boolean;
	met: boolean;
	/** Plain words: by how much it is met or missed. */
	words: string;
}

export interface BenchResults {
	schema: 1;
	date: string;
	command: string;
	options: BenchOptions;
	machine: MachineInfo;
	/** After --merge: the machine info of the run the kept sections come from. */
	earlierMachine?: MachineInfo;
	n8nVersion?: string;
	packageVersion: string;
	gitCommit?: string;
	/** When each section was measured (differs between sections only after a --merge run). */
	measuredAt: Partial<Record<Section, string>>;
	/** The machine's load averages (1, 5, 15 min) when the run that measured each section started and ended. */
	loads?: Partial<Record<Section, { start: number[]; end?: number[] }>>;
	/** The commit each section was measured at (gitCommit of the run that measured it). */
	commits: Partial<Record<Section, string>>;
	/** Item 4. */
	verifier?: VerifierResult;
	/** Item 2, per portfolio size. */
	limit: Record<string, LimitResult[]>;
	/** Item 1, per portfolio size; `baseline` is n8n running a Manual Trigger alone. */
	exports: Record<string, VariantResult[]>;
	baseline?: VariantResult;
	/** Item 3, n8n as installed (its default expression engine). */
	trigger?: TriggerResult;
	/**
	 * Item 3 again with N8N_EXPRESSION_ENGINE=legacy: n8n 2.40's default engine gives the webhook
	 * call of every trigger but its own Webhook node, and every credential read, a fresh isolate;
	 * this run shows what is left without that. Not what the target is judged on.
	 */
	triggerLegacyEngine?: TriggerResult;
	/** Item 5, one unchanged poll of the Service Changes Trigger against the same export as one file. */
	changes?: ChangesResult;
	/** Item 6: memory with N deliveries, exports or alerts at once. */
	memory?: MemoryResult;
	targets: TargetCheck[];
	errors: string[];
	/** What a --merge run kept from the earlier results within a section it measured (e.g. export sizes not re-run). */
	notes?: string[];
	table: string;
}

/** The results before the table and the targets are derived from them. */
export type Measured = Omit<BenchResults, 'table' | 'targets'>;

/** The results file without the per-run samples: every `runs` or `rounds` that is a list. */
export function withoutSamples<T>(results: T): T {
	const samples = (key: string, value: unknown) => (key === 'runs' || key === 'rounds') && Array.isArray(value);
	return JSON.parse(JSON.stringify(results, (key, value: unknown) => (samples(key, value) ? undefined : value))) as T;
}

/** Where the raw results of a results file go: bench/tmp/<name>.raw.json. */
export function rawPath(workDir: string, out: string): string {
	return join(workDir, `${basename(out, '.json')}.raw.json`);
}
