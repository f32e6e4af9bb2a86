/**
 * parseExactJson against JSON.parse on a 1 MiB decisions page: without big numbers (the fast path),
 * with UUIDs (which may send it down the scan), and with 20-digit registry numbers.
 *   bash scripts/toolchain.sh tsx bench/exactJson.ts
 */
import { randomUUID } from 'node:crypto';
import { parseExactJson } from '../nodes/shared/exactJson';

function page(kind: 'plain' | 'uuid' | 'big'): string {
	const rows: string[] = [];
	let size = 0;
	for (let i = 0; size < 1 << 20; i++) {
		const row = JSON.stringify({
			id: kind === 'uuid' ? randomUUID() : `dec_${i}`,
			ke: `KE${String(100000 + i)}`,
			decision: i % 3 === 0 ? 'approved' : 'declined',
			notes: `Reviewed the company's filings, score ${i % 97}.5 of 100; see "memo \\"${i}\\""`,
			decided_by: `reviewer${i % 13}@example.com`,
			decided_at: '2024-05-01T10:20:30Z',
			pack_id: `pack_${i % 50}`,
			amount: i * 1.25,
			registry_number: 1000000 + i,
		});
		rows.push(kind === 'big' && i % 10 === 0 ? row.replace(/"registry_number":\d+/, '"registry_number":18446744073709551084') : row);
		size += row.length + 1;
	}
	return `{"data":[${rows.join(',')}]}`;
}

function median(run: () => unknown, rounds = 40): number {
	const times: number[] = [];
	for (let r = 0; r < rounds; r++) {
		const start = process.hrtime.bigint();
		run();
		times.push(Number(process.hrtime.bigint() - start) / 1e6);
	}
	return times.sort((a, b) => a - b)[Math.floor(rounds / 2)];
}

for (const kind of ['plain', 'uuid', 'big'] as const) {
	const text = page(kind);
	for (let w = 0; w < 10; w++) { JSON.parse(text); parseExactJson(text); }
	const plain = median(() => JSON.parse(text));
	const exact = median(() => parseExactJson(text));
	console.log(`${kind.padEnd(6)} ${(text.length / 1048576).toFixed(2)} MiB  JSON.parse ${plain.toFixed(2)} ms  parseExactJson ${exact.toFixed(2)} ms  (${((exact / plain - 1) * 100).toFixed(1)}%)`);
}
