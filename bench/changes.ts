/**
 * Item 5 (`--only changes`): one poll of the Service Changes Trigger over a portfolio of `rows`
 * companies that did not change, in a real n8n, against the same export as one file (Service
 * Reader, Portfolio > Get Many, output one CSV file: variant B of item 1) by `n8n execute`.
 *
 * A poll is timed as n8n runs it when a workflow is activated: n8n's activation awaits one poll
 * before it answers (ActiveWorkflowTriggers.activatePollTrigger), so the activation call through
 * the public API, deactivated again after, is one whole poll plus n8n's activation (a few ms of
 * database writes). The first activation sets the baseline; each later one is an unchanged poll,
 * which must start no execution. Memory is the n8n server's resident size, sampled through the poll,
 * against its size just before it; the state's size is the workflow's static data as n8n stored it.
 */
import { startSandbox } from '../test/sandbox';
import { freePort } from '../test/e2e/free-port';
import { startN8n, type N8n } from '../test/e2e/n8n';
import { randomToken } from '../test/sandbox/state';
import { n8nPid } from './cpu';
import { prepareExecuteHost } from './executeHost';
import { benchExportSize, type ExportLimits, type VariantResult } from './exports';
import { benchCredentials, exportWorkflow, SERVICE_CREDENTIAL } from './exportWorkflows';
import { rssMiB } from './processTree';
import { warmPortfolio } from './sandboxPages';
import { median } from './stats';

export interface PollMeasure {
	/** The activation call: one poll (and n8n's activation). */
	ms: number;
	/** The n8n server's RSS just before, and its highest sample during the poll, MiB. */
	idleMiB: number;
	peakMiB: number;
	/** Executions the poll started (an unchanged poll must start none). */
	executions: number;
}

export interface ChangesResult {
	rows: number;
	pageSize: number;
	baseline: PollMeasure;
	unchanged: PollMeasure[];
	medianUnchangedMs: number;
	medianPeakAboveIdleMiB: number;
	/** The workflow's static data as n8n stored it (JSON), after the polls. */
	stateBytes: number;
	stateBytesPerRow: number;
	/** Portfolio > Get Many, one CSV file (item 1's variant B), and n8n alone, by `n8n execute`. */
	getManyFile?: VariantResult;
	n8nAlone?: VariantResult;
	errors: string[];
}

export interface ChangesOptions {
	tarball: string;
	rows: number;
	pageSize: number;
	runs: number;
	limits: ExportLimits;
	log: (line: string) => void;
}

const WORKFLOW_ID = 'benchChanges0001';
const TRIGGER = 'Service Changes Trigger';

function changesWorkflow() {
	return {
		id: WORKFLOW_ID,
		name: 'Bench: portfolio changes',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'c1',
				name: TRIGGER,
				type: 'n8n-nodes-service-reader.serviceChangesTrigger',
				typeVersion: 1,
				position: [0, 0],
				// Hourly: the polls measured are the activations' own, none from the schedule in between.
				parameters: { pollTimes: { item: [{ mode: 'everyHour', minute: 0 }] }, export: 'portfolio', changes: ['added', 'changed', 'removed'] },
				credentials: { serviceApi: SERVICE_CREDENTIAL },
			},
		],
		connections: {},
	};
}

/** One activation (one poll), timed and its memory sampled, then deactivated again. */
async function measuredPoll(n8n: N8n, pid: number, sampleEveryMs: number): Promise<PollMeasure> {
	const before = (await n8n.api.executions(WORKFLOW_ID, false)).length;
	const idleMiB = rssMiB(pid);
	let peakMiB = idleMiB;
	const sampler = setInterval(() => {
		peakMiB = Math.max(peakMiB, rssMiB(pid));
	}, sampleEveryMs);
	const started = performance.now();
	try {
		await n8n.api.activateWorkflow(WORKFLOW_ID);
	} finally {
		clearInterval(sampler);
	}
	const ms = performance.now() - started;
	peakMiB = Math.max(peakMiB, rssMiB(pid));
	await n8n.api.deactivateWorkflow(WORKFLOW_ID);
	// An execution a poll started is saved just after the activation answered.
	await new Promise((resolve) => setTimeout(resolve, 2_000));
	const executions = (await n8n.api.executions(WORKFLOW_ID, false)).length - before;
	return { ms, idleMiB, peakMiB, executions };
}

export async function benchChanges(options: ChangesOptions): Promise<ChangesResult> {
	const { rows, pageSize, log } = options;
	const port = await freePort();
	const token = randomToken('svc_reader_bench');
	const baseUrl = `https://127.0.0.1:${port}`;
	const errors: string[] = [];
	const sandbox = await startSandbox({ seed: 'empty', portfolioRows: rows, pageSize, port, tokens: { reader: token } });
	try {
		await warmPortfolio(baseUrl, token, sandbox.ca);
		log(`  changes: ${rows.toLocaleString('en')} companies, ${pageSize.toLocaleString('en')} a page; one poll at activation, ${options.runs} unchanged`);
		const n8n = await startN8n({ trustedCas: [sandbox.ca], communityPackages: [options.tarball] });
		let result: Omit<ChangesResult, 'getManyFile' | 'n8nAlone' | 'errors'>;
		try {
			if (!(await n8n.hasNodeType('n8n-nodes-service-reader.serviceChangesTrigger'))) {
				throw new Error('n8n did not load the Service Changes Trigger from the packed tarball');
			}
			await n8n.importCredentials(benchCredentials(baseUrl, token).slice(0, 1));
			await n8n.importWorkflow(changesWorkflow());
			const pid = n8nPid(n8n.port);
			const baseline = await measuredPoll(n8n, pid, options.limits.sampleEveryMs);
			log(`    baseline poll ${Math.round(baseline.ms)} ms, RSS ${baseline.idleMiB.toFixed(0)} -> ${baseline.peakMiB.toFixed(0)} MiB`);
			const unchanged: PollMeasure[] = [];
			for (let run = 0; run < options.runs; run++) {
				const poll = await measuredPoll(n8n, pid, options.limits.sampleEveryMs);
				log(`    unchanged poll ${Math.round(poll.ms)} ms, RSS ${poll.idleMiB.toFixed(0)} -> ${poll.peakMiB.toFixed(0)} MiB, ${poll.executions} executions`);
				if (poll.executions !== 0) errors.push(`an unchanged poll started ${poll.executions} execution(s)`);
				unchanged.push(poll);
			}
			if (baseline.executions !== 0) errors.push(`the baseline poll started ${baseline.executions} execution(s)`);
			const stored = await n8n.api.request<{ staticData?: unknown }>('GET', `/workflows/${WORKFLOW_ID}`);
			const stateBytes = Buffer.byteLength(JSON.stringify(stored.staticData ?? null));
			result = {
				rows,
				pageSize,
				baseline,
				unchanged,
				medianUnchangedMs: median(unchanged.map((poll) => poll.ms)),
				medianPeakAboveIdleMiB: median(unchanged.map((poll) => poll.peakMiB - poll.idleMiB)),
				stateBytes,
				stateBytesPerRow: stateBytes / rows,
			};
			log(`    state ${stateBytes.toLocaleString('en')} bytes (${result.stateBytesPerRow.toFixed(1)} a company)`);
		} finally {
			await n8n.stop();
		}

		log('  changes: the same export as one file (Portfolio > Get Many, one CSV file) by n8n execute');
		const host = await prepareExecuteHost({
			tarball: options.tarball,
			trustedCas: [sandbox.ca],
			credentials: benchCredentials(baseUrl, token),
			workflows: [exportWorkflow('baseline', baseUrl), exportWorkflow('B', baseUrl)],
		});
		try {
			const measured = await benchExportSize(host, rows, ['baseline', 'B'], options.runs, options.limits, log);
			return {
				...result,
				getManyFile: measured.find((entry) => entry.variant === 'B'),
				n8nAlone: measured.find((entry) => entry.variant === 'baseline'),
				errors,
			};
		} finally {
			await host.remove();
		}
	} finally {
		await sandbox.close();
	}
}

/** The lines `npm run bench` prints for item 5. */
export function changesLines(result: ChangesResult): string[] {
	const file = result.getManyFile;
	const alone = result.n8nAlone;
	const lines = [
		`Item 5, Service Changes Trigger: one poll of ${result.rows.toLocaleString('en')} unchanged companies (pages of ${result.pageSize.toLocaleString('en')})`,
		`  unchanged poll: median ${Math.round(result.medianUnchangedMs)} ms over ${result.unchanged.length} (each: ${result.unchanged.map((poll) => Math.round(poll.ms)).join(', ')} ms); ` +
			`baseline poll ${Math.round(result.baseline.ms)} ms; executions started: ${result.unchanged.reduce((sum, poll) => sum + poll.executions, result.baseline.executions)}`,
		`  n8n server RSS during an unchanged poll: median +${result.medianPeakAboveIdleMiB.toFixed(1)} MiB over its idle size (${result.unchanged.map((poll) => `${poll.idleMiB.toFixed(0)}->${poll.peakMiB.toFixed(0)}`).join(', ')} MiB)`,
		`  state kept: ${result.stateBytes.toLocaleString('en')} bytes of static data, ${result.stateBytesPerRow.toFixed(1)} bytes a company`,
	];
	if (file) {
		lines.push(
			`  Portfolio > Get Many, one CSV file (n8n execute): execution median ${Math.round(file.executionMs)} ms (${file.completed} runs), ` +
				`peak main RSS ${file.peakMainMiB.toFixed(0)} MiB${alone ? ` (n8n alone ${alone.peakMainMiB.toFixed(0)} MiB)` : ''}`,
			`  poll / file: ${(result.medianUnchangedMs / file.executionMs).toFixed(2)}x the time`,
		);
	}
	for (const error of result.errors) lines.push(`  error: ${error}`);
	return lines;
}
