/** What the trigger bench (trigger.ts) measures and reports, and one workflow's tallies under load. */
import type { Signing } from './deliveries';

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

export type Key = 'trigger' | 'triggerNoMemory' | 'triggerCompany' | 'stock' | 'stripe' | 'handChain';
/** One workflow under load, and its tallies so far. */
export interface Target extends Pick<TriggerVariant, 'name' | 'verifies' | 'noAnswer' | 'noAnswerErrors' | 'forgedSent' | 'forgedRefused'> {
	key: Key;
	workflowId: string;
	url: string;
	signing: Signing;
	startsOnForged: boolean;
	expected: number;
	validAccepted: number;
	rounds: TriggerRound[];
}
