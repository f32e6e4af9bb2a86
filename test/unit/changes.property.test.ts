import fc from 'fast-check';

import type { Change, ChangeKind, Row } from '../../nodes/ServiceChangesTrigger/keys';
import { CHANGE_KINDS } from '../../nodes/ServiceChangesTrigger/keys';
import type { PollLimits } from '../../nodes/ServiceChangesTrigger/limits';
import type { ExportSource, PollOptions } from '../../nodes/ServiceChangesTrigger/readPages';
import { pollExport } from '../../nodes/ServiceChangesTrigger/readPages';
import type { StoredState } from '../../nodes/ServiceChangesTrigger/state';
import { CsvPages } from '../../nodes/shared/csv';
import type { PageAnswer, PageRequest } from '../../nodes/shared/paging';
import { runs } from '../property/fc';

/**
 * The Service Changes Trigger's promise, over sequences of portfolio states and polls that fail
 * part-way (a page that does not arrive, an unreadable page, Max Pages, a KE listed twice): the
 * changes emitted, applied in order to the first complete state, give the last complete state; each
 * `changed` names exactly the fields that changed with their earlier values; a poll that failed
 * emits nothing and leaves the stored state as it was; the Changes filter only filters.
 */

const KES = Array.from({ length: 10 }, (_, i) => `KE-${i + 1}`);
/** The followed exports drawn, each with the names its key column may go by (the other columns as in the portfolio). */
const KEY_COLUMN = { portfolio: ['ke', 'KE', 'company_ke', 'Ke Number', 'organisation'], invitations: ['invitation_id'] } as const;
type Followed = keyof typeof KEY_COLUMN;
/** The key column of the export the current run draws. */
let K: string = KEY_COLUMN.portfolio[0];

/** One moment of the Service's portfolio: its columns and its rows in export order. */
interface Portfolio {
	columns: string[];
	rows: Row[];
}

type Fault = { kind: 'none' } | { kind: 'fetch' | 'unreadable' | 'duplicate'; page: number } | { kind: 'maxPages' | 'maxRows' | 'maxPollTime' | 'maxStateSize' };

interface Poll {
	portfolio: Portfolio;
	fault: Fault;
	changes: readonly ChangeKind[];
}

const cell = fc.stringMatching(/^[a-z ,"=1-3]{0,6}$/);
const portfolioOf = (keyColumn: string): fc.Arbitrary<Portfolio> => fc
	.record({
		kes: fc.shuffledSubarray(KES),
		extra: fc.boolean(),
		values: fc.array(fc.tuple(cell, fc.constantFrom('1', '2', '3'), fc.constantFrom('active', 'struck_off'), fc.constantFrom('true', 'false'), cell), {
			minLength: KES.length,
			maxLength: KES.length,
		}),
	})
	.map(({ kes, extra, values }) => {
		const base = [keyColumn, 'company_name', 'tier', 'status', 'decision_due'];
		const columns = extra ? [...base, 'region'] : base;
		const rows = kes.map((ke) => {
			const [name, tier, status, due, region] = values[KES.indexOf(ke)];
			const row: Row = { [keyColumn]: ke, company_name: name, tier, status, decision_due: due };
			if (extra) row.region = region;
			return row;
		});
		return { columns, rows };
	});

const PAGE_SIZE = 3;

const fault: fc.Arbitrary<Fault> = fc.oneof(
	{ weight: 3, arbitrary: fc.constant<Fault>({ kind: 'none' }) },
	fc.record({ kind: fc.constantFrom<'fetch' | 'unreadable' | 'duplicate'>('fetch', 'unreadable', 'duplicate'), page: fc.nat(4) }),
	fc.constant<Fault>({ kind: 'maxPages' }),
	// The trigger's own bounds (limits.ts): one row short of the export, no time at all, less than an empty state.
	fc.constantFrom<Fault>({ kind: 'maxRows' }, { kind: 'maxPollTime' }, { kind: 'maxStateSize' }),
);

/** The Options' bounds for a poll with fault `f` over `rows` rows: generous unless the fault is one of them. */
function limitsFor(f: Fault, rows: number): PollLimits {
	let clock = 0;
	return {
		maxRows: f.kind === 'maxRows' ? Math.max(rows - 1, 0) : 1e9,
		maxPollMs: f.kind === 'maxPollTime' ? 0 : 1e9,
		maxStateBytes: f.kind === 'maxStateSize' ? 1 : 1e12,
		now: () => (clock += 1),
	};
}

/** The Option a bound's error names. */
const NAMED: Partial<Record<Fault['kind'], string>> = { maxRows: "this trigger's Max Rows", maxPollTime: "this trigger's Max Poll Time", maxStateSize: 'above its Max State Size' };

const pollOf = (keyColumn: string): fc.Arbitrary<Poll> => fc.record({
	portfolio: portfolioOf(keyColumn),
	fault,
	changes: fc.oneof({ weight: 3, arbitrary: fc.constant<readonly ChangeKind[]>(CHANGE_KINDS) }, fc.subarray([...CHANGE_KINDS])),
});

const quote = (value: unknown) => {
	const text = String(value);
	return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

class FetchFailed extends Error {}

/** The Service as the poll sees it: the portfolio in CSV pages of PAGE_SIZE rows, the header row on the first page only, and the fault. */
function serviceSource(state: Portfolio, f: Fault, requests: PageRequest[]): { source: ExportSource; pages: number; faulty: boolean } {
	const rows = [...state.rows];
	const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
	// A fault on a page the export does not have, or a KE twice in an empty portfolio, is no fault.
	const faulty = ((): boolean => {
		switch (f.kind) {
			case 'none':
				return false;
			case 'maxPages':
				return pages > 1;
			case 'maxRows':
				return rows.length > 0;
			case 'maxPollTime':
			case 'maxStateSize':
				// No time at all; 1 byte, less than even an empty export's state (`[]`).
				return true;
			case 'duplicate':
				return rows.length > 0 && f.page < pages;
			default:
				return f.page < pages;
		}
	})();
	const source: ExportSource = {
		fetchPage: async (request: PageRequest): Promise<PageAnswer<unknown>> => {
			requests.push(request);
			const index = request.page - 1;
			if (f.kind === 'fetch' && f.page === index) throw new FetchFailed(`page ${request.page} did not arrive`);
			let pageRows = rows.slice(index * PAGE_SIZE, (index + 1) * PAGE_SIZE);
			// The same company again on this page: a portfolio that moved while it was paged.
			if (f.kind === 'duplicate' && f.page === index && rows.length > 0) pageRows = [...pageRows, rows[0]];
			let body = index === 0 ? `${state.columns.join(',')}\r\n` : '';
			body += pageRows.map((row) => `${state.columns.map((c) => quote(row[c])).join(',')}\r\n`).join('');
			if (f.kind === 'unreadable' && f.page === index) body += '"KE-99,unclosed\r\n';
			return { content: Buffer.from(body), nextCursor: index + 1 < pages ? `c${index + 1}` : undefined };
		},
		paging: { cursorParameter: 'cursor', maxPages: f.kind === 'maxPages' ? 1 : undefined },
		csv: new CsvPages({ delimiter: 'auto', headerRepeat: 'auto' }),
		redact: (text) => text,
		failed: (error) => new Error(`poll failed: ${(error as Error).message}`),
	};
	return { source, pages, faulty };
}

/** The portfolio as a Map by KE, values as text. */
const byKe = (p: Portfolio) => new Map(p.rows.map((row) => [String(row[K]), row]));

/** Changes applied in order, as a sync target would: added and changed put the row, removed deletes it. */
function apply(target: Map<string, Row>, changes: readonly Change[]): void {
	for (const change of changes) {
		if (change.change === 'removed') {
			expect(target.has(change.key)).toBe(true);
			target.delete(change.key);
		} else {
			expect(target.has(change.key)).toBe(change.change === 'changed');
			target.set(change.key, change.row);
		}
	}
}

/** What a poll must report between two portfolios: the reference diff, written independently. */
function expectedChanges(before: Portfolio, after: Portfolio): Change[] {
	const earlier = byKe(before);
	const now = byKe(after);
	const out: Change[] = [];
	for (const row of after.rows) {
		const key = String(row[K]);
		const was = earlier.get(key);
		if (was === undefined) {
			out.push({ change: 'added', key, row });
			continue;
		}
		const previous: Row = {};
		for (const c of new Set([...after.columns, ...before.columns])) {
			const a = before.columns.includes(c) ? was[c] : null;
			const b = after.columns.includes(c) ? row[c] : null;
			if (a !== b) previous[c] = a;
		}
		if (Object.keys(previous).length > 0) out.push({ change: 'changed', key, row, previous });
	}
	for (const row of before.rows) if (!now.has(String(row[K]))) out.push({ change: 'removed', key: String(row[K]), row: was(before, row) });
	return out;
}
const was = (p: Portfolio, row: Row): Row => Object.fromEntries(p.columns.map((c) => [c, row[c]]));

const plain = (changes: readonly Change[]) => JSON.parse(JSON.stringify(changes)) as Change[];

describe('Service Changes Trigger: changes of the portfolio and invitations over polls that fail part-way (property)', () => {
	test('emitted changes rebuild the last complete state; a failed poll emits nothing and keeps the state', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc
					.constantFrom<Followed>('portfolio', 'invitations')
					.chain((name) => fc.tuple(fc.constant(name), fc.constantFrom(...KEY_COLUMN[name])))
					.chain(([name, key]) => fc.tuple(fc.constant(name), fc.constant(key), fc.array(pollOf(key), { minLength: 1, maxLength: 7 }))),
				fc.boolean(),
				async ([name, key, polls], emitCurrentRows) => {
					K = key;
					let stored: StoredState | undefined;
					/** The last portfolio a poll read whole, and the sync target built from everything emitted since the first. */
					let lastComplete: Portfolio | undefined;
					let target: Map<string, Row> | undefined;
					const sorted = (entries: Array<[string, Row]>) =>
						entries.map(([key, row]): [string, Row] => [key, was(state!, row)]).sort((a, b) => a[0].localeCompare(b[0]));
					let state: Portfolio | undefined;
					for (const { portfolio: drawn, fault: f, changes: kinds } of polls) {
						state = drawn;
						const requests: PageRequest[] = [];
						const { source, faulty } = serviceSource(state, f, requests);
						const options: PollOptions = { export: name, window: undefined, changes: new Set(kinds), emitCurrentRows, limits: limitsFor(f, state.rows.length) };
						const before = JSON.stringify(stored);
						let result: Awaited<ReturnType<typeof pollExport>> | undefined;
						let error: unknown;
						try {
							result = await pollExport(stored, options, source);
						} catch (e) {
							error = e;
						}
						if (faulty) {
							// Nothing emitted (the poll threw), and the stored state it was handed is untouched.
							expect(result).toBeUndefined();
							expect(String(error)).toMatch(/^Error: poll failed: /);
							if (NAMED[f.kind] !== undefined) expect(String(error)).toContain(NAMED[f.kind]);
							expect(JSON.stringify(stored)).toBe(before);
							continue;
						}
						if (error !== undefined) throw error;
						const { changes, stored: next } = result!;
						const all = kinds.length === CHANGE_KINDS.length;
						if (lastComplete === undefined) {
							// The baseline: every row as added when asked, else nothing.
							expect(plain(changes)).toEqual(emitCurrentRows ? plain(state.rows.map((row) => ({ change: 'added', key: String(row[K]), row }))) : []);
							target = emitCurrentRows ? new Map() : byKe(state);
							if (emitCurrentRows) apply(target, changes);
						} else {
							// Exactly the reference diff, less the kinds not chosen.
							expect(plain(changes)).toEqual(plain(expectedChanges(lastComplete, state).filter((c) => kinds.includes(c.change))));
							// A filtered poll's changes cannot rebuild it: the target starts again from this state.
							if (all) apply(target!, changes);
							else target = byKe(state);
							// `previous` put back over each changed row gives the earlier row.
							const earlier = byKe(lastComplete);
							for (const change of changes.filter((c) => c.change === 'changed')) {
								const back: Row = { ...change.row, ...change.previous };
								for (const c of Object.keys(back)) if (back[c] === null) delete back[c];
								expect(back).toEqual(was(lastComplete, earlier.get(change.key)!));
							}
						}
						// The sync target built from the changes alone holds exactly the portfolio just read.
						expect(sorted([...target!])).toEqual(sorted(state.rows.map((row) => [String(row[K]), row])));
						stored = JSON.parse(JSON.stringify(next)) as StoredState;
						lastComplete = state;
					}
				},
			),
			runs(300),
		);
	});
});
