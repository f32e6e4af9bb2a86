/**
 * Writes to n8n's deduplication store, one at a time per trigger, and batched: n8n reads and
 * rewrites a trigger's whole stored list (up to 10,000 entries) on every call, without a lock. So
 * calls must not overlap (one would undo the other), and the executions that arrive while one write
 * is under way go together in the next, one read and one write for all of them instead of one each.
 * Pure: no n8n types.
 */

/** n8n's `checkProcessedAndRecord` for one trigger: records the keys, says which it had already. */
export type RecordKeys = (keys: string[]) => Promise<{ processed: Array<string | number> }>;

interface Request {
	keys: string[];
	resolve: (seenBefore: Set<string>) => void;
	reject: (error: unknown) => void;
}

interface Batch {
	requests: Request[];
	record: RecordKeys;
}

export class DeduplicationWrites {
	// Not a bounded memory: a trigger's entries go when its queue drains, so they count only writes under way.
	private readonly writing = new Set<string>();
	private readonly waiting = new Map<string, Batch>();

	/**
	 * Records `keys` for `trigger`, resolving to those recorded before: by an earlier write, or by an
	 * earlier request (or an earlier place in this one) within the same write. When the write fails,
	 * every request in it fails with that error.
	 */
	async record(trigger: string, keys: string[], record: RecordKeys): Promise<Set<string>> {
		return await new Promise<Set<string>>((resolve, reject) => {
			const batch = this.waiting.get(trigger) ?? { requests: [], record };
			batch.requests.push({ keys, resolve, reject });
			this.waiting.set(trigger, batch);
			if (!this.writing.has(trigger)) void this.drain(trigger);
		});
	}

	private async drain(trigger: string): Promise<void> {
		this.writing.add(trigger);
		try {
			for (let batch = this.take(trigger); batch !== undefined; batch = this.take(trigger)) await write(batch);
		} finally {
			this.writing.delete(trigger);
		}
	}

	private take(trigger: string): Batch | undefined {
		const batch = this.waiting.get(trigger);
		this.waiting.delete(trigger);
		return batch;
	}
}

async function write(batch: Batch): Promise<void> {
	const unique = [...new Set(batch.requests.flatMap((request) => request.keys))];
	let recordedBefore: Set<string>;
	try {
		recordedBefore = unique.length === 0 ? new Set() : new Set((await batch.record(unique)).processed.map(String));
	} catch (error) {
		for (const request of batch.requests) request.reject(error);
		return;
	}
	const claimed = new Set<string>();
	for (const request of batch.requests) {
		const seenBefore = new Set<string>();
		for (const key of request.keys) {
			if (recordedBefore.has(key) || claimed.has(key)) seenBefore.add(key);
			else claimed.add(key);
		}
		request.resolve(seenBefore);
	}
}

/** One per n8n process, shared by every Service Trigger in every workflow. */
export const deduplicationWrites = new DeduplicationWrites();
