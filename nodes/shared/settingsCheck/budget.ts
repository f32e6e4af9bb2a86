/**
 * Every request of a check goes through one budget: at most `limits.requests` GETs, all within
 * `limits.totalMs` by the caller's clock. Overrides found on the way (a Base URL, a sign-in) go with
 * every later request. Pure: the clock and the probe are passed in.
 */
import type { FieldOverrides, Probe, ProbeAnswer, ProbeRequest } from './types';
import { PROBE_LIMITS } from './types';

export type Limits = { readonly [K in keyof typeof PROBE_LIMITS]: number };

/** An answer, or why there is none: the budget is spent, or the request failed (network, deadline). */
export type Asked = { answer: ProbeAnswer; spent?: undefined; failed?: undefined } | { spent: string; answer?: undefined; failed?: undefined } | { failed: string; answer?: undefined; spent?: undefined };

/** Response headers that say something about rate limits, as the nodes read them (docs/service-choices.md). */
const RATE_LIMIT_HEADERS = ['retry-after', 'ratelimit', 'ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

export class ProbeBudget {
	used = 0;
	/** Overrides every later request carries (a Base URL found, a sign-in confirmed). */
	fields: Record<string, string> = {};
	/** Rate-limit header names seen on any answer, with the statuses they came with. */
	readonly rateLimitSeen = new Map<string, Set<number>>();
	answers = 0;
	private readonly deadline: number;

	constructor(
		private readonly probe: Probe,
		private readonly now: () => number,
		readonly limits: Limits = PROBE_LIMITS,
	) {
		this.deadline = now() + limits.totalMs;
	}

	/** Why no more can be asked, or undefined while there is room. */
	spent(): string | undefined {
		if (this.used >= this.limits.requests) return `the check's ${this.limits.requests} requests were used up before this could be asked`;
		if (this.deadline - this.now() <= 0) return `the check's ${seconds(this.limits.totalMs)} were used up before this could be asked`;
		return undefined;
	}

	async ask(request: ProbeRequest): Promise<Asked> {
		const spent = this.spent();
		if (spent !== undefined) return { spent };
		this.used++;
		const fields: FieldOverrides = { ...this.fields, ...request.fields };
		const timeoutMs = Math.max(1, Math.min(this.limits.requestMs, this.deadline - this.now()));
		try {
			const answer = await this.probe({ ...request, ...(Object.keys(fields).length ? { fields } : {}), timeoutMs });
			this.answers++;
			for (const name of RATE_LIMIT_HEADERS) {
				if (!answer.headers.has(name)) continue;
				const statuses = this.rateLimitSeen.get(name) ?? new Set<number>();
				statuses.add(answer.status);
				this.rateLimitSeen.set(name, statuses);
			}
			return { answer };
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			if (this.deadline - this.now() <= 0) return { spent: `the check's ${seconds(this.limits.totalMs)} ran out while this was asked` };
			return { failed: `the request failed without an answer (${message.length > 160 ? `${message.slice(0, 160)}…` : message})` };
		}
	}
}

function seconds(ms: number): string {
	return `${ms / 1000} seconds`;
}
