/**
 * Item 3: signed deliveries at a fixed concurrency into one real n8n, round by round in rotating
 * order between the Service Trigger (as added, and with Ignore Redeliveries off) and a stock
 * Webhook node without verification. Every delivery is accounted for: a Service Trigger must refuse
 * each forged one (401) and start exactly one execution per valid one; the stock Webhook starts one
 * per request, forged or not.
 */
import { startSandbox } from '../test/sandbox';
import { startN8n, type N8n } from '../test/e2e/n8n';
import { waitFor } from '../test/e2e/wait-for';
import { decodeSigningSecret } from '../nodes/ServiceTrigger/verify/signingSecret';
import { cpuMs, n8nPid } from './cpu';
import { buildDeliveries } from './deliveries';
import { median, percentile, ratio } from './stats';
import {
	serviceTriggerWorkflow, STOCK_PATH, stockWebhookWorkflow, stockWorkflowId, TRIGGER_CREDENTIAL,
	triggerNoMemoryWorkflowId, triggerWebhookIds, triggerWorkflowId,
} from './triggerWorkflows';
import { sendDeliveries, type LoadResult } from './webhookLoad';

export interface TriggerOptions {
	tarball: string;
	deliveries: number;
	forgedEvery: number;
	concurrency: number;
	rounds: number;
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
	/** Answers other than expected (valid: 200; forged: 401 from a Service Trigger, 200 from the stock node). */
	unexpected: Record<string, number>;
}

export interface TriggerVariant {
	name: string;
	verifies: boolean;
	/** Each round (raw file only). */
	rounds?: TriggerRound[];
	p50Ms: number;
	p99Ms: number;
	deliveriesPerSecond: number;
	/** Executions there must be: one per delivery answered 200 that should start one. */
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
}

export interface TriggerResult {
	concurrency: number;
	deliveriesPerRound: number;
	forgedPerRound: number;
	serviceTrigger: TriggerVariant;
	serviceTriggerNoMemory: TriggerVariant;
	stockWebhook: TriggerVariant;
	/** Service Trigger (as added) / stock Webhook, of the medians over rounds. */
	p50Ratio: number;
	p99Ratio: number;
	throughputRatio: number;
	/** The same with Ignore Redeliveries off. */
	p99RatioNoMemory: number;
	/** Both Service Trigger variants: every forged delivery refused, one execution per valid one. */
	accountedFor: boolean;
	/** n8n's CPU per delivery to the Service Trigger (as added), each kind on its own, idle CPU taken out. */
	cpu?: { acceptedMs: number; refusedMs: number; refusedBeforeSecretMs: number; refusedRatio: number; deliveries: number };
	stockAccountedFor: boolean;
}

type Key = 'trigger' | 'triggerNoMemory' | 'stock';
/** One workflow under load, and its tallies so far. */
interface Target extends Pick<TriggerVariant, 'name' | 'verifies' | 'noAnswer' | 'noAnswerErrors' | 'forgedSent' | 'forgedRefused'> {
	key: Key;
	workflowId: string;
	url: string;
	expected: number;
	rounds: TriggerRound[];
}

const WARM_UP = 50;

export async function benchTrigger(options: TriggerOptions): Promise<TriggerResult> {
	const sandbox = await startSandbox({ seed: 'empty' });
	let n8n: N8n | undefined;
	try {
		n8n = await startN8n({
			trustedCas: [sandbox.ca],
			communityPackages: [options.tarball],
			// Thousands of executions: keep every one so they can all be counted.
			env: { EXECUTIONS_DATA_PRUNE: 'false', ...options.n8nEnv },
		});
		await n8n.importCredentials([
			{ ...TRIGGER_CREDENTIAL, type: 'serviceApi', data: { baseUrl: sandbox.baseUrl, accessToken: sandbox.tokens.reader } },
		]);
		for (const workflow of [serviceTriggerWorkflow(true), serviceTriggerWorkflow(false), stockWebhookWorkflow()]) {
			await n8n.importWorkflow(workflow);
			// Activating a Service Trigger registers its endpoint with the sandbox, which hands out the secret once.
			await n8n.api.activateWorkflow(workflow.id);
		}
		const endpointOf = (workflowId: string) =>
			waitFor(async () => sandbox.control.webhookEndpoints().find((e) => e.url.includes(triggerWebhookIds[workflowId])), {
				what: `the Service Trigger of ${workflowId} to register its endpoint`,
				timeoutMs: 30_000,
			});
		const withMemory = await endpointOf(triggerWorkflowId);
		const withoutMemory = await endpointOf(triggerNoMemoryWorkflowId);
		const keys = new Map([
			[withMemory.url, decodeSigningSecret(withMemory.secret, 'base64')],
			[withoutMemory.url, decodeSigningSecret(withoutMemory.secret, 'base64')],
		]);
		const target = (key: Key, name: string, workflowId: string, url: string, verifies: boolean): Target => ({
			key, name, workflowId, url, verifies, expected: 0, noAnswer: 0, noAnswerErrors: {}, forgedSent: 0, forgedRefused: 0, rounds: [],
		});
		const targets: Target[] = [
			target('trigger', 'Service Trigger (as added: verifies, Ignore Redeliveries on)', triggerWorkflowId, withMemory.url, true),
			target('triggerNoMemory', 'Service Trigger, Ignore Redeliveries off', triggerNoMemoryWorkflowId, withoutMemory.url, true),
			target('stock', 'stock Webhook node (no verification)', stockWorkflowId, n8n.api.webhookUrl(STOCK_PATH), false),
		];
		for (const { url } of targets) await n8n.api.waitForWebhook(url.slice(`${n8n.url}/webhook/`.length));
		// The stock node gets deliveries signed like the first trigger's; it checks nothing anyway.
		const keyFor = (t: Target) => keys.get(t.url) ?? keys.get(withMemory.url)!;

		const run = async (t: Target, valid: number, label: string, keep: boolean) => {
			const deliveries = buildDeliveries(valid, options.forgedEvery, keyFor(t), `${t.key}_${label}`);
			const result = await sendDeliveries(t.url, n8n!.ca, deliveries, options.concurrency);
			const round = summariseRound(t.verifies, result);
			for (const outcome of result.outcomes) {
				const starts = !outcome.forged || !t.verifies;
				if (outcome.status === 0) {
					// Unknown whether it reached n8n; a forged one never starts an execution of a Service Trigger.
					if (starts) t.noAnswer++;
					const why = outcome.error ?? 'unknown';
					t.noAnswerErrors[why] = (t.noAnswerErrors[why] ?? 0) + 1;
				} else if (starts && outcome.status === 200) {
					t.expected++;
				}
			}
			t.forgedSent += deliveries.length - valid;
			t.forgedRefused += result.outcomes.filter((outcome) => outcome.forged && outcome.status === 401).length;
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

		const cpu = await measureCpu(n8n, targets[0], keyFor(targets[0]), options);
		options.log(`  cpu per delivery: accepted ${cpu.acceptedMs.toFixed(2)} ms, refused ${cpu.refusedMs.toFixed(2)} ms (ratio ${cpu.refusedRatio.toFixed(3)}), refused from the header alone ${cpu.refusedBeforeSecretMs.toFixed(2)} ms`);

		const variants = {} as Record<Key, TriggerVariant>;
		const sent = Date.now();
		for (const t of targets) {
			const counted = await countExecutions(n8n, t.workflowId, t.expected);
			options.log(`  ${t.key}: ${counted.count} executions of ${t.expected} expected, ${Math.round((Date.now() - sent) / 1000)} s after the last delivery`);
			variants[t.key] = {
				name: t.name,
				verifies: t.verifies,
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
			};
		}
		// Answers other than the expected ones, apart from no answer at all (counted in noAnswer).
		const wrongAnswers = (v: TriggerVariant) =>
			(v.rounds ?? []).some((round) => Object.keys(round.unexpected).some((what) => !what.endsWith(' 0')));
		const accounted = (v: TriggerVariant) =>
			!wrongAnswers(v) &&
			v.executionsCounted >= v.executionsExpected &&
			v.executionsCounted <= v.executionsExpected + v.noAnswer &&
			v.executionsNotSuccessful === 0 &&
			(!v.verifies || v.forgedRefused + forgedWithoutAnswer(v) === v.forgedSent);
		return {
			concurrency: options.concurrency,
			deliveriesPerRound: options.deliveries,
			forgedPerRound: Math.floor(options.deliveries / options.forgedEvery),
			serviceTrigger: variants.trigger,
			serviceTriggerNoMemory: variants.triggerNoMemory,
			stockWebhook: variants.stock,
			p50Ratio: ratio(variants.trigger.p50Ms, variants.stock.p50Ms),
			p99Ratio: ratio(variants.trigger.p99Ms, variants.stock.p99Ms),
			throughputRatio: ratio(variants.trigger.deliveriesPerSecond, variants.stock.deliveriesPerSecond),
			p99RatioNoMemory: ratio(variants.triggerNoMemory.p99Ms, variants.stock.p99Ms),
			// The target concerns the Service Trigger; the stock node's accounting is reported alongside.
			accountedFor: accounted(variants.trigger) && accounted(variants.triggerNoMemory),
			stockAccountedFor: accounted(variants.stock),
			cpu,
		};
	} finally {
		await n8n?.stop();
		await sandbox.close();
	}
}

/**
 * n8n's CPU per accepted delivery (its execution included) and per refused one, each measured over
 * a round of that kind alone at the bench's concurrency, after n8n has gone quiet, with n8n's idle
 * CPU over the same time taken out.
 */
async function measureCpu(
	n8n: N8n,
	t: Target,
	key: Buffer,
	options: TriggerOptions,
): Promise<NonNullable<TriggerResult['cpu']>> {
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
		buildDeliveries(count * 5, 1, key, `cpu_${kinds.join('_').replace(/ /g, '')}`)
			.filter((delivery) => delivery.forgery && kinds.includes(delivery.forgery))
			.slice(0, count);
	const sendForged = async (kinds: string[]) => {
		const result = await sendDeliveries(t.url, n8n.ca, forged(kinds), options.concurrency);
		const refused = result.outcomes.filter((outcome) => outcome.status === 401).length;
		if (refused !== result.outcomes.length) throw new Error(`cpu round: ${refused} of ${result.outcomes.length} forged deliveries refused`);
	};
	const acceptedMs = await measure(async () => {
		// Valid deliveries only: forgedEvery beyond the count leaves none out.
		const result = await sendDeliveries(t.url, n8n.ca, buildDeliveries(count, count + 1, key, 'cpu_accepted'), options.concurrency);
		const accepted = result.outcomes.filter((outcome) => outcome.status === 200).length;
		if (accepted !== count) throw new Error(`cpu round: ${accepted} of ${count} valid deliveries accepted`);
		t.expected += accepted;
	});
	const refusedMs = await measure(() => sendForged(['wrong secret', 'body changed after signing', 'corrupted v1']));
	const refusedBeforeSecretMs = await measure(() => sendForged(['stale timestamp', 'no signature']));
	return { acceptedMs, refusedMs, refusedBeforeSecretMs, refusedRatio: refusedMs / acceptedMs, deliveries: count };
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
