import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { LONGEST_KEPT_ALERT_KEY, MEMORY_LIMITS, ProcessMemory, rememberedAlertKey } from '../../nodes/ServiceTrigger/delivery/redelivery';
import { RefusalLog } from '../../nodes/ServiceTrigger/verify/refusalLog';
import { readSignatureHeader } from '../../nodes/ServiceTrigger/verify/signatureHeader';

const T = 'wf\u0000node\u0000production';

describe('process memory of alerts being answered and answered', () => {
	test('a second copy while the first is in flight is told apart; a 2xx answer remembers, anything else releases', () => {
		const memory = new ProcessMemory();
		expect(memory.claim(T, 'al_1', 0)).toBe('new');
		expect(memory.claim(T, 'al_1', 1)).toBe('in-flight');
		memory.settle(T, 'al_1', false, 2);
		// Released: the Service's retry must start the workflow.
		expect(memory.claim(T, 'al_1', 3)).toBe('new');
		memory.settle(T, 'al_1', true, 4);
		// A later 'close' after the 2xx 'finish' changes nothing.
		memory.settle(T, 'al_1', false, 5);
		expect(memory.claim(T, 'al_1', 6)).toBe('answered');
		expect(memory.claim('other', 'al_1', 6)).toBe('new');
	});

	test('bounded: the oldest alert goes past the limit or after 25 hours', () => {
		const memory = new ProcessMemory({ maxAlerts: 2, maxAgeMs: 1000, maxTriggers: 10, storedAlerts: 10 });
		for (const id of ['a', 'b', 'c']) {
			memory.claim(T, id, 0);
			memory.settle(T, id, true, 0);
		}
		expect(memory.claim(T, 'a', 0)).toBe('new');
		expect(memory.claim(T, 'c', 500)).toBe('answered');
		expect(memory.claim(T, 'b', 1001)).toBe('new');
	});

	test('bounded in bytes: 1,000 alert ids of 1 MiB each hold at most 1,000 x 128 bytes of keys (docs/token-and-limits.md); two long ids differing in the last byte are two alerts', () => {
		const memory = new ProcessMemory();
		const MiB = 1024 * 1024;
		const long = (n: number, last = 'x') => `s:${String(n).padStart(8, '0')}${'a'.repeat(MiB - 10)}${last}`;
		// Once before measuring: what the first digest and entry load is not the ids'.
		memory.claim('warm-up', long(-1), 0);
		memory.settle('warm-up', long(-1), true, 0);
		const heapBefore = heapAfterGc();
		for (let n = 0; n < MEMORY_LIMITS.maxAlerts; n++) {
			const id = long(n);
			expect(memory.claim(T, id, n)).toBe('new');
			memory.settle(T, id, true, n);
		}
		expect(memory.heldKeyBytes(T, 1_000)).toBeLessThanOrEqual(MEMORY_LIMITS.maxAlerts * LONGEST_KEPT_ALERT_KEY * 2);
		// Kept as digests: 1,000 ids of 1 MiB (a GiB as sent) leave under 400 KB on the heap, bookkeeping included.
		expect(heapAfterGc() - heapBefore).toBeLessThan(400_000);
		// Every one is still known as passed on, and a copy differing only in its last byte is a new alert.
		for (const n of [0, 500, 999]) {
			expect(memory.claim(T, long(n), 2_000)).toBe('answered');
			expect(memory.claim(T, long(n, 'y'), 2_000)).toBe('new');
		}
		// Up to the bound an id is kept as sent; past it, as its digest (45 characters).
		expect(rememberedAlertKey(`s:${'a'.repeat(LONGEST_KEPT_ALERT_KEY - 2)}`)).toBe(`s:${'a'.repeat(LONGEST_KEPT_ALERT_KEY - 2)}`);
		expect(rememberedAlertKey(`s:${'a'.repeat(LONGEST_KEPT_ALERT_KEY - 1)}`)).toMatch(/^h:[\w-]{43}$/);
		// Text and bytes of the same characters stay apart.
		expect(rememberedAlertKey(`s:${'Q'.repeat(200)}`)).not.toBe(rememberedAlertKey(`b:${'Q'.repeat(200)}`));
	}, 120_000);
});

/** Heap in use after a full collection (gc exposed at run time: the test process is not started with --expose-gc). */
function heapAfterGc(): number {
	setFlagsFromString('--expose-gc');
	(runInNewContext('gc') as () => void)();
	return process.memoryUsage().heapUsed;
}

describe('refusal log lines', () => {
	test('one line per key per minute; the next line carries the count refused meanwhile', () => {
		const log = new RefusalLog(60_000);
		expect(log.note('k', 0)).toEqual({ log: true, suppressed: 0 });
		for (let i = 1; i <= 5; i++) expect(log.note('k', i * 1000)).toEqual({ log: false, suppressed: 0 });
		expect(log.note('other', 1000)).toEqual({ log: true, suppressed: 0 });
		expect(log.note('k', 60_000)).toEqual({ log: true, suppressed: 5 });
	});
});

describe('refusing from the header alone', () => {
	const now = 1_800_000_000;
	test.each([
		[undefined, 'no_header'],
		['v1=abc', 'no_timestamp'],
		['t=1e9,v1=abc', 'bad_timestamp'],
		[`t=${now - 301},v1=abc`, 'stale'],
		[`t=${now + 301},v1=abc`, 'future'],
		[`t=${(now - 301) * 1000},v1=abc`, 'stale'],
		[`t=${now * 1_000_000},v1=abc`, 'bad_timestamp'],
		[`t=${now - 300},v1=abc`, undefined],
	])('%s: %s', (header, reason) => {
		const fresh = { parts: { timestamps: [String(now - 300)], signatures: ['abc'] }, timestamp: now - 300, unit: 'seconds' };
		expect(readSignatureHeader(header, now)).toEqual(reason === undefined ? fresh : { problem: reason });
	});
});

describe('keys last read from the credential', () => {
	test('fresh for a minute, per trigger and per stored endpoint state', async () => {
		const { RecentKeys } = await import('../../nodes/ServiceTrigger/verify/recentKeys');
		const keys = new RecentKeys(60_000);
		const key = Buffer.from('k');
		keys.remember(T, 'sealed-1', { keys: [key], signatureEncoding: 'hex', source: 'stored' }, 0);
		expect(keys.fresh(T, 'sealed-1', 59_999)).toEqual({ keys: [key], signatureEncoding: 'hex', source: 'stored', at: 0 });
		expect(keys.fresh(T, 'sealed-1', 60_000)).toBeUndefined();
		expect(keys.fresh(T, 'sealed-2', 1)).toBeUndefined();
		expect(keys.fresh('other', 'sealed-1', 1)).toBeUndefined();
	});
});

describe("writes to n8n's deduplication store", () => {
	/** A store like n8n's: reads and rewrites the whole list per call; each call waits until released. */
	function slowStore() {
		const stored = new Set<string>();
		const calls: string[][] = [];
		const pending: Array<() => void> = [];
		const record = async (keys: string[]) => {
			calls.push(keys);
			await new Promise<void>((release) => pending.push(release));
			const processed = keys.filter((key) => stored.has(key));
			for (const key of keys) stored.add(key);
			return { processed };
		};
		const releaseNext = async () => {
			while (pending.length === 0) await new Promise((next) => setImmediate(next));
			pending.shift()!();
		};
		return { record, calls, releaseNext };
	}

	test('requests arriving during a write go together in the next one; a key is new to the first request that brings it', async () => {
		const { DeduplicationWrites } = await import('../../nodes/ServiceTrigger/delivery/deduplicationWrites');
		const writes = new DeduplicationWrites();
		const store = slowStore();
		const first = writes.record(T, ['a'], store.record);
		const second = writes.record(T, ['b', 'a'], store.record);
		const third = writes.record(T, ['b', 'c', 'c'], store.record);
		await new Promise((next) => setImmediate(next));
		// Never two calls at once for one trigger.
		expect(store.calls).toEqual([['a']]);
		await store.releaseNext();
		expect(await first).toEqual(new Set());
		await store.releaseNext();
		expect(await second).toEqual(new Set(['a']));
		expect(await third).toEqual(new Set(['b', 'c']));
		expect(store.calls).toEqual([['a'], ['b', 'a', 'c']]);
	});

	test('triggers write side by side; a failed write fails only its own requests, and the next write goes ahead', async () => {
		const { DeduplicationWrites } = await import('../../nodes/ServiceTrigger/delivery/deduplicationWrites');
		const writes = new DeduplicationWrites();
		const failing = async () => {
			throw new Error('SQLITE_BUSY');
		};
		const other = slowStore();
		const refused = writes.record(T, ['a'], failing);
		const elsewhere = writes.record('other', ['a'], other.record);
		await expect(refused).rejects.toThrow('SQLITE_BUSY');
		expect(await writes.record(T, [], failing)).toEqual(new Set());
		await other.releaseNext();
		expect(await elsewhere).toEqual(new Set());
	});
});
