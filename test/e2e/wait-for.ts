import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
	/** What is awaited, for the error message. */
	what: string;
	timeoutMs: number;
	intervalMs?: number;
}

/** Thrown by a probe to end the wait at once (the awaited thing can no longer happen). */
export class GiveUp extends Error {}

/**
 * Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`:
 * every wait in the e2e tests is bounded. The last probe error is kept for the message.
 */
export async function waitFor<T>(probe: () => Promise<T | undefined>, options: WaitOptions): Promise<T> {
	const deadline = Date.now() + options.timeoutMs;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await probe();
			if (value !== undefined) return value;
		} catch (error) {
			if (error instanceof GiveUp) throw error;
			lastError = error;
		}
		if (Date.now() >= deadline) {
			const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
			throw new Error(`Timed out after ${options.timeoutMs} ms waiting for ${options.what}${cause}`);
		}
		await sleep(options.intervalMs ?? 250);
	}
}
