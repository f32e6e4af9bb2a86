/**
 * Where n8n's CPU goes per webhook delivery: a V8 CPU profile of the n8n server (main thread) over
 * rounds of one kind each (Service Trigger refused from the header, refused by the signature,
 * accepted, and accepted with Add Company Details on; the stock Webhook node), split by time, and each sample put in one bucket by what is on
 * its stack. Explains the trigger targets item 3 misses; not part of `npm run bench`.
 *
 *   bash scripts/toolchain.sh gulp bundle && bash scripts/toolchain.sh tsx bench/profileTrigger.ts [deliveries]
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { packPackage } from '../test/e2e/community-package';
import { startN8n } from '../test/e2e/n8n';
import { startSandbox } from '../test/sandbox';
import { waitFor } from '../test/e2e/wait-for';
import { decodeSigningSecret } from '../nodes/ServiceTrigger/verify/signingSecret';
import { cpuMs, n8nPid } from './cpu';
import { buildDeliveries, serviceSigning, type Delivery } from './deliveries';
import { PORTFOLIO_COMPANIES } from './deliveryBody';
import {
	serviceTriggerWorkflow, STOCK_PATH, stockWebhookWorkflow, TRIGGER_CREDENTIAL, triggerCompanyWorkflowId, triggerWebhookIds, triggerWorkflowId,
} from './triggerWorkflows';
import { sendDeliveries } from './webhookLoad';

interface CpuProfileNode {
	id: number;
	callFrame: { functionName: string; url: string };
	children?: number[];
}
interface CpuProfile {
	nodes: CpuProfileNode[];
	startTime: number;
	samples: number[];
	timeDeltas: number[];
}

/** First match wins, tested against every frame of a sample's stack. */
const BUCKETS: Array<[string, (frame: CpuProfileNode['callFrame']) => boolean]> = [
	['expression engine (isolates)', (f) => /isolated-vm|expression-runtime|Isolate/.test(f.url + f.functionName)],
	['credential read', (f) => /^(getCredentials|getDecrypted|applyDefaultsAndOverwrites)$/.test(f.functionName)],
	// Before "this package": the option's own code (its page requests run in n8n's helpers, counted under other).
	['Add Company Details (lookup, CSV)', (f) => /^(addCompanyDetails|lookUp|findRow|companyOf)$/.test(f.functionName)],
	["n8n's deduplication store", (f) => /checkProcessedAndRecord/.test(f.functionName)],
	['database', (f) => /typeorm|sqlite3|@n8n\/db/.test(f.url)],
	['this package', (f) => /n8n-nodes-service-reader/.test(f.url)],
	['garbage collection', (f) => f.functionName === '(garbage collector)'],
	['express and request parsing', (f) => /node_modules\/(express|body-parser|raw-body|router)\//.test(f.url)],
];
const OTHER = 'other (n8n, Node)';

const deliveries = Number(process.argv[2] ?? 400);
const concurrency = 20;
const out = 'bench/tmp/profile';

async function main(): Promise<void> {
	rmSync(out, { recursive: true, force: true });
	mkdirSync(out, { recursive: true });
	const tarball = await packPackage(process.cwd(), join(out, 'pack'));
	// The trigger bench's portfolio: every delivery names one of its companies, 1,000 rows a page.
	const sandbox = await startSandbox({ seed: 'empty', portfolioRows: PORTFOLIO_COMPANIES, pageSize: 1_000 });
	const n8n = await startN8n({
		trustedCas: [sandbox.ca],
		communityPackages: [tarball],
		env: { EXECUTIONS_DATA_PRUNE: 'false', NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${join(process.cwd(), out)}` },
	});
	const phases: Array<{ name: string; startUs: number; endUs: number; cpuMs: number }> = [];
	let pid = 0;
	let portfolioReads = 0;
	try {
		await n8n.importCredentials([{ ...TRIGGER_CREDENTIAL, type: 'serviceApi', data: { baseUrl: sandbox.baseUrl, accessToken: sandbox.tokens.reader } }]);
		for (const workflow of [serviceTriggerWorkflow(true), serviceTriggerWorkflow(true, true), stockWebhookWorkflow()]) {
			await n8n.importWorkflow(workflow);
			await n8n.api.activateWorkflow(workflow.id);
		}
		const endpoint = await waitFor(async () => sandbox.control.webhookEndpoints().find((e) => e.url.includes(triggerWebhookIds[triggerWorkflowId])), {
			what: 'the Service Trigger to register its endpoint',
			timeoutMs: 30_000,
		});
		const signing = serviceSigning(decodeSigningSecret(endpoint.secret, 'base64'));
		const companyEndpoint = await waitFor(async () => sandbox.control.webhookEndpoints().find((e) => e.url.includes(triggerWebhookIds[triggerCompanyWorkflowId])), {
			what: 'the Service Trigger with Add Company Details to register its endpoint',
			timeoutMs: 30_000,
		});
		const companySigning = serviceSigning(decodeSigningSecret(companyEndpoint.secret, 'base64'));
		const stockUrl = n8n.api.webhookUrl(STOCK_PATH);
		await n8n.api.waitForWebhook(endpoint.url.slice(`${n8n.url}/webhook/`.length));
		await n8n.api.waitForWebhook(companyEndpoint.url.slice(`${n8n.url}/webhook/`.length));
		pid = n8nPid(n8n.port);
		const forged = (kinds: string[], label: string) =>
			buildDeliveries(deliveries * 5, 1, signing, label).filter((d) => d.forgery && kinds.includes(d.forgery)).slice(0, deliveries);
		const valid = (label: string) => buildDeliveries(deliveries, deliveries + 1, signing, label);
		const rounds: Array<[string, string, Delivery[]]> = [
			['warm-up', endpoint.url, valid('warm')],
			['warm-up, Add Company Details on', companyEndpoint.url, buildDeliveries(50, 51, companySigning, 'warmCompany')],
			['Service Trigger: refused from the header', endpoint.url, forged(['stale timestamp', 'no signature'], 'hdr')],
			['Service Trigger: refused by the signature', endpoint.url, forged(['wrong secret', 'body changed after signing', 'corrupted v1'], 'sig')],
			['Service Trigger: accepted (with its execution)', endpoint.url, valid('ok')],
			['Service Trigger, Add Company Details on: accepted (with its execution)', companyEndpoint.url, buildDeliveries(deliveries, deliveries + 1, companySigning, 'company')],
			['stock Webhook: accepted (with its execution)', stockUrl, valid('stock')],
		];
		for (const [name, url, batch] of rounds) {
			await settle(n8n);
			const [cpuStart, startUs] = [cpuMs(pid), nowUs()];
			await sendDeliveries(url, n8n.ca, batch, concurrency);
			await settle(n8n);
			phases.push({ name, startUs, endUs: nowUs(), cpuMs: (cpuMs(pid) - cpuStart) / batch.length });
			console.log(`${name}: ${batch.length} sent`);
		}
		portfolioReads = sandbox.control.requests({ method: 'GET', path: '/v1/reader/exports/portfolio' }).length;
	} finally {
		await n8n.stop();
		await sandbox.close();
	}
	const file = readdirSync(out).find((name) => name.includes(`.${pid}.`) && name.endsWith('.cpuprofile'));
	if (!file) throw new Error(`no CPU profile of n8n (pid ${pid}) in ${out}: ${readdirSync(out).join(', ')}`);
	const report = attribute(JSON.parse(readFileSync(join(out, file), 'utf8')) as CpuProfile, phases.slice(2));
	writeFileSync(join(out, 'summary.json'), `${JSON.stringify(report, null, 2)}\n`);
	console.log(`portfolio requests the sandbox answered over the whole run (both Add Company Details rounds): ${portfolioReads}`);
	for (const phase of report) {
		console.log(`\n${phase.name}: n8n CPU ${phase.processCpuMs.toFixed(1)} ms a delivery (all threads and task runners), main thread ${phase.mainThreadMs.toFixed(1)} ms:`);
		for (const [bucket, ms] of Object.entries(phase.buckets)) console.log(`  ${bucket.padEnd(32)} ${ms.toFixed(1)} ms`);
	}
}

/** n8n's CPU in a second, in ms. */
async function cpuInASecond(pid: number): Promise<number> {
	const before = cpuMs(pid);
	await new Promise((resolve) => setTimeout(resolve, 1_000));
	return cpuMs(pid) - before;
}

/**
 * Waits until n8n is back to its idle CPU (every execution stored). Idle is not zero here: the
 * profiler samples an idle thread too, so it is measured once, before the first round.
 */
let idleMsPerSecond: number | undefined;
async function settle(n8n: { port: number }): Promise<void> {
	const pid = n8nPid(n8n.port);
	if (idleMsPerSecond === undefined) {
		await new Promise((resolve) => setTimeout(resolve, 5_000));
		idleMsPerSecond = Math.min(await cpuInASecond(pid), await cpuInASecond(pid), await cpuInASecond(pid));
	}
	const busy = idleMsPerSecond * 1.5 + 20;
	for (let ms = await cpuInASecond(pid); ms > busy; ms = await cpuInASecond(pid));
}

/** CLOCK_MONOTONIC in µs: the clock V8 stamps profile samples with, shared by every process here. */
function nowUs(): number {
	return Number(process.hrtime.bigint() / 1000n);
}

function attribute(profile: CpuProfile, phases: Array<{ name: string; startUs: number; endUs: number; cpuMs: number }>) {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
	const bucketOf = new Map<number, string>();
	const bucket = (id: number): string => {
		const known = bucketOf.get(id);
		if (known) return known;
		const stack: CpuProfileNode['callFrame'][] = [];
		for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!.callFrame);
		const found = stack[0].functionName === '(idle)' ? '(idle)' : (BUCKETS.find(([, test]) => stack.some(test))?.[0] ?? OTHER);
		bucketOf.set(id, found);
		return found;
	};
	const sums = phases.map(() => new Map<string, number>());
	let t = profile.startTime;
	for (let i = 0; i < profile.samples.length; i++) {
		const delta = profile.timeDeltas[i];
		t += delta;
		const phase = phases.findIndex((p) => t >= p.startUs && t < p.endUs);
		if (phase < 0) continue;
		const name = bucket(profile.samples[i]);
		if (name === '(idle)' || name === '(program)') continue;
		sums[phase].set(name, (sums[phase].get(name) ?? 0) + delta / 1000);
	}
	return phases.map((phase, index) => {
		const count = deliveries;
		const buckets = Object.fromEntries(
			[...sums[index].entries()].sort((a, b) => b[1] - a[1]).map(([name, ms]) => [name, ms / count]),
		);
		const mainThreadMs = Object.values(buckets).reduce((sum, ms) => sum + ms, 0);
		return { name: phase.name, deliveries: count, processCpuMs: phase.cpuMs, mainThreadMs, buckets };
	});
}

main().catch((error: Error) => {
	console.error(error);
	process.exitCode = 1;
});
