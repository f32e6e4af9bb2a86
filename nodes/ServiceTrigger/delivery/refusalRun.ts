/**
 * Signed deliveries refused in a row: the Service retries each for 24 hours and then gives up, so a
 * setting that refuses every genuine alert must show where the user looks, not only in the log. The
 * third refusal in a row (no accepted one between) starts one execution that fails in words naming
 * the likely cause; at most one per trigger every 10 minutes, so a forger cannot make more. Counted
 * per n8n process. Pure: no n8n types.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { BoundedMemory } from '../boundedMemory';
import type { RefusalReason } from '../verify/verdict';

export const REFUSALS_SHOWN_AFTER = 3;
export const REFUSAL_RUN_SHOWN_EVERY_MS = 10 * 60_000;

const MARK = '__serviceTriggerRefusalRun';

/** Refusals of deliveries that were signed and well-formed: a setting, the secret, the clock or the body. */
const LIKELY_CAUSE: Partial<Record<RefusalReason, (detail?: string) => string>> = {
	secret_encoding: (detail) => `the credential's Secret Encoding: set it to ${detail ?? 'Detect'} (or Detect)`,
	mismatch: () =>
		"the signing secret (the endpoint was created again elsewhere, or the credential's Webhook Signing Secret is not this endpoint's), its encoding (Secret Encoding on Detect tries every reading), or something between the Service and n8n changing the body",
	stale: () => "the clocks: the Service's and this n8n host's differ by more than 300 s, or deliveries are held up on the way",
	future: () => "the clocks: the Service's and this n8n host's differ by more than 300 s",
	unit_seconds: () => "the credential's Signature Timestamp Unit: set it to Detect",
	unit_milliseconds: () => "the credential's Signature Timestamp Unit: set it to Detect",
	no_signature: () => "the credential's Signature Encoding: set it to Detect",
};

export interface RefusalRun {
	count: number;
	since: string;
	words: string;
	cause: string;
}

export class RefusalRuns {
	private readonly runs = new BoundedMemory<{ count: number; since: number }>(10_000, 24 * 60 * 60_000);
	private readonly shown = new BoundedMemory<true>(10_000, REFUSAL_RUN_SHOWN_EVERY_MS);

	/** Counts a refusal; the run to show when this one makes it long enough and none was shown lately. */
	refused(trigger: string, reason: RefusalReason, words: string, nowMs: number, detail?: string): RefusalRun | undefined {
		const cause = LIKELY_CAUSE[reason];
		// An unsigned or malformed request (a scan, a probe) is not a genuine alert lost: neither counted nor a reason to reset.
		if (cause === undefined) return undefined;
		const run = this.runs.get(trigger, nowMs) ?? { count: 0, since: nowMs };
		run.count++;
		this.runs.set(trigger, run, nowMs);
		if (run.count < REFUSALS_SHOWN_AFTER || this.shown.get(trigger, nowMs) !== undefined) return undefined;
		this.shown.set(trigger, true, nowMs);
		return { count: run.count, since: new Date(run.since).toISOString(), words, cause: cause(detail) };
	}

	accepted(trigger: string): void {
		this.runs.delete(trigger);
	}

	forgetAll(): void {
		this.runs.clear();
		this.shown.clear();
	}
}

/** One per n8n process. */
export const refusalRuns = new RefusalRuns();

/** The one item of the execution a run of refusals starts. */
export function refusalRunItem(run: RefusalRun): INodeExecutionData {
	return { json: { [MARK]: { ...run } } };
}

/** The run an execution was started to show, if it was (a delivery's item never has the mark). */
export function refusalRunIn(items: INodeExecutionData[]): RefusalRun | undefined {
	const marked = items.length === 1 ? items[0].json[MARK] : undefined;
	if (marked === null || typeof marked !== 'object' || Array.isArray(marked)) return undefined;
	const { count, since, words, cause } = marked as Record<string, unknown>;
	return typeof count === 'number' && typeof since === 'string' && typeof words === 'string' && typeof cause === 'string' ? { count, since, words, cause } : undefined;
}

/** The error the execution fails with, in words for the execution list. */
export function refusalRunError(run: RefusalRun): { message: string; description: string } {
	return {
		message: `The Service Trigger refused ${run.count} signed deliveries in a row: alerts are not reaching this workflow`,
		description: `Each was answered 401, since ${run.since}. The last: ${run.words}. Likely cause: ${run.cause}. The Service retries a refused alert for 24 hours, then drops it: fix this, then check the Service for alerts since ${run.since}.`,
	};
}
