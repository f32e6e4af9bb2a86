/**
 * Item 3: signed deliveries at a fixed concurrency into one real n8n, alternating between the
 * Service Trigger and a stock Webhook node (no verification) round by round. Every delivery is
 * accounted for: the trigger must refuse each forged one (401) and start exactly one execution per
 * valid one; the stock Webhook starts one per request, forged or not.
 */
import { startSandbox } from '../test/sandbox';
import { startN8n, type N8n } from '../test/e2e/n8n';
import { waitFor } from '../test/e2e/wait-for';
import { decodeSigningSecret } from '../nodes/shared/signingSecret';
import { buildDeliveries } from './deliveries';
import { median, percentile, ratio } from './stats';
import {
	serviceTriggerWorkflow, STOCK_PATH, stockWebhookWorkflow, stockWorkflowId, TRIGGER_CREDENTIAL, triggerWorkflowId,
} from './triggerWorkflows';
import { sendDeliveries, type LoadResult } from './webhookLoad';

export interface TriggerOptions {
	tarball: string;
	deliveries: number;
	forgedEvery: number;
	concurrency: number;
	rounds: number;
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
	/** Answers other than the expected ones (200 for valid; 401 from the trigger, 200 from the stock node for forged). */
	unexpected: Record<string, number>;
}

export interface TriggerVariant {
	name: string;
	rounds: TriggerRound[];
	p50Ms: number;
	p99Ms: number;
	deliveriesPerSecond: number;
	executionsExpected: number;
	executionsCounted: number;
	executionsNotSuccessful: number;
	forgedSent: number;
	forgedRefused: number;
}

export interface TriggerResult {
	concurrency: number;
	deliveriesPerRound: number;
	forgedPerRound: number;
	serviceTrigger: TriggerVariant;
	stockWebhook: TriggerVariant;
	/** Service Trigger / stock Webhook, of the medians. */
	p50Ratio: number;
	p99Ratio: number;
	throughputRatio: number;
	accountedFor: boolean;
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
			env: { EXECUTIONS_DATA_PRUNE: 'false' },
		});
		await n8n.importCredentials([
			{ ...TRIGGER_CREDENTIAL, type: 'serviceApi', data: { baseUrl: sandbox.baseUrl, accessToken: sandbox.tokens.reader } },
		]);
		await n8n.importWorkflow(serviceTriggerWorkflow());
		await n8n.importWorkflow(stockWebhookWorkflow());
		// Activation registers the trigger's endpoint with the sandbox, which hands out the secret once.
		await n8n.api.activateWorkflow(triggerWorkflowId);
		await n8n.api.activateWorkflow(stockWorkflowId);
		const endpoint = await waitFor(async () => sandbox.control.webhookEndpoints()[0], {
			what: 'the Service Trigger to register its endpoint',
			timeoutMs: 30_000,
		});
		const triggerPath = endpoint.url.slice(`${n8n.url}/webhook/`.length);
		await n8n.api.waitForWebhook(triggerPath);
		await n8n.api.waitForWebhook(STOCK_PATH);
		const key = decodeSigningSecret(endpoint.secret, 'base64');
		const urls = { trigger: endpoint.url, stock: n8n.api.webhookUrl(STOCK_PATH) };

		const expected = { trigger: 0, stock: 0 };
		const forged = { trigger: { sent: 0, refused: 0 }, stock: { sent: 0, refused: 0 } };
		const rounds: Record<'trigger' | 'stock', TriggerRound[]> = { trigger: [], stock: [] };
		const run = async (target: 'trigger' | 'stock', valid: number, label: string, keep: boolean) => {
			const deliveries = buildDeliveries(valid, options.forgedEvery, key, `${target}_${label}`);
			const result = await sendDeliveries(urls[target], n8n!.ca, deliveries, options.concurrency);
			const round = summariseRound(target, result);
			const forgedHere = deliveries.length - valid;
			expected[target] += target === 'trigger' ? valid : deliveries.length;
			forged[target].sent += forgedHere;
			forged[target].refused += result.outcomes.filter((outcome) => outcome.forged && outcome.status === 401).length;
			if (keep) rounds[target].push(round);
			return round;
		};
		await run('trigger', WARM_UP, 'warmup', false);
		await run('stock', WARM_UP, 'warmup', false);
		for (let r = 0; r < options.rounds; r++) {
			for (const target of r % 2 === 0 ? (['trigger', 'stock'] as const) : (['stock', 'trigger'] as const)) {
				const round = await run(target, options.deliveries, `r${r}`, true);
				options.log(
					`  ${target} round ${r + 1}/${options.rounds}: p50 ${round.p50Ms.toFixed(1)} ms, p99 ${round.p99Ms.toFixed(1)} ms, ` +
						`${Math.round(round.deliveriesPerSecond)}/s${Object.keys(round.unexpected).length ? `, unexpected ${JSON.stringify(round.unexpected)}` : ''}`,
				);
			}
		}

		const counted = {
			trigger: await countExecutions(n8n, triggerWorkflowId, expected.trigger),
			stock: await countExecutions(n8n, stockWorkflowId, expected.stock),
		};
		const variant = (target: 'trigger' | 'stock', name: string): TriggerVariant => ({
			name,
			rounds: rounds[target],
			p50Ms: median(rounds[target].map((round) => round.p50Ms)),
			p99Ms: median(rounds[target].map((round) => round.p99Ms)),
			deliveriesPerSecond: median(rounds[target].map((round) => round.deliveriesPerSecond)),
			executionsExpected: expected[target],
			executionsCounted: counted[target].count,
			executionsNotSuccessful: counted[target].notSuccessful,
			forgedSent: forged[target].sent,
			forgedRefused: forged[target].refused,
		});
		const serviceTrigger = variant('trigger', 'Service Trigger (verifies Service-Signature)');
		const stockWebhook = variant('stock', 'stock Webhook node (no verification)');
		const clean = (v: TriggerVariant) => v.rounds.every((round) => Object.keys(round.unexpected).length === 0);
		return {
			concurrency: options.concurrency,
			deliveriesPerRound: options.deliveries,
			forgedPerRound: Math.floor(options.deliveries / options.forgedEvery),
			serviceTrigger,
			stockWebhook,
			p50Ratio: ratio(serviceTrigger.p50Ms, stockWebhook.p50Ms),
			p99Ratio: ratio(serviceTrigger.p99Ms, stockWebhook.p99Ms),
			throughputRatio: ratio(serviceTrigger.deliveriesPerSecond, stockWebhook.deliveriesPerSecond),
			accountedFor:
				clean(serviceTrigger) &&
				clean(stockWebhook) &&
				serviceTrigger.executionsCounted === serviceTrigger.executionsExpected &&
				stockWebhook.executionsCounted === stockWebhook.executionsExpected &&
				serviceTrigger.forgedRefused === serviceTrigger.forgedSent &&
				serviceTrigger.executionsNotSuccessful === 0 &&
				stockWebhook.executionsNotSuccessful === 0,
		};
	} finally {
		await n8n?.stop();
		await sandbox.close();
	}
}

function summariseRound(target: 'trigger' | 'stock', result: LoadResult): TriggerRound {
	const valid = result.outcomes.filter((outcome) => !outcome.forged);
	const unexpected: Record<string, number> = {};
	for (const outcome of result.outcomes) {
		const want = outcome.forged && target === 'trigger' ? 401 : 200;
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
async function countExecutions(n8n: N8n, workflowId: string, expected: number): Promise<{ count: number; notSuccessful: number }> {
	const finished = async () => {
		const executions = await n8n.api.executions(workflowId, false);
		return executions.every((execution) => execution.stoppedAt !== null) ? executions : undefined;
	};
	await waitFor(async () => {
		const executions = await finished();
		return executions && executions.length >= expected ? executions : undefined;
	}, { what: `${expected} finished executions of ${workflowId}`, timeoutMs: 180_000, intervalMs: 1_000 }).catch(() => undefined);
	await new Promise((resolve) => setTimeout(resolve, 3_000));
	const executions = (await finished()) ?? (await n8n.api.executions(workflowId, false));
	return { count: executions.length, notSuccessful: executions.filter((execution) => execution.status !== 'success').length };
}
