import fc from 'fast-check';

import type { PageAnswer, PageRequest } from '../../nodes/shared/paging';
import { PortfolioReadings, type PortfolioSource } from '../../nodes/ServiceTrigger/portfolioReadings';
import { runs } from '../property/fc';

/**
 * Add Company Details' promise, under any interleaving of lookups, page answers, changes at the
 * Service and failed pages (fast-check's scheduler): a row-changing event's company is the row as
 * the Service had it at some moment after its lookup began; any other event's is one the Service
 * had at some moment; a failed page fails only the lookups that needed it.
 */

const KES = ['KE-1', 'KE-2', 'KE-3', 'KE-4', 'KE-5', 'KE-6', 'KE-7', 'KE-8'];
const PAGE_SIZE = 3;

/** What the Service lists for a KE at one moment: its tier, or nothing. */
type State = string | undefined;

class FakeService {
	/** Moment by moment, each KE's state; a moment is one change. */
	private readonly history = new Map<string, Array<{ at: number; state: State }>>();
	moment = 0;
	fetches: PageRequest[] = [];

	constructor(private readonly headerEveryPage: boolean) {
		for (const ke of KES.slice(0, 6)) this.history.set(ke, [{ at: 0, state: 'tier-0' }]);
	}

	stateOf(ke: string, at = this.moment): State {
		const entries = this.history.get(ke) ?? [];
		return [...entries].reverse().find((entry) => entry.at <= at)?.state;
	}

	/** The states a KE had between two moments, both included. */
	statesBetween(ke: string, from: number, to: number): State[] {
		const states = new Set<State>([this.stateOf(ke, from)]);
		for (const entry of this.history.get(ke) ?? []) if (entry.at > from && entry.at <= to) states.add(entry.state);
		return [...states];
	}

	change(ke: string, listed: boolean): void {
		this.moment++;
		const entries = this.history.get(ke) ?? [];
		entries.push({ at: this.moment, state: listed ? `tier-${this.moment}` : undefined });
		this.history.set(ke, entries);
	}

	/** One page as the Service has it when asked; the cursor is the last KE of the page before (keyset paging). */
	page(request: PageRequest): PageAnswer<Buffer> {
		this.fetches.push(request);
		const listed = KES.filter((ke) => this.stateOf(ke) !== undefined && (request.cursor === undefined || ke > request.cursor));
		const rows = listed.slice(0, PAGE_SIZE);
		const header = request.cursor === undefined || this.headerEveryPage ? 'ke,company_name,tier\r\n' : '';
		const body = rows.map((ke) => `${ke},Company ${ke},${this.stateOf(ke)}\r\n`).join('');
		return { content: Buffer.from(header + body), nextCursor: listed.length > PAGE_SIZE ? rows[rows.length - 1] : undefined };
	}
}

class PageFailure extends Error {
	constructor(
		readonly page: number,
		readonly reason: unknown,
	) {
		super(`page ${page}: ${String(reason)}`);
	}
}

type Step =
	| { kind: 'lookUp'; ke: string; fresh: boolean }
	| { kind: 'change'; ke: string; listed: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
	fc.record({ kind: fc.constant('lookUp' as const), ke: fc.constantFrom(...KES), fresh: fc.boolean() }),
	fc.record({ kind: fc.constant('change' as const), ke: fc.constantFrom(...KES), listed: fc.boolean() }),
);

describe('Add Company Details: portfolio readings under any interleaving', () => {
	it('gives each row-changing event the row as it was after the event arrived, and every other event a row the Service had', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.scheduler(),
				fc.array(step, { minLength: 1, maxLength: 14 }),
				fc.boolean(),
				// Which page requests fail, counted from the first: a few, anywhere.
				fc.uniqueArray(fc.nat({ max: 30 }), { maxLength: 3 }),
				async (s, steps, headerEveryPage, failing) => {
					const service = new FakeService(headerEveryPage);
					// Row bound 4 with 6 to 8 companies: the 'pushed out' path is taken too.
					const readings = new PortfolioReadings({ maxCompanies: 4, maxAgeMs: 60_000, maxCredentials: 2 }, () => 0);
					let fetchCount = 0;
					const failedPages: number[] = [];
					const source: PortfolioSource = {
						fetchPage: async (request) => {
							const fails = failing.includes(fetchCount++);
							// Answered as the Service has it when asked; the answer arrives whenever the scheduler says.
							const answer = service.page(request);
							const arrived = await s.schedule(Promise.resolve(answer), `page ${request.page}`);
							if (fails) {
								failedPages.push(request.page);
								throw new Error(`page ${request.page} failed`);
							}
							return arrived;
						},
						paging: { cursorParameter: 'cursor' },
						csv: { delimiter: ',', headerRepeat: 'auto' },
						failed: (page, error) => new PageFailure(page, error),
					};
					const checks: Array<Promise<void>> = [];
					for (const each of steps) {
						checks.push(
							s.schedule(Promise.resolve(each), each.kind).then(async (current) => {
								if (current.kind === 'change') {
									service.change(current.ke, current.listed);
									return;
								}
								const began = service.moment;
								let found;
								try {
									found = await readings.lookUp('cred', [current.ke], current.fresh, source);
								} catch (error) {
									// Only a page that failed fails a lookup, and the error names it.
									expect(error).toBeInstanceOf(PageFailure);
									expect(failedPages).toContain((error as PageFailure).page);
									return;
								}
								const row = found.get(current.ke);
								const got: State = row === undefined ? undefined : row.tier;
								const allowed = service.statesBetween(current.ke, current.fresh ? began : 0, service.moment);
								expect(allowed).toContain(got);
								if (row !== undefined) expect(row).toEqual({ ke: current.ke, company_name: `Company ${current.ke}`, tier: got });
							}),
						);
					}
					// Releases scheduled answers one by one, in the order drawn, until every step is done.
					await s.waitFor(Promise.all(checks));
				},
			),
			runs(300),
		);
	});
});

describe('Add Company Details: a burst of row-changing events', () => {
	it('shares readings: ten lookups that arrive while a reading is on its way cost two readings, not ten', async () => {
		const service = new FakeService(false);
		const readings = new PortfolioReadings();
		const waiting: Array<() => void> = [];
		const source: PortfolioSource = {
			fetchPage: async (request) => {
				const answer = service.page(request);
				await new Promise<void>((resolve) => waiting.push(resolve));
				return answer;
			},
			paging: { cursorParameter: 'cursor' },
			csv: { delimiter: ',', headerRepeat: 'auto' },
			failed: (page, error) => new PageFailure(page, error),
		};
		const first = readings.lookUp('cred', ['KE-1'], true, source);
		await Promise.resolve();
		expect(service.fetches).toHaveLength(1);
		// Ten more arrive while page 1 of the first reading is on its way; KE-1 changes meanwhile.
		service.change('KE-1', true);
		const burst = Array.from({ length: 10 }, () => readings.lookUp('cred', ['KE-1'], true, source));
		// Answers every page asked for, in order, until nothing more is asked.
		for (let turn = 0; turn < 50 && (turn < 5 || waiting.length > 0); turn++) {
			waiting.shift()?.();
			await new Promise((resolve) => setImmediate(resolve));
		}
		expect((await first).get('KE-1')?.tier).toBe('tier-0');
		for (const lookup of burst) expect((await lookup).get('KE-1')?.tier).toBe(`tier-${service.moment}`);
		expect(service.fetches.map((f) => f.page)).toEqual([1, 1]);
	});
});
