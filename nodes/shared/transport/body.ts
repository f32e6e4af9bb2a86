/**
 * Reading answer bodies with an idle timeout and a size cap. The HTTP helper hands every body over
 * as a stream, so a Service that stops sending mid-answer, or sends without end, costs a bounded
 * wait and bounded memory. Typed structurally: community nodes may not import node:stream.
 */
import { sleep } from 'n8n-workflow';

export interface BodyStream extends AsyncIterable<unknown> {
	resume(): unknown;
	destroy(error?: Error): unknown;
}

/** Why a body could not be read after the Service had answered; never a reason to send again. */
export class BodyReadError extends Error {
	constructor(
		message: string,
		readonly kind: 'idle' | 'too-large' | 'slow',
	) {
		super(message);
	}
}

export function isStream(body: unknown): body is BodyStream {
	return typeof (body as BodyStream | undefined)?.resume === 'function';
}

/** Releases a body nobody will read, so its connection does not linger. */
export function discardBody(body: unknown): void {
	if (isStream(body)) body.destroy();
}

/**
 * The chunks of `source`, failing with an idle BodyReadError when the next chunk takes longer than
 * `idleMs`. Only time spent waiting for the Service counts, not the consumer's own work.
 */
export async function* idleGuarded(
	source: BodyStream,
	idleMs: number,
	deadline?: { at: number; ms: number },
	maxBytes?: { bytes: number; what: string },
): AsyncGenerator<Buffer> {
	let size = 0;
	const iterator = source[Symbol.asyncIterator]();
	let waitingSince: number | undefined;
	const startedAt = Date.now();
	let finished = false;
	// n8n hands the body over wrapped in a stream whose destroy() waits for the pending read, so a
	// stalled read is abandoned through this promise rather than through destroy() alone.
	let giveUp: (error: BodyReadError) => void = () => undefined;
	const idle = new Promise<never>((_, reject) => {
		giveUp = reject;
	});
	idle.catch(() => undefined);
	const stop = (error: BodyReadError) => {
		giveUp(error);
		source.destroy(error);
	};
	// One short sleep at a time (node code may not hold timers of its own); ends with the body.
	const tick = Math.max(Math.min(idleMs / 4, 1000), 5);
	const watch = async () => {
		while (!finished) {
			await sleep(tick);
			if (finished) return;
			const now = Date.now();
			const silent = waitingSince === undefined ? 0 : now - waitingSince;
			if (silent >= idleMs) return stop(stalled(idleMs));
			// A Service that sends a byte now and then is bounded too: by the whole answer's deadline.
			if (deadline !== undefined && now >= deadline.at) {
				// Ended by the deadline in a silence longer than the answer was sending before it: the cause is the stall.
				if (waitingSince !== undefined && silent > waitingSince - startedAt) return stop(stalled(silent));
				return stop(
					new BodyReadError(`the Service took longer than ${Math.round(deadline.ms / 1000)} s, the Request Timeout, to send its whole answer`, 'slow'),
				);
			}
		}
	};
	void watch();
	let done = false;
	try {
		for (;;) {
			waitingSince = Date.now();
			const pending = iterator.next();
			pending.catch(() => undefined);
			const next = await Promise.race([pending, idle]);
			waitingSince = undefined;
			if (next.done) {
				done = true;
				return;
			}
			const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value as Uint8Array);
			size += chunk.length;
			if (maxBytes !== undefined && size > maxBytes.bytes) {
				throw new BodyReadError(`the file is larger than ${formatBytes(maxBytes.bytes)}, the ${maxBytes.what}`, 'too-large');
			}
			yield chunk;
		}
	} finally {
		finished = true;
		if (!done) source.destroy();
	}
}

/**
 * The whole body, failing once it grows past `maxBytes` (the rest is not read), or when it is not
 * whole by `deadline` (the request's start plus the Request Timeout).
 */
export async function readCapped(body: unknown, idleMs: number, maxBytes: number, deadline: { at: number; ms: number }): Promise<Buffer> {
	if (Buffer.isBuffer(body)) return body;
	if (typeof body === 'string') return Buffer.from(body);
	if (!isStream(body)) return Buffer.alloc(0);
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of idleGuarded(body, idleMs, deadline)) {
		size += chunk.length;
		if (size > maxBytes) throw tooLarge(maxBytes);
		chunks.push(chunk);
	}
	return Buffer.concat(chunks, size);
}

/** A stall, in words: whole seconds from 10 s, else tenths. */
function stalled(silentMs: number): BodyReadError {
	const seconds = silentMs >= 10_000 ? Math.round(silentMs / 1000) : Math.round(silentMs / 100) / 10;
	return new BodyReadError(`the Service sent nothing for ${seconds} s in the middle of its answer`, 'idle');
}

export function tooLarge(maxBytes: number): BodyReadError {
	return new BodyReadError(`the answer is larger than ${formatBytes(maxBytes)}, the Max Response Size`, 'too-large');
}

function formatBytes(bytes: number): string {
	return bytes >= 1024 * 1024 ? `${+(bytes / 1024 / 1024).toFixed(2)} MiB` : `${bytes} bytes`;
}

/**
 * The first `maxBytes` of a body and whether there was more: the rest is not read, the stream is
 * released. For answers looked at, never passed on whole (Check Settings' probes).
 */
export async function readPrefix(body: unknown, idleMs: number, maxBytes: number, deadline: { at: number; ms: number }): Promise<{ bytes: Buffer; truncated: boolean }> {
	if (!isStream(body)) {
		const whole = Buffer.isBuffer(body) ? body : typeof body === 'string' ? Buffer.from(body) : Buffer.alloc(0);
		return { bytes: whole.subarray(0, maxBytes), truncated: whole.length > maxBytes };
	}
	const chunks: Buffer[] = [];
	let size = 0;
	// Leaving the loop ends idleGuarded, which destroys the stream: nothing more is read.
	for await (const chunk of idleGuarded(body, idleMs, deadline)) {
		if (size + chunk.length > maxBytes) {
			chunks.push(chunk.subarray(0, maxBytes - size));
			return { bytes: Buffer.concat(chunks, maxBytes), truncated: true };
		}
		size += chunk.length;
		chunks.push(chunk);
	}
	return { bytes: Buffer.concat(chunks, size), truncated: false };
}
