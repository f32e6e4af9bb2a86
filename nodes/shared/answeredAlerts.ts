/**
 * Alerts this n8n process has answered 2xx for and started an execution for, per trigger.
 *
 * The lasting memory of passed-on alerts is written by the execution into static data, which n8n
 * saves only when the execution ends. A redelivery can arrive before that (the Service timed out
 * waiting for the first answer, or the workflow is slow): this memory covers that window within
 * one process. It holds an alert only once the Service was told 2xx, so a delivery that n8n failed
 * to start (answered 5xx) is never mistaken for one passed on, and its retry starts the workflow.
 *
 * Bounded like the static-data memory, and in the number of triggers. Maps keep insertion order,
 * so the oldest alert and the least recently answered trigger are always first: every check and
 * every eviction is constant time, which matters under load. Pure: no n8n types, no clock.
 */
import { DEFAULT_MEMORY_LIMITS } from './redeliveryMemory';

export const MAX_TRIGGERS = 1000;

export class AnsweredAlerts {
	/** Per trigger: alert_id -> when it was answered (epoch ms), oldest first. */
	private readonly byTrigger = new Map<string, Map<string, number>>();

	constructor(
		private readonly maxTriggers = MAX_TRIGGERS,
		private readonly limits = DEFAULT_MEMORY_LIMITS,
	) {}

	has(trigger: string, alertId: string, nowMs: number): boolean {
		const answeredAt = this.byTrigger.get(trigger)?.get(alertId);
		return answeredAt !== undefined && nowMs - answeredAt <= this.limits.maxAgeMs;
	}

	remember(trigger: string, alertId: string, nowMs: number): void {
		const alerts = this.byTrigger.get(trigger) ?? new Map<string, number>();
		if (!alerts.has(alertId)) alerts.set(alertId, nowMs);
		for (const [oldest, answeredAt] of alerts) {
			if (alerts.size <= this.limits.maxEntries && nowMs - answeredAt <= this.limits.maxAgeMs) break;
			alerts.delete(oldest);
		}
		// Re-inserted so the least recently answered trigger is first: that one goes first.
		this.byTrigger.delete(trigger);
		this.byTrigger.set(trigger, alerts);
		while (this.byTrigger.size > this.maxTriggers) {
			const leastRecent = this.byTrigger.keys().next().value as string;
			this.byTrigger.delete(leastRecent);
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
