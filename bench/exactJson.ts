/**
 * parseExactJson against JSON.parse on a 1 MiB decisions page: without big numbers (the fast path),
 * with UUIDs, and with 20-digit registry numbers in every tenth row (the scan); alone, and as an
 * export reads a page (the token redacted from the text, the body parsed, the values redacted).
 * Then what that difference is of a whole export (issue 44: at most 5%): Decisions > Get Many of one
 * 4 MiB page, the real node in n8n-core's engine (test/harness) against the sandbox in this process.
 *   bash scripts/toolchain.sh tsx bench/exactJson.ts
 */
import './preferTs';
import '../test/setup/env';

import { randomUUID } from 'node:crypto';

import { parseExactJson } from '../nodes/shared/exactJson';
import { tokenRedactors } from '../nodes/shared/redaction';
import { READER, readerWorkflow, runWorkflow, trustCa } from '../test/harness';
import { startSandbox } from '../test/sandbox';
import { serviceApi } from '../test/sandbox/credential';

type Kind = 'plain' | 'uuid' | 'big';

function page(kind: Kind, bytes = 1 << 20): string {
	const rows: string[] = [];
	let size = 0;
	for (let i = 0; size < bytes; i++) {
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
		// Registry numbers a few apart, as sequential ids are: neighbours read as one double.
		rows.push(kind === 'big' && i % 10 === 0 ? row.replace(/"registry_number":\d+/, `"registry_number":${18446744073709551084n - BigInt(i)}`) : row);
		size += row.length + 1;
	}
	// Flat, as a body decoded from its bytes is.
	return Buffer.from(`{"data":[${rows.join(',')}]}`).toString('utf8');
}

const redactors = tokenRedactors('sk_live_0123456789abcdefABCDEF');
const asRead = (parse: (text: string) => unknown) => (text: string) => redactors.redactValue(parse(redactors.redact(text)));

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

/** Median CPU times of both, measured in alternation (a shared machine's load falls on both alike). */
function medians(text: string, plain: (text: string) => unknown, exact: (text: string) => unknown, rounds = 30): [number, number] {
	const times: [number[], number[]] = [[], []];
	// CPU time of 5 runs: what other processes take of the cores counts less than in wall time.
	const time = (run: (text: string) => unknown) => {
		const start = process.cpuUsage();
		for (let i = 0; i < 5; i++) run(text);
		const used = process.cpuUsage(start);
		return (used.user + used.system) / 5000;
	};
	for (let r = 0; r < rounds; r++) {
		times[0].push(time(plain));
		times[1].push(time(exact));
	}
	return [median(times[0]), median(times[1])];
}

/** Median CPU ms of Decisions > Get Many reading `body` as its one page, and the items it gave. */
async function exportCpu(body: string, runs: number): Promise<{ ms: number; items: number }> {
	const sandbox = await startSandbox({ seed: 'empty' });
	trustCa(sandbox.ca);
	const times: number[] = [];
	let items = 0;
	try {
		for (let r = 0; r < runs + 2; r++) {
			sandbox.control.failRoute({ path: '/v1/reader/exports/decisions', mode: 'answer', status: 200, contentType: 'application/json', body, times: 1 });
			const start = process.cpuUsage();
			const result = await runWorkflow(readerWorkflow({ resource: 'decision', operation: 'getAll', returnAll: true, format: 'json' }), {
				credentials: { serviceApi: serviceApi(sandbox) },
			});
			const used = process.cpuUsage(start);
			if (result.error(READER)) throw new Error(String(result.error(READER)?.message));
			items = result.output(READER).length;
			// The first two warm the engine up.
			if (r >= 2) times.push((used.user + used.system) / 1000);
		}
	} finally {
		await sandbox.close();
	}
	return { ms: median(times), items };
}

async function main(): Promise<void> {
	for (const kind of ['plain', 'uuid', 'big'] as const) {
		const text = page(kind);
		for (const [label, plain, exact] of [
			['parse', JSON.parse, parseExactJson],
			['as read', asRead(JSON.parse), asRead(parseExactJson)],
		] as const) {
			medians(text, plain, exact, 3);
			const [a, b] = medians(text, plain, exact);
			console.log(`${kind.padEnd(6)} ${label.padEnd(8)} JSON.parse ${a.toFixed(2)} ms  parseExactJson ${b.toFixed(2)} ms  (${((b / a - 1) * 100).toFixed(1)}%)`);
		}
	}
	// The whole export: the sandbox serves the page in this process, so its share counts in the export's time (a few ms of TLS).
	for (const kind of ['plain', 'uuid', 'big'] as const) {
		const text = page(kind, 4 << 20);
		const whole = await exportCpu(text, 9);
		const [a, b] = medians(text, asRead(JSON.parse), asRead(parseExactJson), 15);
		console.log(
			`${kind.padEnd(6)} export of ${(text.length / (1 << 20)).toFixed(1)} MiB (${whole.items} items): ${whole.ms.toFixed(0)} ms CPU; parseExactJson adds ${(b - a).toFixed(2)} ms = ${(((b - a) / whole.ms) * 100).toFixed(1)}% of it`,
		);
	}
}

void main();
