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
import { decodeSigningSecret } from '../nodes/ServiceTrigger/verify/signingSecret';
import { buildDeliveries, serviceSigning, type Signing } from './deliveries';
import { PORTFOLIO_COMPANIES } from './deliveryBody';
import { HAND_CHAIN_PATH, HAND_CHAIN_WORKFLOW_ID, handChainCredential, handChainWorkflow } from './handChain';
import { startBenchSandbox } from './sandboxProcess';
import { warmPortfolio } from './sandboxPages';
import { median, ratio } from './stats';
import { startStripePeer, STRIPE_WEBHOOK_ID, STRIPE_WORKFLOW_ID, stripeCredential, stripeEvent, stripeTriggerWorkflow, type StripePeer } from './stripe/peer';
import {
	serviceTriggerWorkflow, STOCK_PATH, stockWebhookWorkflow, stockWorkflowId, TRIGGER_CREDENTIAL,
	triggerCompanyWorkflowId, triggerNoMemoryWorkflowId, triggerWebhookIds, triggerWorkflowId,
} from './triggerWorkflows';
import { sendDeliveries } from './webhookLoad';
import { accounted, countExecutions, summariseRound, tally } from './triggerRounds';
import { companyCost, measureCpu } from './triggerCost';
import type { DeliveryCpu, Key, Target, TriggerOptions, TriggerResult, TriggerVariant } from './triggerTypes';

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
			options.log(`  ${t.key}: ${counted.count} executions of ${t.expected} expected${counted.refusalRuns ? ` (and ${counted.refusalRuns} failed execution saying deliveries were refused in a row)` : ''}, ${Math.round((Date.now() - sent) / 1000)} s after the last delivery`);
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
