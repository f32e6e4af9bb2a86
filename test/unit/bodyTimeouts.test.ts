import { BodyReadError, readCapped } from '../../nodes/shared/transport/body';

/**
 * Timeouts reported by their cause (issue 36, item 6): with the idle bound and the whole answer's
 * deadline set to the same Request Timeout, the deadline often comes first; an answer that stalled is
 * still named a stall, and one that keeps dripping is named slow.
 */

/** A body stream: `chunks` sent at the given delays (ms after the previous one), then silence or the end. */
function body(schedule: Array<{ after: number; bytes: string }>, then: 'stall' | 'end') {
	let destroyed = false;
	return {
		resume: () => undefined,
		destroy: () => {
			destroyed = true;
		},
		async *[Symbol.asyncIterator]() {
			for (const { after, bytes } of schedule) {
				await new Promise((resolve) => setTimeout(resolve, after));
				if (destroyed) return;
				yield Buffer.from(bytes);
			}
			if (then === 'stall') await new Promise(() => undefined);
		},
	};
}

async function failure(stream: ReturnType<typeof body>, idleMs: number, deadlineMs: number): Promise<BodyReadError> {
	const started = Date.now();
	const error = await readCapped(stream, idleMs, 1024 * 1024, { at: started + deadlineMs, ms: deadlineMs }).then(
		() => undefined,
		(caught: unknown) => caught,
	);
	expect(error).toBeInstanceOf(BodyReadError);
	return error as BodyReadError;
}

describe('an answer ended by its Request Timeout', () => {
	it.each([0, 40, 120])('stalled after its first bytes (sent %d ms into the answer): named a stall whichever bound ends it', async (after) => {
		const error = await failure(body([{ after, bytes: '{"data": [' }], 'stall'), 400, 400);
		expect(error.kind).toBe('idle');
		expect(error.message).toMatch(/^the Service sent nothing for 0\.\d s in the middle of its answer$/);
	});

	it('sending no body byte at all: a stall', async () => {
		const error = await failure(body([], 'stall'), 400, 400);
		expect(error.kind).toBe('idle');
	});

	it('stalled longer than the idle bound before a longer deadline: the idle words with the idle span', async () => {
		const error = await failure(body([{ after: 0, bytes: '{' }], 'stall'), 200, 5_000);
		expect(error).toEqual(new BodyReadError('the Service sent nothing for 0.2 s in the middle of its answer', 'idle'));
	});

	it('dripping a byte every 20 ms, never pausing as long as the idle bound: slow, not stalled', async () => {
		const drip = Array.from({ length: 1_000 }, () => ({ after: 20, bytes: 'x' }));
		const error = await failure(body(drip, 'end'), 400, 400);
		expect(error.kind).toBe('slow');
		expect(error.message).toMatch(/^the Service took longer than \d+ s, the Request Timeout, to send its whole answer$/);
	});

	it('sending steadily for most of the deadline, then pausing briefly: slow (the silence is the lesser part)', async () => {
		const steady = [...Array.from({ length: 15 }, () => ({ after: 20, bytes: 'x' }))];
		const error = await failure(body(steady, 'stall'), 400, 400);
		expect(error.kind).toBe('slow');
	});
});
