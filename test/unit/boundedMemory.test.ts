import fc from 'fast-check';

import { BoundedMemory } from '../../nodes/ServiceTrigger/boundedMemory';

describe('bounded memory', () => {
	test('bounded by size: one write past the bound drops the entry written longest ago', () => {
		const memory = new BoundedMemory<string>(2, 1000);
		memory.set('a', 'A', 0);
		memory.set('b', 'B', 1);
		memory.set('a', 'A2', 2); // rewriting 'a' makes 'b' the oldest
		memory.set('c', 'C', 3);
		expect(memory.size).toBe(2);
		expect(memory.get('b', 3)).toBeUndefined();
		expect(memory.get('a', 3)).toBe('A2');
		expect(memory.get('c', 3)).toBe('C');
	});

	test('bounded by age: an entry is given back until it is maxAgeMs old, by the caller\'s clock', () => {
		const memory = new BoundedMemory<string>(10, 1000);
		memory.set('a', 'A', 5000);
		expect(memory.get('a', 5999)).toBe('A');
		expect(memory.get('a', 6000)).toBeUndefined();
		// Reading does not renew: only a write does.
		memory.set('a', 'A2', 6000);
		expect(memory.get('a', 6999)).toBe('A2');
	});

	test('a write gives back the value it replaces, stale or not', () => {
		const memory = new BoundedMemory<number>(10, 1000);
		expect(memory.set('a', 1, 0)).toBeUndefined();
		expect(memory.set('a', 2, 5000)).toBe(1);
		memory.clear();
		expect(memory.size).toBe(0);
		expect(memory.get('a', 5000)).toBeUndefined();
	});

	test('bounded in bytes too: a write past maxBytes drops the oldest entries until it fits, counting what it drops', () => {
		const memory = new BoundedMemory<string>(100, 1000, { maxBytes: 10, sizeOf: (value) => value.length });
		memory.set('a', 'xxxx', 0);
		memory.set('b', 'yyyy', 1);
		expect(memory.heldBytes).toBe(8);
		memory.set('c', 'zzzz', 2);
		expect(memory.get('a', 2)).toBeUndefined();
		expect(memory.heldBytes).toBe(8);
		expect(memory.dropped).toBe(1);
		// Written over: its old bytes are given back first, and nothing is dropped.
		memory.set('c', 'zz', 3);
		expect(memory.heldBytes).toBe(6);
		expect(memory.dropped).toBe(1);
		// One entry larger than the bound is not held at all.
		memory.set('d', 'x'.repeat(11), 4);
		expect(memory.size).toBe(0);
		expect(memory.heldBytes).toBe(0);
	});

	test('prune releases by the caller\'s clock what is maxAgeMs old, oldest first, and keeps the rest', () => {
		const memory = new BoundedMemory<number>(10, 1000, { maxBytes: 100, sizeOf: () => 5 });
		memory.set('a', 1, 0);
		memory.set('b', 2, 500);
		memory.set('c', 3, 900);
		memory.prune(1499);
		expect(memory.size).toBe(2);
		expect(memory.heldBytes).toBe(10);
		memory.prune(1900);
		expect(memory.size).toBe(0);
		expect(memory.heldBytes).toBe(0);
		expect(memory.dropped).toBe(3);
	});

	test('property: random writes, reads and clock steps never hold more than the bound nor give back a stale or evicted entry', () => {
		const op = fc.oneof(
			fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 6 }), value: fc.integer() }),
			fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 6 }) }),
			fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 10 }) }),
		);
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 50 }), fc.array(op, { maxLength: 200 }), (maxEntries, maxAgeMs, ops) => {
				const memory = new BoundedMemory<number>(maxEntries, maxAgeMs);
				// The model: entries in write order, the oldest first, at most maxEntries of them.
				let model: Array<{ key: string; value: number; at: number }> = [];
				let now = 0;
				for (const step of ops) {
					if (step.kind === 'advance') now += step.ms;
					else if (step.kind === 'set') {
						model = [...model.filter((entry) => entry.key !== String(step.key)), { key: String(step.key), value: step.value, at: now }].slice(-maxEntries);
						memory.set(String(step.key), step.value, now);
					} else {
						const held = model.find((entry) => entry.key === String(step.key));
						const got = memory.get(String(step.key), now);
						expect(got).toBe(held !== undefined && now - held.at < maxAgeMs ? held.value : undefined);
					}
					expect(memory.size).toBeLessThanOrEqual(maxEntries);
					// Reading changes nothing, so every key is checked after every step.
					for (let key = 0; key <= 6; key++) {
						const held = model.find((entry) => entry.key === String(key));
						expect(memory.get(String(key), now)).toBe(held !== undefined && now - held.at < maxAgeMs ? held.value : undefined);
					}
				}
			}),
			{ seed: process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED), numRuns: Number(process.env.FC_RUNS ?? 200) },
		);
	});
});
