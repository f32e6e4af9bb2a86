/**
 * Alerts this n8n process has answered 2xx for and started an execution for, per trigger.
 *
 * The lasting memory of passed-on alerts is written by the execution into static data, which n8n
 * saves only when the execution ends. A redelivery can arrive before that (the Service timed out
 * waiting for the first answer, or the workflow is slow): this memory covers that window within
 * one process. It holds an alert only once the Service was told 2xx, so a delivery that n8n failed
 * to start (answered 5xx) is never mistaken for one passed on, and its retry starts the workflow.
 *
 * Bounded like the static-data memory, and in the number of triggers. Pure: no n8n types, no clock.
 */
import { DEFAULT_MEMORY_LIMITS, hasSeenAlert, liveAlerts, rememberAlert, type SeenAlerts } from './redeliveryMemory';

export const MAX_TRIGGERS = 1000;

export class AnsweredAlerts {
	private readonly byTrigger = new Map<string, SeenAlerts>();

	constructor(
		private readonly maxTriggers = MAX_TRIGGERS,
		private readonly limits = DEFAULT_MEMORY_LIMITS,
	) {}

	has(trigger: string, alertId: string, nowMs: number): boolean {
		const seen = this.byTrigger.get(trigger);
		return seen !== undefined && hasSeenAlert(liveAlerts(seen, nowMs, this.limits), alertId);
	}

	remember(trigger: string, alertId: string, nowMs: number): void {
		const seen = rememberAlert(this.byTrigger.get(trigger), alertId, nowMs, this.limits);
		// Re-inserted so the Map's order is least recently answered first: that one goes first.
		this.byTrigger.delete(trigger);
		this.byTrigger.set(trigger, seen);
		while (this.byTrigger.size > this.maxTriggers) {
			const oldest = this.byTrigger.keys().next().value as string;
			this.byTrigger.delete(oldest);
		}
	}

	/** As a new process starts: nothing answered yet. */
	forgetAll(): void {
		this.byTrigger.clear();
	}

	get triggers(): number {
		return this.byTrigger.size;
	}
}
