/**
 * Item 1 for one portfolio size: variants A, B and C (and n8n alone, for its own memory), each
 * run `runs` times by `n8n execute`, in rotating order so that load from other work on the
 * machine falls on every variant alike. A run counts only when its output holds every row.
 */
import type { ExecuteHost } from './executeHost';
import { measureExecute, type ExecuteMeasure } from './executeRun';
import { workflowIds, type ExportVariant } from './exportWorkflows';
import { roundedLoad } from './machine';
import type { BenchOptions } from './options';
import { median } from './stats';

export type ExportLimits = Pick<BenchOptions, 'timeoutSeconds' | 'rssLimitMiB' | 'sampleEveryMs' | 'pageSize'> & { workDir: string };

export interface VariantResult {
	variant: ExportVariant;
	rows: number;
	/** Runs that completed with every row; medians are over these. */
	completed: number;
	failures: string[];
	executionMs: number;
	processMs: number;
	rowsPerSecond: number;
	peakMainMiB: number;
	peakRunnerMiB: number;
	peakTotalMiB: number;
	kernelMaxRssMiB: number;
	crashesOnExit: number;
	/** Each run (raw file only). */
	runs?: Array<Omit<ExecuteMeasure, 'summary'> & { loadAtStart: number[] }>;
}

/** One run of a variant: what was measured, the load when it started, and why it does not count (if so). */
type Attempt = { measure: ExecuteMeasure; load: number[]; problem?: string };

// One per output row in the printed run data: the ke key of a portfolio row item (variants A and C).
const ROW_PATTERN = '"ke": "';
// One per page the floor variant keeps as a file (its binary's MIME type, as the sandbox sends it).
const PAGE_PATTERN = '"mimeType": "text/csv';

export async function benchExportSize(
	host: ExecuteHost,
	rows: number,
	variants: ExportVariant[],
	runs: number,
	limits: ExportLimits,
	log: (line: string) => void,
): Promise<VariantResult[]> {
	const measured = new Map<ExportVariant, Attempt[]>(variants.map((variant) => [variant, []]));
	for (let run = 0; run < runs; run++) {
		const order = variants.map((_, i) => variants[(i + run) % variants.length]);
		for (const variant of order) {
			const earlier = measured.get(variant)!;
			// A variant that hit a limit once is not run again at this size: the limit is its result.
			if (earlier.some((entry) => entry.problem?.includes('limit') || entry.problem?.includes('within'))) continue;
			const load = roundedLoad();
			const measure = await measureExecute({
				node: host.node,
				bin: host.bin,
				cwd: host.userFolder,
				env: await host.env(),
				workflowId: workflowIds[variant],
				workDir: limits.workDir,
				timeoutMs: limits.timeoutSeconds * 1000,
				rssLimitMiB: limits.rssLimitMiB,
				sampleEveryMs: limits.sampleEveryMs,
				countPatterns: [ROW_PATTERN, PAGE_PATTERN],
				numericFields: ['rows'],
			});
			const problem = measure.ok ? rowProblem(variant, rows, limits.pageSize, measure) : measure.failure;
			earlier.push({ measure, load, problem });
			log(
				`  ${variant} ${rows.toLocaleString('en')} rows, run ${run + 1}/${runs}: ` +
					(problem ?? `${measure.executionMs} ms, peak ${Math.round(measure.peakMainMiB)} MiB`),
			);
		}
	}
	return variants.map((variant) => summarise(variant, rows, measured.get(variant)!));
}

/** Whether the output holds every row: items for A and C, the file's row count for B, every page for the floor. */
function rowProblem(variant: ExportVariant, rows: number, pageSize: number, measure: ExecuteMeasure): string | undefined {
	const summary = measure.summary;
	if (variant === 'baseline') return undefined;
	if (variant === 'floor') {
		const pages = summary?.counts[PAGE_PATTERN];
		const want = Math.ceil(rows / pageSize);
		return pages === want ? undefined : `the output holds ${pages} pages, not ${want}`;
	}
	if (variant === 'B') {
		const fileRows = summary?.fields.rows;
		return fileRows === rows ? undefined : `the file holds ${fileRows} rows, not ${rows}`;
	}
	const items = summary?.counts[ROW_PATTERN];
	return items === rows ? undefined : `the output holds ${items} rows, not ${rows}`;
}

function summarise(variant: ExportVariant, rows: number, entries: Attempt[]): VariantResult {
	const good = entries.filter((entry) => entry.problem === undefined).map((entry) => entry.measure);
	const pick = (get: (measure: ExecuteMeasure) => number | undefined) =>
		median(good.map(get).filter((value): value is number => value !== undefined));
	const executionMs = pick((measure) => measure.executionMs);
	return {
		variant,
		rows,
		completed: good.length,
		failures: entries.flatMap((entry) => (entry.problem ? [entry.problem] : [])),
		executionMs,
		processMs: pick((measure) => measure.processMs),
		rowsPerSecond: variant === 'baseline' ? Number.NaN : (rows * 1000) / executionMs,
		peakMainMiB: pick((measure) => measure.peakMainMiB),
		peakRunnerMiB: pick((measure) => measure.peakRunnerMiB),
		peakTotalMiB: pick((measure) => measure.peakTotalMiB),
		kernelMaxRssMiB: pick((measure) => measure.kernelMaxRssMiB),
		crashesOnExit: entries.filter((entry) => entry.measure.crashedOnExit).length,
		runs: entries.map(({ measure, load }) => {
			const { summary: _summary, ...rest } = measure;
			return { ...rest, loadAtStart: load };
		}),
	};
}
