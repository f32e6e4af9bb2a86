/**
 * Refusals are logged at most once per reason per minute per trigger, with how many were refused
 * meanwhile: an unauthenticated sender must not be able to flood n8n's log. Pure: no n8n types.
 */
import { BoundedMemory } from '../boundedMemory';

export const REFUSAL_LOG_WINDOW_MS = 60_000;

export class RefusalLog {
	private readonly windows: BoundedMemory<{ suppressed: number }>;

	constructor(windowMs = REFUSAL_LOG_WINDOW_MS, maxKeys = 10_000) {
		// At most 10,000 trigger and reason pairs, each window kept a minute from its logged line.
		this.windows = new BoundedMemory<{ suppressed: number }>(maxKeys, windowMs);
	}

	/** Whether to write a line for this refusal now, and how many like it went unlogged before it. */
	note(key: string, nowMs: number): { log: boolean; suppressed: number } {
		const window = this.windows.get(key, nowMs);
		if (window !== undefined) {
			window.suppressed++;
			return { log: false, suppressed: 0 };
		}
		const ended = this.windows.set(key, { suppressed: 0 }, nowMs);
		return { log: true, suppressed: ended?.suppressed ?? 0 };
	}

	forgetAll(): void {
		this.windows.clear();
	}
}

/** One per n8n process. */
export const refusalLog = new RefusalLog();
