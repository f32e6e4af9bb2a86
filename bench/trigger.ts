/**
 * Item 3: signed deliveries at a fixed concurrency into one real n8n, round by round in rotating
 * order between the Service Trigger (as added, and with Ignore Redeliveries off), the peers a user
 * who needs signed webhooks has (n8n's Stripe Trigger, registered with a local Stripe stand-in, and
 * the hand-built Webhook → Crypto → IF → Respond to Webhook chain), and a stock Webhook node without
 * verification (the floor), and the Service Trigger as added with Add Company Details on, against a
 * sandbox portfolio naming every delivery's company (its cost: portfolio reads per alert, counted at
 * the sandbox, and the p99 beside the option off). Every delivery is accounted for: a verifying receiver must refuse each
 * forged one (401); the triggers start exactly one execution per valid one, the chain one per
 * request, forged or not, and the stock Webhook one per request.
 */
import { randomBytes } from 'node:crypto';

import { startN8n, type N8n } from '../test/e2e/n8n';
import { waitFor } from '../test/e2e/wait-for';
import { CHANGES_ROW } from '../nodes/ServiceTrigger/companyDetails/companyDetails';
import { decodeSigningSecret } from '../nodes/ServiceTrigger/verify/signingSecret';
import { cpuMs, n8nPid } from './cpu';
import { adversarialDeliveries, buildDeliveries, serviceSigning, type Signing } from './deliveries';
import { namedEvents, PORTFOLIO_COMPANIES } from './deliveryBody';
import { HAND_CHAIN_PATH, HAND_CHAIN_WORKFLOW_ID, handChainCredential, handChainWorkflow } from './handChain';
import { startBenchSandbox } from './sandboxProcess';
import { warmPortfolio } from './sandboxPages';
import { median, percentile, ratio, spread } from './stats';
import { startStripePeer, STRIPE_WEBHOOK_ID, STRIPE_WORKFLOW_ID, stripeCredential, stripeEvent, stripeTriggerWorkflow, type StripePeer } from './stripe/peer';
import {
	serviceTriggerWorkflow, STOCK_PATH, stockWebhookWorkflow, stockWorkflowId, TRIGGER_CREDENTIAL,
	triggerCompanyWorkflowId, triggerNoMemoryWorkflowId, triggerWebhookIds, triggerWorkflowId,
} from './triggerWorkflows';
import { sendDeliveries, type LoadResult } from './webhookLoad';

export interface TriggerOptions {
	tarball: string;
	deliveries: number;
	forgedEvery: number;
	concurrency: number;
	rounds: number;
	/** The verifying peers too (Stripe Trigger, hand-built chain), with n8n's outbound HTTPS through the Stripe proxy. */
	peers: boolean;
	/** Rows per page of the sandbox's portfolio export, which Add Company Details reads. */
	portfolioPageSize: number;
	/** The Service Trigger with Add Company Details on as well (off for the legacy-engine pass, to keep it short). */
	companyDetails: boolean;
	/** The sandbox inside the benchmark's own process, as before 2026-11-25 (default: a process of its own). */
	sandboxInProcess: boolean;
	/** More environment for n8n (e.g. NODE_OPTIONS for a CPU profile). */
	n8nEnv?: Record<string, string>;
	log: (line: string) => void;
}

export interface TriggerRound {
	sent: number;
	valid: number;
	forged: number;
	p50Ms: number;
	p99Ms: number;
	meanMs: number;
	deliveriesPerSecond: number;
	/** Answers other than expected (valid: 200; forged: 401 from a verifying receiver, 200 from the stock node). */
	unexpected: Record<string, number>;
}

export interface TriggerVariant {
	name: string;
	verifies: boolean;
	/** Whether a forged delivery starts an execution (the stock Webhook, and the chain, which refuses from inside one). */
	startsOnForged?: boolean;
	/** Each round (raw file only). */
	rounds?: TriggerRound[];
	p50Ms: number;
	p99Ms: number;
	deliveriesPerSecond: number;
	/** Executions there must be: one per delivery answered as expected that starts one. */
	executionsExpected: number;
	/**
	 * Deliveries that got no answer (connection error or no answer within 60 s): each may or may
	 * not have started an execution, so the count may exceed executionsExpected by at most this.
	 */
	noAnswer: number;
	noAnswerErrors: Record<string, number>;
	executionsCounted: number;
	executionsNotSuccessful: number;
	/** Executions by n8n status, and the error of one that did not succeed. */
	executionStatuses: Record<string, number>;
	firstExecutionError?: string;
	forgedSent: number;
	forgedRefused: number;
	/** Valid deliveries answered 200. */
	validAccepted?: number;
	/** Executions beyond one per accepted valid delivery: started by forged deliveries. */
	executionsForForged?: number;
	/** Every delivery answered as expected and every execution counted (see accounted()). */
	accountedFor?: boolean;
	/** n8n's CPU per delivery, each kind on its own (the Service Trigger as added and the verifying peers). */
	cpu?: DeliveryCpu;
}

/** n8n's CPU per delivery of one kind, idle CPU taken out. */
export interface DeliveryCpu {
	acceptedMs: number;
	/** Refused by the signature: wrong secret, changed body, corrupted v1. */
	refusedMs: number;
	/** Refused from the header alone: stale t, no signature. */
	refusedBeforeSecretMs: number;
	refusedRatio: number;
	/** The Service Trigger only: refused by the signature, its header padded to 16,000 characters of separator runs (issue 31). */
	refusedAdversarialMs?: number;
	/** refusedAdversarialMs / refusedMs: the target is at most 2. */
	adversarialRatio?: number;
	deliveries: number;
}

/** What Add Company Details cost under the bench's load: the Service's side counted at the sandbox. */
export interface CompanyDetailsCost {
	/** Companies in the sandbox's portfolio (every delivery names one) and rows per page. */
	portfolioCompanies: number;
	pageSize: number;
	/** Share of the deliveries whose event type changes the company's row (re-reads up to its page). */
	rowChangingShare: number;
	/** GET /v1/reader/exports/portfolio the sandbox answered while n8n ran (warm-up, rounds and CPU round). */
	portfolioRequests: number;
	/** Executions of the option-on workflow, all of which looked a company up. */
	executions: number;
	requestsPerAlert: number;
	/** Newest finished executions read back through n8n's API, and how many carry `company` with the row (shared: true, the KE's name). */
	checkedExecutions: number;
	withCompany: number;
	/** One item's `company` as n8n stored it, to show the lookup happened. */
	example?: Record<string, unknown>;
	/** p50 and p99 with the option on / off (both Ignore Redeliveries on), of the medians over rounds. */
	p50RatioVsOff: number;
	p99RatioVsOff: number;
	/** The option-off variant's p99 over its rounds, lowest and highest: the noise the on/off ratio is judged against. */
	offP99RangeMs: { min: number; max: number };
	onP99RangeMs: { min: number; max: number };
}

export interface TriggerResult {
	concurrency: number;
	deliveriesPerRound: number;
	forgedPerRound: number;
	serviceTrigger: TriggerVariant;
	serviceTriggerNoMemory: TriggerVariant;
	/** The Service Trigger as added with Add Company Details on. */
	serviceTriggerCompany?: TriggerVariant;
	companyDetails?: CompanyDetailsCost;
	stockWebhook: TriggerVariant;
	/** n8n's Stripe Trigger against the Stripe stand-in (peers on). */
	stripeTrigger?: TriggerVariant;
	/** The hand-built Webhook → Crypto → IF → Respond to Webhook chain (peers on). */
	handChain?: TriggerVariant;
	/** Service Trigger (as added) / stock Webhook, of the medians over rounds. */
	p50Ratio: number;
	p99Ratio: number;
	throughputRatio: number;
	/** The same with Ignore Redeliveries off. */
	p99RatioNoMemory: number;
	/** Service Trigger (as added) p99 / each peer's p99. */
	p99RatioVsStripe?: number;
	p99RatioVsHandChain?: number;
	/** Both Service Trigger variants: every forged delivery refused, one execution per valid one. */
	accountedFor: boolean;
	/** n8n's CPU per delivery to the Service Trigger (as added). */
	cpu?: DeliveryCpu;
	stockAccountedFor: boolean;
	/** Where a peer could not be set up or measured: why. */
	peerErrors?: string[];
}

type Key = 'trigger' | 'triggerNoMemory' | 'triggerCompany' | 'stock' | 'stripe' | 'handChain';
/** One workflow under load, and its tallies so far. */
interface Target extends Pick<TriggerVariant, 'name' | 'verifies' | 'noAnswer' | 'noAnswerErrors' | 'forgedSent' | 'forgedRefused'> {
	key: Key;
	workflowId: string;
	url: string;
	signing: Signing;
	startsOnForged: boolean;
	expected: number;
	validAccepted: number;
	rounds: TriggerRound[];
}

const WARM_UP = 50;
const PORTFOLIO_PATH = '/v1/reader/exports/portfolio';

export async function benchTrigger(options: TriggerOptions): Promise<TriggerResult> {
	// Every delivery names one of these companies, so Add Company Details really looks each one up.
	const sandbox = await startBenchSandbox({ seed: 'empty', portfolioRows: PORTFOLIO_COMPANIES, pageSize: options.portfolioPageSize }, options.sandboxInProcess);
	let stripe: StripePeer | undefined;
	let n8n: N8n | undefined;
	const peerErrors: string[] = [];
	try {
		if (options.peers) stripe = await startStripePeer();
		n8n = await startN8n({
			trustedCas: [sandbox.ca, ...(stripe ? [stripe.standIn.ca] : [])],
			communityPackages: [options.tarball],
			// Thousands of executions: keep every one so they can all be counted.
			env: { EXECUTIONS_DATA_PRUNE: 'false', ...stripe?.env, ...options.n8nEnv },
		});
		// The chain's secret is its own key text (see handChain.ts).
		const chainSecret = `whsec_${randomBytes(24).toString('base64url')}`;
		await n8n.importCredentials([
			{ ...TRIGGER_CREDENTIAL, type: 'serviceApi', data: { baseUrl: sandbox.baseUrl, accessToken: sandbox.tokens.reader } },
			...(stripe ? [stripeCredential(stripe.standIn), handChainCredential(chainSecret)] : []),
		]);
		const workflows = [
			serviceTriggerWorkflow(true),
			serviceTriggerWorkflow(false),
			...(options.companyDetails ? [serviceTriggerWorkflow(true, true)] : []),
			stockWebhookWorkflow(),
			...(stripe ? [stripeTriggerWorkflow(), handChainWorkflow()] : []),
		];
		for (const workflow of workflows) {
			await n8n.importWorkflow(workflow);
			// Activating a trigger registers its endpoint (with the sandbox, or the Stripe stand-in), which hands out the secret once.
			await n8n.api.activateWorkflow(workflow.id).catch((error: Error) => {
				if (workflow.id !== STRIPE_WORKFLOW_ID) throw error;
				peerErrors.push(`Stripe Trigger: activation failed: ${error.message}`);
			});
		}
		const endpointOf = (workflowId: string) =>
			waitFor(async () => (await sandbox.control.webhookEndpoints()).find((e) => e.url.includes(triggerWebhookIds[workflowId])), {
				what: `the Service Trigger of ${workflowId} to register its endpoint`,
				timeoutMs: 30_000,
			});
		const withMemory = await endpointOf(triggerWorkflowId);
		const withoutMemory = await endpointOf(triggerNoMemoryWorkflowId);
		const withCompany = options.companyDetails ? await endpointOf(triggerCompanyWorkflowId) : undefined;
		const target = (key: Key, name: string, workflowId: string, url: string, signing: Signing, verifies: boolean, startsOnForged: boolean): Target => ({
			key, name, workflowId, url, signing, verifies, startsOnForged,
			expected: 0, validAccepted: 0, noAnswer: 0, noAnswerErrors: {}, forgedSent: 0, forgedRefused: 0, rounds: [],
		});
		const serviceKey = decodeSigningSecret(withMemory.secret, 'base64');
		const targets: Target[] = [
			target('trigger', 'Service Trigger (as added: verifies, Ignore Redeliveries on)', triggerWorkflowId, withMemory.url, serviceSigning(serviceKey), true, false),
			target('triggerNoMemory', 'Service Trigger, Ignore Redeliveries off', triggerNoMemoryWorkflowId, withoutMemory.url,
				serviceSigning(decodeSigningSecret(withoutMemory.secret, 'base64')), true, false),
			// Signed like the first trigger's deliveries; it checks nothing anyway.
			...(withCompany
				? [target('triggerCompany', 'Service Trigger, Add Company Details on', triggerCompanyWorkflowId, withCompany.url,
						serviceSigning(decodeSigningSecret(withCompany.secret, 'base64')), true, false)]
				: []),
			target('stock', 'stock Webhook node (no verification)', stockWorkflowId, n8n.api.webhookUrl(STOCK_PATH), serviceSigning(serviceKey), false, true),
		];
		if (stripe) {
			const standIn = stripe.standIn;
			const endpoint = peerErrors.length > 0
				? undefined
				: await waitFor(async () => standIn.endpoints().find((e) => e.url.includes(STRIPE_WEBHOOK_ID) && !e.deleted), {
						what: 'the Stripe Trigger to register its endpoint with the stand-in',
						timeoutMs: 30_000,
					}).catch((error: Error) => {
						peerErrors.push(`Stripe Trigger: ${error.message}; stand-in saw ${JSON.stringify(standIn.requests())}, proxy saw ${JSON.stringify(stripe!.proxy.log)}`);
						return undefined;
					});
			if (endpoint) {
				options.log(`  Stripe Trigger registered ${endpoint.url} with the stand-in (through the proxy: ${stripe.proxy.tunnels('api.stripe.com:443').length} tunnel(s))`);
				targets.push(
					target('stripe', 'n8n Stripe Trigger (verifies Stripe-Signature)', STRIPE_WORKFLOW_ID, endpoint.url,
						{ header: 'stripe-signature', key: Buffer.from(endpoint.secret, 'utf8'), event: stripeEvent }, true, false),
				);
			}
			targets.push(
				target('handChain', 'hand-built chain: Webhook, Extract From File, Crypto, IF, Respond to Webhook', HAND_CHAIN_WORKFLOW_ID,
					n8n.api.webhookUrl(HAND_CHAIN_PATH), serviceSigning(Buffer.from(chainSecret, 'utf8')), true, true),
			);
		}
		for (const { url } of targets) await n8n.api.waitForWebhook(url.slice(`${n8n.url}/webhook/`.length));
		// The sandbox builds its CSV rows on the first export request: outside the rounds, and not counted as the option's.
		await warmPortfolio(sandbox.baseUrl, sandbox.tokens.reader, sandbox.ca);
		await sandbox.control.clearRequests();

		const run = async (t: Target, valid: number, label: string, keep: boolean) => {
			const deliveries = buildDeliveries(valid, options.forgedEvery, t.signing, `${t.key}_${label}`);
			const result = await sendDeliveries(t.url, n8n!.ca, deliveries, options.concurrency);
			const round = summariseRound(t.verifies, result);
			tally(t, result);
			if (keep) t.rounds.push(round);
			return round;
		};
		for (const t of targets) await run(t, WARM_UP, 'warmup', false);
		for (let r = 0; r < options.rounds; r++) {
			// Rotating order: none of them always follows the same one.
			for (let i = 0; i < targets.length; i++) {
				const t = targets[(i + r) % targets.length];
				const round = await run(t, options.deliveries, `r${r}`, true);
				options.log(
					`  ${t.key} round ${r + 1}/${options.rounds}: p50 ${round.p50Ms.toFixed(1)} ms, p99 ${round.p99Ms.toFixed(1)} ms, ` +
						`${Math.round(round.deliveriesPerSecond)}/s${Object.keys(round.unexpected).length ? `, unexpected ${JSON.stringify(round.unexpected)}` : ''}`,
				);
			}
		}

		const cpuOf = new Map<Key, DeliveryCpu>();
		for (const t of targets.filter((each) => ['trigger', 'triggerCompany', 'stripe', 'handChain'].includes(each.key))) {
			// With the option on, only acceptance differs from the trigger as added: its refusals are not measured again.
			const cpu = await measureCpu(n8n, t, options, t.key === 'triggerCompany').catch((error: Error) => {
				if (t.key === 'trigger') throw error;
				peerErrors.push(`${t.name}: CPU rounds: ${error.message}`);
				return undefined;
			});
			if (!cpu) continue;
			cpuOf.set(t.key, cpu);
			options.log(`  ${t.key} cpu per delivery: accepted ${cpu.acceptedMs.toFixed(2)} ms, refused ${cpu.refusedMs.toFixed(2)} ms (ratio ${cpu.refusedRatio.toFixed(3)}), refused from the header alone ${cpu.refusedBeforeSecretMs.toFixed(2)} ms${cpu.refusedAdversarialMs === undefined ? '' : `, refused with a 16,000-character adversarial header ${cpu.refusedAdversarialMs.toFixed(2)} ms`}`);
		}

		const variants = {} as Partial<Record<Key, TriggerVariant>>;
		const sent = Date.now();
		for (const t of targets) {
			const counted = await countExecutions(n8n, t.workflowId, t.expected);
			options.log(`  ${t.key}: ${counted.count} executions of ${t.expected} expected, ${Math.round((Date.now() - sent) / 1000)} s after the last delivery`);
			const variant: TriggerVariant = {
				name: t.name,
				verifies: t.verifies,
				startsOnForged: t.startsOnForged,
				rounds: t.rounds,
				p50Ms: median(t.rounds.map((round) => round.p50Ms)),
				p99Ms: median(t.rounds.map((round) => round.p99Ms)),
				deliveriesPerSecond: median(t.rounds.map((round) => round.deliveriesPerSecond)),
				executionsExpected: t.expected,
				noAnswer: t.noAnswer,
				noAnswerErrors: t.noAnswerErrors,
				executionsCounted: counted.count,
				executionsNotSuccessful: counted.notSuccessful,
				executionStatuses: counted.statuses,
				firstExecutionError: counted.firstError,
				forgedSent: t.forgedSent,
				forgedRefused: t.forgedRefused,
				validAccepted: t.validAccepted,
				executionsForForged: Math.max(0, counted.count - t.validAccepted),
				cpu: cpuOf.get(t.key),
			};
			variant.accountedFor = accounted(variant);
			variants[t.key] = variant;
		}
		const trigger = variants.trigger!;
		const company = variants.triggerCompany;
		const companyDetails = company ? await companyCost(n8n, (await sandbox.control.requests({ method: 'GET', path: PORTFOLIO_PATH })).length, company, trigger, options) : undefined;
		return {
			concurrency: options.concurrency,
			deliveriesPerRound: options.deliveries,
			forgedPerRound: Math.floor(options.deliveries / options.forgedEvery),
			serviceTrigger: trigger,
			serviceTriggerNoMemory: variants.triggerNoMemory!,
			serviceTriggerCompany: company,
			companyDetails,
			stockWebhook: variants.stock!,
			stripeTrigger: variants.stripe,
			handChain: variants.handChain,
			p50Ratio: ratio(trigger.p50Ms, variants.stock!.p50Ms),
			p99Ratio: ratio(trigger.p99Ms, variants.stock!.p99Ms),
			throughputRatio: ratio(trigger.deliveriesPerSecond, variants.stock!.deliveriesPerSecond),
			p99RatioNoMemory: ratio(variants.triggerNoMemory!.p99Ms, variants.stock!.p99Ms),
			p99RatioVsStripe: variants.stripe ? ratio(trigger.p99Ms, variants.stripe.p99Ms) : undefined,
			p99RatioVsHandChain: variants.handChain ? ratio(trigger.p99Ms, variants.handChain.p99Ms) : undefined,
			// The target concerns the Service Trigger; the others' accounting is reported alongside.
			accountedFor: trigger.accountedFor! && variants.triggerNoMemory!.accountedFor!,
			stockAccountedFor: variants.stock!.accountedFor!,
			cpu: trigger.cpu,
			peerErrors: options.peers ? peerErrors : undefined,
		};
	} finally {
		await n8n?.stop();
		await stripe?.close();
		await sandbox.close();
	}
}

/** Adds a load's outcomes to the target's tallies: executions it must have started, forged refused, no answers. */
function tally(t: Target, result: LoadResult): void {
	for (const outcome of result.outcomes) {
		const starts = !outcome.forged || t.startsOnForged;
		const wanted = outcome.forged && t.verifies ? 401 : 200;
		if (outcome.status === 0) {
			// Unknown whether it reached n8n; a forged one never starts an execution of a trigger that verifies.
			if (starts) t.noAnswer++;
			const why = outcome.error ?? 'unknown';
			t.noAnswerErrors[why] = (t.noAnswerErrors[why] ?? 0) + 1;
		} else if (starts && outcome.status === wanted) {
			t.expected++;
		}
		if (!outcome.forged && outcome.status === 200) t.validAccepted++;
	}
	t.forgedSent += result.outcomes.filter((outcome) => outcome.forged).length;
	t.forgedRefused += result.outcomes.filter((outcome) => outcome.forged && outcome.status === 401).length;
}

/** Answers as expected, executions as expected (within the deliveries that got no answer), all successful, every forgery refused. */
function accounted(v: TriggerVariant): boolean {
	const wrongAnswers = (v.rounds ?? []).some((round) => Object.keys(round.unexpected).some((what) => !what.endsWith(' 0')));
	return (
		!wrongAnswers &&
		v.executionsCounted >= v.executionsExpected &&
		v.executionsCounted <= v.executionsExpected + v.noAnswer &&
		v.executionsNotSuccessful === 0 &&
		(!v.verifies || v.forgedRefused + forgedWithoutAnswer(v) === v.forgedSent)
	);
}

/**
 * n8n's CPU per accepted delivery (its execution included) and per refused one, each measured over
 * a round of that kind alone at the bench's concurrency, after n8n has gone quiet, with n8n's idle
 * CPU over the same time taken out.
 */
async function measureCpu(n8n: N8n, t: Target, options: TriggerOptions, acceptedOnly = false): Promise<DeliveryCpu> {
	const pid = n8nPid(n8n.port);
	const count = Math.min(options.deliveries, 500);
	const quiet = async () => {
		const executions = await countExecutions(n8n, t.workflowId, t.expected);
		return executions.count;
	};
	const idleMsPerMs = async () => {
		const [start, at] = [cpuMs(pid), Date.now()];
		await new Promise((resolve) => setTimeout(resolve, 3_000));
		return (cpuMs(pid) - start) / (Date.now() - at);
	};
	const measure = async (send: () => Promise<void>) => {
		await quiet();
		const idle = await idleMsPerMs();
		const [start, at] = [cpuMs(pid), Date.now()];
		await send();
		await quiet();
		return (cpuMs(pid) - start - idle * (Date.now() - at)) / count;
	};
	const forged = (kinds: string[]) =>
		buildDeliveries(count * 5, 1, t.signing, `cpu_${kinds.join('_').replace(/ /g, '')}`)
			.filter((delivery) => delivery.forgery && kinds.includes(delivery.forgery))
			.slice(0, count);
	const sendForged = async (kinds: string[], deliveries = forged(kinds)) => {
		const result = await sendDeliveries(t.url, n8n.ca, deliveries, options.concurrency);
		const refused = result.outcomes.filter((outcome) => outcome.status === 401).length;
		if (refused !== result.outcomes.length) throw new Error(`cpu round: ${refused} of ${result.outcomes.length} forged deliveries refused (answers: ${answers(result)})`);
		// Counted with the rounds' forgeries: the chain's executions for forged requests include these.
		t.forgedSent += result.outcomes.length;
		t.forgedRefused += refused;
		if (t.startsOnForged) t.expected += refused;
	};
	const acceptedMs = await measure(async () => {
		// Valid deliveries only: forgedEvery beyond the count leaves none out.
		const result = await sendDeliveries(t.url, n8n.ca, buildDeliveries(count, count + 1, t.signing, 'cpu_accepted'), options.concurrency);
		const accepted = result.outcomes.filter((outcome) => outcome.status === 200).length;
		if (accepted !== count) throw new Error(`cpu round: ${accepted} of ${count} valid deliveries accepted (answers: ${answers(result)})`);
		t.expected += accepted;
		t.validAccepted += accepted;
	});
	if (acceptedOnly) return { acceptedMs, refusedMs: Number.NaN, refusedBeforeSecretMs: Number.NaN, refusedRatio: Number.NaN, deliveries: count };
	const refusedMs = await measure(() => sendForged(['wrong secret', 'body changed after signing', 'corrupted v1']));
	const refusedBeforeSecretMs = await measure(() => sendForged(['stale timestamp', 'no signature']));
	const cpu: DeliveryCpu = { acceptedMs, refusedMs, refusedBeforeSecretMs, refusedRatio: refusedMs / acceptedMs, deliveries: count };
	if (t.key !== 'trigger') return cpu;
	const refusedAdversarialMs = await measure(() => sendForged([], adversarialDeliveries(count, t.signing, 'cpu_adversarial')));
	return { ...cpu, refusedAdversarialMs, adversarialRatio: refusedAdversarialMs / refusedMs };
}

/**
 * Add Company Details under load: portfolio reads per alert (every portfolio request the sandbox
 * answered, over every execution of the option-on workflow), and the newest executions read back
 * through n8n's API to show each carries the company's row.
 */
async function companyCost(n8n: N8n, portfolioRequests: number, on: TriggerVariant, off: TriggerVariant, options: TriggerOptions): Promise<CompanyDetailsCost> {
	const checked = 20;
	type Run = { data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } };
	type Detailed = { data: Array<{ data?: { resultData?: { runData?: Record<string, Run[]> } } }> };
	const query = new URLSearchParams({ workflowId: triggerCompanyWorkflowId, includeData: 'true', status: 'success', limit: String(checked) });
	const page = await n8n.api.request<Detailed>('GET', `/executions?${query}`);
	const items = page.data.map((execution) => execution.data?.resultData?.runData?.['Service Trigger']?.[0]?.data?.main?.[0]?.[0]?.json);
	const carries = (json: Record<string, unknown> | undefined) => {
		const company = json?.company as Record<string, unknown> | undefined;
		return company !== undefined && company.shared === true && company.ke === json?.ke && typeof company.name === 'string';
	};
	const withCompany = items.filter(carries).length;
	const executions = on.executionsCounted;
	const rowChanging = namedEvents.filter((type) => CHANGES_ROW.test(type)).length;
	const cost: CompanyDetailsCost = {
		portfolioCompanies: PORTFOLIO_COMPANIES,
		pageSize: options.portfolioPageSize,
		rowChangingShare: rowChanging / namedEvents.length,
		portfolioRequests,
		executions,
		requestsPerAlert: ratio(portfolioRequests, executions),
		checkedExecutions: items.length,
		withCompany,
		example: items.find(carries)?.company as Record<string, unknown> | undefined,
		p50RatioVsOff: ratio(on.p50Ms, off.p50Ms),
		p99RatioVsOff: ratio(on.p99Ms, off.p99Ms),
		offP99RangeMs: spread((off.rounds ?? []).map((round) => round.p99Ms)),
		onP99RangeMs: spread((on.rounds ?? []).map((round) => round.p99Ms)),
	};
	options.log(
		`  Add Company Details: ${portfolioRequests} portfolio requests for ${executions} executions (${cost.requestsPerAlert.toFixed(2)} a delivery); ` +
			`${withCompany} of ${items.length} newest executions carry company; p99 on/off ${cost.p99RatioVsOff.toFixed(2)}x`,
	);
	return cost;
}

/** A round's answers by status (0: none, with why), for an error saying what came instead. */
function answers(result: LoadResult): string {
	const counts = new Map<string, number>();
	for (const { status, error } of result.outcomes) {
		const what = status === 0 ? `no answer (${error ?? 'unknown'})` : String(status);
		counts.set(what, (counts.get(what) ?? 0) + 1);
	}
	return [...counts].map(([what, n]) => `${n} ${what}`).join(', ');
}

/** Forged deliveries that got no answer at all (neither refused nor accepted). */
function forgedWithoutAnswer(v: TriggerVariant): number {
	return (v.rounds ?? []).reduce((sum, round) => sum + (round.unexpected['forged answered 0'] ?? 0), 0);
}

function summariseRound(verifies: boolean, result: LoadResult): TriggerRound {
	const valid = result.outcomes.filter((outcome) => !outcome.forged);
	const unexpected: Record<string, number> = {};
	for (const outcome of result.outcomes) {
		const want = outcome.forged && verifies ? 401 : 200;
		if (outcome.status !== want) {
			const what = `${outcome.forged ? 'forged' : 'valid'} answered ${outcome.status}`;
			unexpected[what] = (unexpected[what] ?? 0) + 1;
		}
	}
	const latencies = valid.map((outcome) => outcome.ms);
	return {
		sent: result.outcomes.length,
		valid: valid.length,
		forged: result.outcomes.length - valid.length,
		p50Ms: percentile(latencies, 50),
		p99Ms: percentile(latencies, 99),
		meanMs: latencies.reduce((sum, ms) => sum + ms, 0) / latencies.length,
		deliveriesPerSecond: (result.outcomes.length * 1000) / result.wallMs,
		unexpected,
	};
}

/**
 * Executions of a workflow once all have finished. Waits until at least `expected` have stopped,
 * then a few seconds more and counts again, so that executions started by deliveries that should
 * have started none would show.
 */
async function countExecutions(
	n8n: N8n,
	workflowId: string,
	expected: number,
): Promise<{ count: number; notSuccessful: number; statuses: Record<string, number>; firstError?: string }> {
	const finished = async () => {
		const executions = await n8n.api.executions(workflowId, false);
		return executions.every((execution) => execution.stoppedAt !== null) ? executions : undefined;
	};
	await waitFor(
		async () => {
			const executions = await finished();
			return executions && executions.length >= expected ? executions : undefined;
		},
		// n8n answers onReceived at once and runs the executions after; under load they trail the
		// answers by minutes, so the count waits for the backlog to drain (bounded).
		{ what: `${expected} finished executions of ${workflowId}`, timeoutMs: 1_200_000, intervalMs: 2_000 },
	).catch(() => undefined);
	await new Promise((resolve) => setTimeout(resolve, 3_000));
	const executions = (await finished()) ?? (await n8n.api.executions(workflowId, false));
	const statuses: Record<string, number> = {};
	for (const execution of executions) statuses[execution.status] = (statuses[execution.status] ?? 0) + 1;
	const failed = executions.find((execution) => execution.status !== 'success');
	let firstError: string | undefined;
	if (failed) {
		const detail = await n8n.api
			.request<{ data?: { resultData?: { error?: { message?: string } } } }>('GET', `/executions/${failed.id}?includeData=true`)
			.catch(() => undefined);
		firstError = detail?.data?.resultData?.error?.message ?? `status ${failed.status}`;
	}
	return {
		count: executions.length,
		notSuccessful: executions.filter((execution) => execution.status !== 'success').length,
		statuses,
		firstError,
	};
}
