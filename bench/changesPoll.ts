/**
 * One measured run of item 5 in a process of its own (spawned by bench/changes.ts, the sandbox in
 * the parent): n8n-core's engine as the node tests run it (test/harness), the package's nodes from
 * source. Modes:
 *   idle       loads everything and does nothing (the process's floor)
 *   baseline   the Changes Trigger's first poll, on no state; writes the state n8n would save
 *   unchanged  one poll on the state in that file (read back, as after a restart), on an export that
 *              did not change: must emit nothing
 *   file       Portfolio > Get Many, Return All, output one CSV file
 * Prints one line `RESULT {json}`: the work's time, the process's RSS just before it and its
 * highest sample during it (every 10 ms), the kernel's high-water mark, and what came out.
 */
import '../test/setup/env';

import { readFileSync, writeFileSync } from 'node:fs';

import { PollContext } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { ServiceChangesTrigger } from '../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import { createAdditionalData, initBinaryData, nodeTypes, PollHarness, readerWorkflow, READER, runWorkflow, trustCa } from '../test/harness';

export type PollBenchMode = 'idle' | 'baseline' | 'unchanged' | 'file';

export interface PollBenchInput {
	mode: PollBenchMode;
	baseUrl: string;
	token: string;
	ca: string;
	statePath: string;
}

export interface PollBenchOutput {
	mode: PollBenchMode;
	ms: number;
	startMiB: number;
	peakMiB: number;
	maxRssMiB: number;
	/** Items the poll emitted (baseline, unchanged) or rows in the file (file). */
	items: number;
	/** The saved static data (baseline: written; unchanged: read), JSON bytes. */
	stateBytes?: number;
	fileBytes?: number;
	/** Live heap (collected) before and after the work, when the process runs with --expose-gc. */
	heapBeforeMiB?: number;
	heapAfterMiB?: number;
}

const mib = (bytes: number) => bytes / 2 ** 20;

async function main(): Promise<void> {
	const input = JSON.parse(process.env.BENCH_CHANGES ?? '') as PollBenchInput;
	trustCa(input.ca);
	await initBinaryData();
	const credentials = { serviceApi: { baseUrl: input.baseUrl, accessToken: input.token } };
	const state = input.mode === 'unchanged' ? readFileSync(input.statePath, 'utf8') : undefined;
	// The node as n8n builds it (PollHarness fills in the parameters' defaults and registers the type);
	// the poll itself is timed alone, as a scheduled poll runs: n8n's database save of the state after an
	// activation is not the node's cost.
	const nodeType = new ServiceChangesTrigger();
	const poller = input.mode === 'baseline' || input.mode === 'unchanged'
		? new PollHarness({ nodeType, parameters: { export: 'portfolio' }, credentials }).node
		: undefined;
	const workflow = poller
		? new Workflow({
			id: 'bench-changes', name: 'Bench changes', nodes: [poller], connections: {}, nodeTypes, active: true, settings: {},
			staticData: state ? (JSON.parse(state) as IDataObject) : {},
		})
		: undefined;

	// With --expose-gc (BENCH_CHANGES_NODE_ARGS): the live heap before and after the work, collected.
	const gc = (globalThis as { gc?: () => void }).gc;
	gc?.();
	const heapBeforeMiB = gc ? mib(process.memoryUsage().heapUsed) : undefined;
	const startMiB = mib(process.memoryUsage().rss);
	let peakMiB = startMiB;
	const sampler = setInterval(() => {
		peakMiB = Math.max(peakMiB, mib(process.memoryUsage().rss));
	}, 10);
	const started = performance.now();
	let items = 0;
	let fileBytes: number | undefined;
	try {
		if (poller && workflow) {
			const context = new PollContext(workflow, poller, createAdditionalData(undefined, credentials), 'trigger', 'activate');
			const emitted = await nodeType.poll!.call(context);
			items = emitted?.[0]?.length ?? 0;
		} else if (input.mode === 'file') {
			const result = await runWorkflow(readerWorkflow({ resource: 'portfolio', operation: 'getAll', returnAll: true, output: 'file' }), { credentials });
			const error = result.error(READER);
			if (error) throw new Error(`Get Many failed: ${error.message}`);
			const binary = result.output(READER)[0]?.binary?.data;
			fileBytes = Number(binary?.bytes ?? binary?.fileSize ?? 0);
			items = 1;
		}
	} finally {
		clearInterval(sampler);
	}
	const ms = performance.now() - started;
	gc?.();
	const heapAfterMiB = gc ? mib(process.memoryUsage().heapUsed) : undefined;
	peakMiB = Math.max(peakMiB, mib(process.memoryUsage().rss));
	const output: PollBenchOutput = {
		mode: input.mode,
		ms,
		startMiB,
		peakMiB,
		maxRssMiB: process.resourceUsage().maxRSS / 1024,
		items,
		fileBytes,
		heapBeforeMiB,
		heapAfterMiB,
	};
	if (input.mode === 'baseline' && workflow) {
		const saved = JSON.stringify(workflow.staticData);
		writeFileSync(input.statePath, saved);
		output.stateBytes = Buffer.byteLength(saved);
	}
	if (state !== undefined) output.stateBytes = Buffer.byteLength(state);
	process.stdout.write(`RESULT ${JSON.stringify(output)}\n`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
		process.exit(1);
	},
);
