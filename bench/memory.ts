/**
 * Item 6: memory under concurrency, in one real n8n. N things at once, each point measured as the
 * peak over what n8n held just before (RSS of n8n and its task runner read from /proc every 20 ms,
 * and n8n's V8 heap in use), beside n8n alone doing
 * the same amount with stock nodes. Before each point n8n's garbage is collected (through its inspector), so
 * "before" is what n8n holds live, and the heap is read from V8 itself (Runtime.getHeapUsage) every 20 ms:
 *   - deliveries: N signed deliveries of B bytes at once to the Service Trigger, and the same bodies to a
 *     stock Webhook node (no verification);
 *   - exports: N executions at once of Portfolio > Get Many (items, and one CSV file), each started by a
 *     webhook, and the same number of the HTTP Request node paging the same export as files (variant C);
 *   - companies: N alerts at once spread over K Service Triggers with Add Company Details on (each looks
 *     its company up in the sandbox's portfolio), beside the same alerts to K triggers with it off.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';

import { freePort } from '../test/e2e/free-port';
import { startN8n, type N8n } from '../test/e2e/n8n';
import { waitFor } from '../test/e2e/wait-for';
import { decodeSigningSecret } from '../nodes/ServiceTrigger/verify/signingSecret';
import { n8nPid } from './cpu';
import { eventBody, PORTFOLIO_COMPANIES, serviceSignature } from './deliveryBody';
import { benchCredentials, exportWorkflow } from './exportWorkflows';
import { startBenchSandbox } from './sandboxProcess';
import { warmPortfolio } from './sandboxPages';
import { openInspector, quietNow, treeRss, type Inspector } from './inspector';
import { stockWorkflow, TRIGGER_CREDENTIAL, triggerWorkflow, webhookStarted } from './memoryWorkflows';

export interface MemoryOptions {
	tarball: string;
	/** How many at once. */
	concurrencies: number[];
	/** Delivery body sizes, bytes. */
	bodySizes: number[];
	/** Rows of the portfolio the exports read (1,000 a page). */
	exportRows: number;
	pageSize: number;
	/** Triggers with Add Company Details on (and as many with it off). */
	companyTriggers: number;
	log: (line: string) => void;
}

export interface MemoryPoint {
	scenario: 'deliveries' | 'exports' | 'companies';
	variant: string;
	/** How many at once. */
	n: number;
	/** Delivery body bytes, or rows per export. */
	size: number;
	/** What n8n (main process and task runner) held just before, MiB. */
	beforeRssMiB: number;
	beforeHeapMiB: number;
	/** The most held while it ran, above `before`, MiB. */
	peakRssAboveMiB: number;
	peakHeapAboveMiB: number;
	/** The most held while it ran, MiB. */
	peakRssMiB: number;
	peakHeapMiB: number;
	/** Executions that finished successfully, of n. */
	succeeded: number;
	seconds: number;
}

export interface MemoryResult {
	points: MemoryPoint[];
	/** Per scenario, size and n: the Service's peak above / n8n alone's (stock nodes). */
	ratios: Array<{ scenario: string; size: number; n: number; rssRatio: number; heapRatio: number }>;
	errors: string[];
}

const SAMPLE_MS = 20;

export async function benchMemory(options: MemoryOptions): Promise<MemoryResult> {
	const sandbox = await startBenchSandbox({ seed: 'empty', portfolioRows: Math.max(options.exportRows, PORTFOLIO_COMPANIES), pageSize: options.pageSize }, false);
	let n8n: N8n | undefined;
	let v8: Inspector | undefined;
	const points: MemoryPoint[] = [];
	const errors: string[] = [];
	try {
		const inspectPort = await freePort();
		n8n = await startN8n({
			trustedCas: [sandbox.ca],
			communityPackages: [options.tarball],
			// The inspector on loopback only, to collect garbage before each point and read the heap.
			env: { NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}`, EXECUTIONS_DATA_PRUNE: 'false' },
		});
		await n8n.importCredentials([
			{ ...TRIGGER_CREDENTIAL, type: 'serviceApi', data: { baseUrl: sandbox.baseUrl, accessToken: sandbox.tokens.reader } },
			...benchCredentials(sandbox.baseUrl, sandbox.tokens.reader),
		]);
		const pid = n8nPid(n8n.port);
		v8 = await openInspector(inspectPort);
		const metrics = v8.heapUsedMiB;
		await warmPortfolio(sandbox.baseUrl, sandbox.tokens.reader, sandbox.ca);

		// Deliveries: the Service Trigger as added, and a stock Webhook node.
		const triggers = Array.from({ length: Math.max(1, options.companyTriggers) }, (_, i) => triggerWorkflow(`benchMemTrig${String(i).padStart(3, '0')}`, false));
		const companies = Array.from({ length: options.companyTriggers }, (_, i) => triggerWorkflow(`benchMemComp${String(i).padStart(3, '0')}`, true));
		const stock = stockWorkflow('benchMemStock001', 'bench-memory-stock');
		const exportHooks = (['A', 'B', 'C'] as const).map((variant) => webhookStarted(exportWorkflow(variant, sandbox.baseUrl), `bench-memory-export-${variant}`));
		for (const workflow of [...triggers, ...companies, stock, ...exportHooks.map((hook) => hook.workflow)]) {
			await n8n.importWorkflow(workflow);
			await n8n.api.activateWorkflow(workflow.id as string);
		}
		const endpoints = await waitFor(
			async () => {
				const listed = await sandbox.control.webhookEndpoints();
				const all = [...triggers, ...companies].map((w) => listed.find((e) => e.url.includes(w.webhookId)));
				return all.every(Boolean) ? all.map((e) => e!) : undefined;
			},
			{ what: 'every Service Trigger to register its endpoint', timeoutMs: 60_000 },
		);
		const triggerTargets = [...triggers, ...companies].map((w, i) => ({ workflow: w, url: endpoints[i].url, key: decodeSigningSecret(endpoints[i].secret, 'base64') }));
		const stockUrl = n8n.api.webhookUrl('bench-memory-stock');
		for (const { url } of triggerTargets) await n8n.api.waitForWebhook(url.slice(`${n8n.url}/webhook/`.length));
		await n8n.api.waitForWebhook('bench-memory-stock');
		for (const hook of exportHooks) await n8n.api.waitForWebhook(hook.path);

		// workflowIds: count their finished executions; none: the webhook answers when its execution ends (lastNode).
		const measure = async (scenario: MemoryPoint['scenario'], variant: string, n: number, size: number, workflowIds: string[] | undefined, start: () => Promise<number>) => {
			const before = await quietNow(pid, v8!);
			const counted = workflowIds ? await finishedCounts(n8n!, workflowIds) : { finished: 0, succeeded: 0 };
			const peak = { rss: before.rss, heap: before.heap };
			let sampling = true;
			const sampler = (async () => {
				while (sampling) {
					peak.rss = Math.max(peak.rss, treeRss(pid));
					await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
				}
			})();
			const heapSampler = (async () => {
				while (sampling) {
					const heap = await metrics().catch(() => undefined);
					if (heap !== undefined) peak.heap = Math.max(peak.heap, heap);
					await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
				}
			})();
			const started = Date.now();
			let succeeded = 0;
			try {
				const answered = await start();
				if (workflowIds) {
					const done = await waitFor(
						async () => {
							const now = await finishedCounts(n8n!, workflowIds);
							return now.finished - counted.finished >= n ? now : undefined;
						},
						{ what: `${n} finished executions (${scenario}, ${variant})`, timeoutMs: 600_000, intervalMs: 250 },
					);
					succeeded = done.succeeded - counted.succeeded;
				} else {
					succeeded = answered;
				}
			} catch (error) {
				errors.push(`${scenario} ${variant} n=${n} size=${size}: ${(error as Error).message}`);
			} finally {
				sampling = false;
				await Promise.all([sampler, heapSampler]);
			}
			const point: MemoryPoint = {
				scenario, variant, n, size,
				beforeRssMiB: round(before.rss), beforeHeapMiB: round(before.heap),
				peakRssAboveMiB: round(peak.rss - before.rss), peakHeapAboveMiB: round(peak.heap - before.heap),
				peakRssMiB: round(peak.rss), peakHeapMiB: round(peak.heap),
				succeeded, seconds: round((Date.now() - started) / 1000),
			};
			points.push(point);
			options.log(`  memory ${scenario} ${variant} n=${n} size=${size}: peak RSS +${point.peakRssAboveMiB} MiB (from ${point.beforeRssMiB}), heap +${point.peakHeapAboveMiB} MiB (from ${point.beforeHeapMiB}), ${succeeded}/${n} succeeded, ${point.seconds} s`);
		};

		let serial = 0;
		const signed = (key: Buffer, size: number, ke = 'KE-P0000001') => {
			const body = Buffer.from(eventBody(size, `alt_mem_${serial++}_${Date.now()}`).toString('utf8').replace('"KE-P0000001"', JSON.stringify(ke)));
			return { body, headers: { 'content-type': 'application/json', 'service-signature': serviceSignature(key, body) } };
		};
		const trigger = triggerTargets[0];

		for (const size of options.bodySizes) {
			for (const n of options.concurrencies) {
				// Rotating order: the stock node first at one point, the trigger first at the next.
				const runs = [
					() => measure('deliveries', 'Service Trigger (as added)', n, size, [trigger.workflow.id], () => postAll(trigger.url, n8n!.ca, Array.from({ length: n }, () => signed(trigger.key, size)))),
					() => measure('deliveries', 'n8n alone: stock Webhook', n, size, [stock.id], () => postAll(stockUrl, n8n!.ca, Array.from({ length: n }, () => signed(trigger.key, size)))),
				];
				for (const run of n % 2 === 0 ? runs : runs.reverse()) await run();
			}
		}

		for (const n of options.concurrencies.filter((each) => each <= 8)) {
			for (const hook of exportHooks) {
				const variant = hook.variant === 'A' ? 'Service Reader, items' : hook.variant === 'B' ? 'Service Reader, one CSV file' : 'n8n alone: HTTP Request paged + Extract From File';
				await measure('exports', variant, n, options.exportRows, undefined, () =>
					postAll(n8n!.api.webhookUrl(hook.path), n8n!.ca, Array.from({ length: n }, () => ({ body: Buffer.from('{}'), headers: { 'content-type': 'application/json' } }))),
				);
			}
		}

		if (options.companyTriggers > 0) {
			for (const n of options.concurrencies) {
				for (const [variant, group] of [
					['Add Company Details on', triggerTargets.slice(triggers.length)],
					['Add Company Details off', triggerTargets.slice(0, triggers.length)],
				] as const) {
					await measure('companies', `${group.length} Service Triggers, ${variant}`, n, 2048, group.map((t) => t.workflow.id), async () => {
						const answered = await Promise.all(
							group.map((t, g) => {
								const mine = Array.from({ length: n }, (_, i) => i).filter((i) => i % group.length === g);
								const bodies = mine.map((i) => signed(t.key, 2048, `KE-P${String(((i * 37) % PORTFOLIO_COMPANIES) + 1).padStart(7, '0')}`));
								return postAll(t.url, n8n!.ca, bodies);
							}),
						);
						return answered.reduce((sum, each) => sum + each, 0);
					});
				}
			}
		}
	} finally {
		v8?.close();
		await n8n?.stop();
		await sandbox.close();
	}
	return { points, ratios: ratiosOf(points), errors };
}

/** Lines for the console and docs/performance.md. */
export function memoryLines(result: MemoryResult): string[] {
	const lines = ['Memory under concurrency: the peak above what n8n held live just before (garbage collected), RSS of n8n and its task runner and n8n\'s V8 heap in use; in brackets the peak itself.', ''];
	lines.push('| scenario | variant | at once | size | peak RSS above | peak heap above | succeeded |', '|---|---|---:|---:|---:|---:|---:|');
	for (const p of result.points) {
		const size = p.scenario === 'exports' ? `${p.size.toLocaleString('en')} rows` : `${Math.round(p.size / 1024).toLocaleString('en')} KiB`;
		lines.push(`| ${p.scenario} | ${p.variant} | ${p.n} | ${size} | ${p.peakRssAboveMiB} MiB (${p.peakRssMiB}) | ${p.peakHeapAboveMiB} MiB (${p.peakHeapMiB}) | ${p.succeeded}/${p.n} |`);
	}
	for (const error of result.errors) lines.push(`- error: ${error}`);
	return lines;
}

function ratiosOf(points: MemoryPoint[]): MemoryResult['ratios'] {
	const ratios: MemoryResult['ratios'] = [];
	for (const p of points.filter((each) => !each.variant.startsWith('n8n alone') && each.scenario !== 'companies')) {
		const alone = points.find((q) => q.scenario === p.scenario && q.n === p.n && q.size === p.size && q.variant.startsWith('n8n alone'));
		if (!alone) continue;
		ratios.push({
			scenario: `${p.scenario}: ${p.variant}`,
			size: p.size,
			n: p.n,
			rssRatio: round(Math.max(p.peakRssAboveMiB, 1) / Math.max(alone.peakRssAboveMiB, 1)),
			heapRatio: round(Math.max(p.peakHeapAboveMiB, 1) / Math.max(alone.peakHeapAboveMiB, 1)),
		});
	}
	return ratios;
}


async function finishedCounts(n8n: N8n, workflowIds: string[]): Promise<{ finished: number; succeeded: number }> {
	let finished = 0;
	let succeeded = 0;
	for (const id of workflowIds) {
		const executions = await n8n.api.executions(id, false);
		finished += executions.filter((e) => e.stoppedAt !== null).length;
		succeeded += executions.filter((e) => e.status === 'success').length;
	}
	return { finished, succeeded };
}

/** All at once: one connection each. Answers must be 200. */
async function postAll(url: string, ca: string, deliveries: Array<{ body: Buffer; headers: Record<string, string> }>): Promise<number> {
	const agent = new Agent({ keepAlive: false, ca, maxSockets: Infinity });
	const statuses = await Promise.all(
		deliveries.map(
			(delivery) =>
				new Promise<number>((resolve) => {
					const req = request(url, { method: 'POST', agent, headers: { ...delivery.headers, 'content-length': String(delivery.body.length) }, timeout: 120_000 }, (res) => {
						res.resume();
						res.on('end', () => resolve(res.statusCode ?? 0));
					});
					req.on('timeout', () => req.destroy());
					req.on('error', () => resolve(0));
					req.end(delivery.body);
				}),
		),
	);
	const wrong = statuses.filter((status) => status !== 200);
	if (wrong.length > 0) throw new Error(`${wrong.length} of ${statuses.length} answered ${[...new Set(wrong)].join(', ')} instead of 200`);
	return statuses.length;
}


function round(value: number): number {
	return Math.round(value * 10) / 10;
}

/** Writes the memory lines between markers in docs/performance.md (only for a committed results run). */
export function writeMemoryBlock(page: string, result: MemoryResult): void {
	const start = '<!-- memory:start -->';
	const end = '<!-- memory:end -->';
	const text = readFileSync(page, 'utf8');
	const from = text.indexOf(start);
	const to = text.indexOf(end);
	if (from < 0 || to < from) return;
	writeFileSync(page, `${text.slice(0, from + start.length)}\n${memoryLines(result).join('\n')}\n${text.slice(to)}`);
}

