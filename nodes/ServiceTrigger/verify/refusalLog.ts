/**
 * Refusals are logged at most once per reason per minute per trigger, with how many were refused
 * meanwhile: an unauthenticated sender must not be able to flood n8n's log. Pure: no n8n types.
 */
export const REFUSAL_LOG_WINDOW_MS = 60_000;

export class RefusalLog {
	private readonly windows = new Map<string, { since: number; suppressed: number }>();

	constructor(
		private readonly windowMs = REFUSAL_LOG_WINDOW_MS,
		private readonly maxKeys = 10_000,
	) {}

	/** Whether to write a line for this refusal now, and how many like it went unlogged before it. */
	note(key: string, nowMs: number): { log: boolean; suppressed: number } {
		const window = this.windows.get(key);
		if (window && nowMs - window.since < this.windowMs) {
			window.suppressed++;
			return { log: false, suppressed: 0 };
		}
		this.windows.delete(key);
		this.windows.set(key, { since: nowMs, suppressed: 0 });
		if (this.windows.size > this.maxKeys) this.windows.delete(this.windows.keys().next().value as string);
		return { log: true, suppressed: window?.suppressed ?? 0 };
	}

	forgetAll(): void {
		this.windows.clear();
	}
}

/** One per n8n process. */
export const refusalLog = new RefusalLog();
