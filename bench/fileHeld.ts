/**
 * Memory of Output: File against answer shapes (issue 36, HIGH), in a process of its own with
 * `--expose-gc`: the Reader in n8n-core's engine (test/harness) against the sandbox, one scenario at
 * a time. For each: the heap after GC before the run, its peak while running (heap and Buffers,
 * sampled every 2 ms, GC not forced), and after GC with the result still referenced. Not part of
 * `npm run bench`; run by hand:
 *   bash scripts/toolchain.sh tsx --expose-gc bench/fileHeld.ts [endless MiB, default 64] [words of the scenarios to run]
 * Figures in docs/performance.md.
 */
import '../test/setup/env';
import './preferTs';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runWorkflow } from '../test/harness/runWorkflow';
import { READER, readerWorkflow } from '../test/harness/workflows';
import { trustCa } from '../test/tls/trust';
import { startSandbox } from '../test/sandbox';
import { serviceApi } from '../test/sandbox/credential';
import { endlessRecordPage, gzipEndlessRecord } from '../test/sandbox/endlessRecord';

const MIB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('Run with --expose-gc');

// V8 frees the memory of dead Buffers after a GC, concurrently: measured after a pause and a second GC.
const settled = async () => {
	gc!();
	await new Promise((resolve) => setTimeout(resolve, 300));
	gc!();
	const usage = process.memoryUsage();
	return { heap: usage.heapUsed, buffers: usage.arrayBuffers };
};
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

async function main(): Promise<void> {
	const endlessMiB = Number(process.argv[2] ?? 64);
	const sandbox = await startSandbox({ portfolioRows: 100_000 });
	trustCa(sandbox.ca);
	const endless = await gzipEndlessRecord(endlessMiB * MIB);
	const pageSize = { pageSize: 1000, pageSizeParameter: sandbox.dialect.pageSizeParameter };
	const endlessPage = (path: string, page: number) => endlessRecordPage(sandbox.control, endless, path, page);
	const file = { operation: 'getAll', returnAll: true, output: 'file' };
	const scenarios: Array<{ name: string; parameters: INodeParameters; advanced: IDataObject; arm?: () => void }> = [
		{ name: `page 1 one endless header row (${endlessMiB} MiB from ${mib(endless.length)} gzip), CSV Delimiter set`, parameters: { resource: 'portfolio', ...file }, advanced: { csvDelimiter: 'comma' }, arm: () => endlessPage('/v1/reader/exports/portfolio', 1) },
		{ name: `page 2 one endless record under an expiries window`, parameters: { resource: 'expiry', ...file, window: '30' }, advanced: { pageSize: 2, pageSizeParameter: sandbox.dialect.pageSizeParameter }, arm: () => endlessPage('/v1/reader/exports/expiries', 2) },
		// FILE_CAPS=32,16,8 reorders them: the first failing run of a process holds some MiB once.
		...(process.env.FILE_CAPS ?? '8,16,32').split(',').map(Number).map((cap) => ({
			name: `page 2 one endless record, no window, Max File Size ${cap} MiB`,
			parameters: { resource: 'portfolio', ...file },
			advanced: { ...pageSize, maxFileSize: cap },
			arm: () => endlessPage('/v1/reader/exports/portfolio', 2),
		})),
		{ name: '10,000 rows as one file (10 pages)', parameters: { resource: 'portfolio', ...file, returnAll: false, limit: 10_000 }, advanced: pageSize },
		{ name: '100,000 rows as one file (100 pages)', parameters: { resource: 'portfolio', ...file }, advanced: pageSize },
		{ name: '100,000 rows as one file, Max File Size 4 MiB (fails at the cap)', parameters: { resource: 'portfolio', ...file }, advanced: { ...pageSize, maxFileSize: 4 } },
		{ name: '100,000 rows as one file, Max File Size 8 MiB (fails at the cap)', parameters: { resource: 'portfolio', ...file }, advanced: { ...pageSize, maxFileSize: 8 } },
	];
	const only = process.argv[3];
	for (const scenario of scenarios.filter((s) => only === undefined || s.name.includes(only))) {
		sandbox.control.clearFaults();
		scenario.arm?.();
		const before = await settled();
		let peakHeap = 0;
		let peakBuffers = 0;
		const sampler = setInterval(() => {
			const usage = process.memoryUsage();
			peakHeap = Math.max(peakHeap, usage.heapUsed);
			peakBuffers = Math.max(peakBuffers, usage.arrayBuffers);
		}, 2);
		const started = Date.now();
		let result: Awaited<ReturnType<typeof runWorkflow>> | undefined = await runWorkflow(readerWorkflow(scenario.parameters), {
			credentials: { serviceApi: serviceApi(sandbox, { advanced: scenario.advanced }) },
		});
		const took = Date.now() - started;
		clearInterval(sampler);
		const error = result.error(READER);
		const outcome = error ? `fails: ${error.description?.split('. ').slice(-1)[0]?.slice(0, 110)}` : `file of ${result.output(READER)[0]?.binary?.data.fileSize}`;
		const held = await settled();
		result = undefined;
		const released = await settled();
		console.log(
			`| ${scenario.name} | ${outcome} | ${took} ms | +${mib(peakHeap - before.heap)} heap, +${mib(peakBuffers - before.buffers)} Buffers | +${mib(held.heap - before.heap)} heap, +${mib(held.buffers - before.buffers)} Buffers | +${mib(released.heap - before.heap)} heap, +${mib(released.buffers - before.buffers)} Buffers |`,
		);
	}
	await sandbox.close();
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
