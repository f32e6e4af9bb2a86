/** The trigger bench's accounting: every delivery's answer and execution tallied per target and round. */
import type { N8n } from '../test/e2e/n8n';
import { waitFor } from '../test/e2e/wait-for';
import { percentile } from './stats';
import type { Target, TriggerRound, TriggerVariant } from './triggerTypes';
import type { LoadResult } from './webhookLoad';

/** Adds a load's outcomes to the target's tallies: executions it must have started, forged refused, no answers. */
export function tally(t: Target, result: LoadResult): void {
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
export function accounted(v: TriggerVariant): boolean {
	const wrongAnswers = (v.rounds ?? []).some((round) => Object.keys(round.unexpected).some((what) => !what.endsWith(' 0')));
	return (
		!wrongAnswers &&
		v.executionsCounted >= v.executionsExpected &&
		v.executionsCounted <= v.executionsExpected + v.noAnswer &&
		v.executionsNotSuccessful === 0 &&
		(!v.verifies || v.forgedRefused + forgedWithoutAnswer(v) === v.forgedSent)
	);
}

/** A round's answers by status (0: none, with why), for an error saying what came instead. */
export function answers(result: LoadResult): string {
	const counts = new Map<string, number>();
	for (const { status, error } of result.outcomes) {
		const what = status === 0 ? `no answer (${error ?? 'unknown'})` : String(status);
		counts.set(what, (counts.get(what) ?? 0) + 1);
	}
	return [...counts].map(([what, n]) => `${n} ${what}`).join(', ');
}

/** Forged deliveries that got no answer at all (neither refused nor accepted). */
export function forgedWithoutAnswer(v: TriggerVariant): number {
	return (v.rounds ?? []).reduce((sum, round) => sum + (round.unexpected['forged answered 0'] ?? 0), 0);
}

export function summariseRound(verifies: boolean, result: LoadResult): TriggerRound {
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
export async function countExecutions(
	n8n: N8n,
	workflowId: string,
	expected: number,
): Promise<{ count: number; notSuccessful: number; statuses: Record<string, number>; firstError?: string; refusalRuns: number }> {
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
	const all = (await finished()) ?? (await n8n.api.executions(workflowId, false));
	// The failed execution a run of refused signed deliveries starts (at most one per trigger per 10 minutes) tells
	// the user alerts are not arriving: counted apart, never as an execution a forged delivery started.
	const errors = new Map<string, string>();
	for (const execution of all.filter((e) => e.status !== 'success').slice(0, 50)) {
		const detail = await n8n.api
			.request<{ data?: { resultData?: { error?: { message?: string } } } }>('GET', `/executions/${execution.id}?includeData=true`)
			.catch(() => undefined);
		errors.set(String(execution.id), detail?.data?.resultData?.error?.message ?? `status ${execution.status}`);
	}
	const isRefusalRun = (id: unknown) => REFUSAL_RUN.test(errors.get(String(id)) ?? '');
	const executions = all.filter((execution) => !isRefusalRun(execution.id));
	const statuses: Record<string, number> = {};
	for (const execution of executions) statuses[execution.status] = (statuses[execution.status] ?? 0) + 1;
	const failed = executions.find((execution) => execution.status !== 'success');
	return {
		count: executions.length,
		notSuccessful: executions.filter((execution) => execution.status !== 'success').length,
		statuses,
		firstError: failed ? errors.get(String(failed.id)) ?? `status ${failed.status}` : undefined,
		refusalRuns: all.length - executions.length,
	};
}

/** The refusal run's message (nodes/ServiceTrigger/delivery/refusalRun.ts). */
const REFUSAL_RUN = /^The Service Trigger refused \d+ signed deliveries in a row/;
