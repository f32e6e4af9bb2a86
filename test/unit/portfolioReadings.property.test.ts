import fc from 'fast-check';

import { PageCapError, type PageAnswer, type PageRequest } from '../../nodes/shared/paging';
import { COMPANY_LIMITS, PortfolioReadings, type PortfolioSource } from '../../nodes/ServiceTrigger/companyDetails/portfolioReadings';
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
				// A bytes bound of about two rows, or the real one.
				fc.constantFrom(1200, COMPANY_LIMITS.maxBytes),
				async (s, steps, headerEveryPage, failing, maxBytes) => {
					const service = new FakeService(headerEveryPage);
					// Row bound 4 with 6 to 8 companies: the 'pushed out' path is taken too.
					const readings = new PortfolioReadings({ ...COMPANY_LIMITS, maxCompanies: 4, maxAgeMs: 60_000, maxCredentials: 2, maxBytes }, () => 0);
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

/**
 * A portfolio of `size` companies KE-1..KE-size (offset cursors), or one whose cursor never ends;
 * each page as the Service has it, counted.
 */
class CountedPortfolio {
	fetches = 0;

	constructor(
		private readonly size: number,
		private readonly pageSize: number,
		private readonly endless: boolean,
	) {}

	/** The pages one whole reading asks for. */
	get pages(): number {
		return this.endless ? Number.POSITIVE_INFINITY : Math.max(1, Math.ceil(this.size / this.pageSize));
	}

	listed(ke: string): boolean {
		const n = Number(ke.slice(3));
		return /^KE-\d+$/.test(ke) && n >= 1 && (this.endless || n <= this.size);
	}

	page(request: PageRequest): PageAnswer<Buffer> {
		// A reading past any cap the property draws has gone wrong: fail rather than page for ever.
		if (++this.fetches > 500) throw new Error('more than 500 pages asked for');
		const from = request.cursor === undefined ? 0 : Number(request.cursor);
		const to = this.endless ? from + this.pageSize : Math.min(this.size, from + this.pageSize);
		let body = 'ke,company_name,tier\r\n';
		for (let i = from + 1; i <= to; i++) body += `KE-${i},Company ${i},tier-1\r\n`;
		return { content: Buffer.from(body), nextCursor: to < this.size || this.endless ? String(to) : undefined };
	}
}

class CapReached extends Error {}

describe('Add Company Details: cost and memory at any portfolio size, past the memory bounds', () => {
	const lookup = fc.record({
		kes: fc.uniqueArray(fc.oneof(fc.integer({ min: 1, max: 40 }).map((n) => `KE-${n}`), fc.integer({ min: 1, max: 4 }).map((n) => `KE-U${n}`)), { minLength: 1, maxLength: 2 }),
		fresh: fc.boolean(),
	});

	it('N lookups arriving together cost at most two readings, unlisted KEs are remembered across readings, and what is held stays within the bytes bound', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.scheduler(),
				fc.record({
					size: fc.integer({ min: 0, max: 30 }),
					pageSize: fc.integer({ min: 1, max: 6 }),
					endless: fc.boolean(),
					cap: fc.integer({ min: 1, max: 12 }),
					// Small bounds: 1 to 8 companies and 1,000 to 4,000 bytes (a row of this portfolio counts about 340, its header row about 300).
					maxCompanies: fc.integer({ min: 1, max: 8 }),
					maxBytes: fc.integer({ min: 1000, max: 4000 }),
				}),
				fc.array(lookup, { maxLength: 3 }),
				fc.option(lookup, { nil: undefined }),
				fc.array(lookup, { minLength: 1, maxLength: 12 }),
				async (s, drawn, warmUp, inFlight, burst) => {
					const portfolio = new CountedPortfolio(drawn.size, drawn.pageSize, drawn.endless);
					const limits = { ...COMPANY_LIMITS, maxCompanies: drawn.maxCompanies, maxBytes: drawn.maxBytes, maxAbsentBytes: 2000 };
					const readings = new PortfolioReadings(limits, () => 0);
					const bound = limits.maxBytes + limits.maxAbsentBytes;
					const source: PortfolioSource = {
						fetchPage: async (request) => {
							// What was read so far, page by page, is within the bound.
							expect(readings.heldBytes()).toBeLessThanOrEqual(bound);
							return await s.schedule(Promise.resolve(portfolio.page(request)), `page ${request.page}`);
						},
						paging: { cursorParameter: 'cursor', maxPages: drawn.cap },
						csv: { delimiter: ',', headerRepeat: 'auto' },
						failed: (page, error) => (error instanceof PageCapError ? new CapReached(`page ${page}`) : (error as Error)),
					};
					/** Each KE's row is the Service's, or none when it is not listed; a failure only when a reading reached the cap. */
					const checked = async (each: { kes: string[]; fresh: boolean }) => {
						try {
							const found = await readings.lookUp('cred', each.kes, each.fresh, source);
							for (const ke of each.kes) {
								expect(found.get(ke)).toEqual(portfolio.listed(ke) ? { ke, company_name: `Company ${ke.slice(3)}`, tier: 'tier-1' } : undefined);
							}
						} catch (error) {
							expect(error).toBeInstanceOf(CapReached);
							expect(portfolio.pages).toBeGreaterThan(drawn.cap);
						}
					};
					for (const each of warmUp) await s.waitFor(checked(each));
					// One lookup whose first page is on its way when the burst arrives.
					const first = inFlight === undefined ? Promise.resolve() : checked(inFlight);
					// Its failure is reported by Promise.all below, not as unhandled meanwhile.
					first.catch(() => undefined);
					await new Promise((resolve) => setImmediate(resolve));
					const before = portfolio.fetches;
					const together = burst.map(checked);
					await s.waitFor(Promise.all([first, ...together]));
					// The reading in progress (or held) and one more: never one per lookup.
					const reading = Math.min(portfolio.pages, drawn.cap);
					expect(portfolio.fetches - before).toBeLessThanOrEqual(2 * reading);
					expect(readings.heldBytes()).toBeLessThanOrEqual(bound);
					// Nothing but the credential's current reading is held once no lookup runs.
					expect(readings.readings).toBeLessThanOrEqual(1);

					// A new reading (a row-changing lookup) does not forget the KEs known not to be listed.
					const unlisted = [...new Set(burst.filter((each) => !drawn.endless && each.kes.every((ke) => !portfolio.listed(ke))).flatMap((each) => each.kes))];
					if (unlisted.length > 0 && portfolio.pages <= drawn.cap) {
						await s.waitFor(checked({ kes: ['KE-1'], fresh: true }));
						const after = portfolio.fetches;
						await s.waitFor(checked({ kes: unlisted, fresh: false }));
						expect(portfolio.fetches).toBe(after);
					}
				},
			),
			runs(300),
		);
	});

	it('two unlisted KEs alternating cost one reading each in all, not one each time', async () => {
		const portfolio = new CountedPortfolio(20, 3, false);
		const readings = new PortfolioReadings({ ...COMPANY_LIMITS, maxCompanies: 4 }, () => 0);
		const source: PortfolioSource = {
			fetchPage: async (request) => portfolio.page(request),
			paging: { cursorParameter: 'cursor' },
			csv: { delimiter: ',', headerRepeat: 'auto' },
			failed: (_page, error) => error as Error,
		};
		for (let turn = 0; turn < 6; turn++) {
			const ke = turn % 2 === 0 ? 'KE-U1' : 'KE-U2';
			expect((await readings.lookUp('cred', [ke], false, source)).get(ke)).toBeUndefined();
			// A row-changing lookup in between starts a new reading, which must not forget them either.
			await readings.lookUp('cred', ['KE-2'], true, source);
		}
		// KE-U1: pages 1 to 7; KE-2: page 1 of a new reading; KE-U2: pages 2 to 7 of that one; then
		// five KE-2 lookups, one page each: KE-U1 and KE-U2 were never read for again.
		expect(portfolio.fetches).toBe(7 + 1 + 6 + 5);
	});

	it('a portfolio that never ends costs at most the cap, shared by the lookups waiting on the reading', async () => {
		const portfolio = new CountedPortfolio(0, 2, true);
		const readings = new PortfolioReadings(COMPANY_LIMITS, () => 0);
		const source: PortfolioSource = {
			fetchPage: async (request) => portfolio.page(request),
			paging: { cursorParameter: 'cursor', maxPages: 25 },
			csv: { delimiter: ',', headerRepeat: 'auto' },
			failed: (page, error) => (error instanceof PageCapError ? new CapReached(`cap reached at page ${page}`) : (error as Error)),
		};
		const lookups = Array.from({ length: 10 }, (_, i) => readings.lookUp('cred', [`KE-U${i}`], true, source));
		for (const each of lookups) await expect(each).rejects.toThrow(CapReached);
		// All ten arrived before the first page was asked for: one reading of 25 pages for all of them.
		expect(portfolio.fetches).toBe(25);
		// The next alert starts a new reading, capped again.
		await expect(readings.lookUp('cred', ['KE-U1'], false, source)).rejects.toThrow(CapReached);
		expect(portfolio.fetches).toBe(50);
	});
});

describe('Add Company Details: a failed page', () => {
	it('fails every lookup waiting on the reading with that page, and is not asked for again by them', async () => {
		const portfolio = new CountedPortfolio(20, 3, false);
		const readings = new PortfolioReadings(COMPANY_LIMITS, () => 0);
		const asked: number[] = [];
		const source: PortfolioSource = {
			fetchPage: async (request) => {
				asked.push(request.page);
				if (request.page === 2) throw new Error('the Service answered 500');
				return portfolio.page(request);
			},
			paging: { cursorParameter: 'cursor' },
			csv: { delimiter: ',', headerRepeat: 'auto' },
			failed: (page, error) => new PageFailure(page, error),
		};
		const lookups = ['KE-1', 'KE-7', 'KE-8', 'KE-U1', 'KE-9'].map((ke) => readings.lookUp('cred', [ke], true, source));
		expect((await lookups[0]).get('KE-1')).toEqual({ ke: 'KE-1', company_name: 'Company 1', tier: 'tier-1' });
		for (const failed of lookups.slice(1)) await expect(failed).rejects.toMatchObject({ page: 2 });
		expect(asked).toEqual([1, 2]);
		// The next alert starts a new reading.
		expect((await readings.lookUp('cred', ['KE-2'], false, source)).get('KE-2')).toEqual({ ke: 'KE-2', company_name: 'Company 2', tier: 'tier-1' });
		expect(asked).toEqual([1, 2, 1]);
	});
});

describe('Add Company Details: what is held', () => {
	it('is released by age on the next lookup of any credential, by its clock, with no timer', async () => {
		let now = 0;
		const readings = new PortfolioReadings(COMPANY_LIMITS, () => now);
		const source: PortfolioSource = {
			fetchPage: async (request) => new CountedPortfolio(20, 5, false).page(request),
			paging: { cursorParameter: 'cursor' },
			csv: { delimiter: ',', headerRepeat: 'auto' },
			failed: (_page, error) => error as Error,
		};
		await readings.lookUp('cred-1', ['KE-U1'], false, source);
		const one = readings.heldBytes();
		expect(one).toBeGreaterThan(20 * 300);
		now += COMPANY_LIMITS.maxAgeMs - 1;
		await readings.lookUp('cred-2', ['KE-1'], false, source);
		expect(readings.readings).toBe(2);
		now += 1;
		await readings.lookUp('cred-2', ['KE-1'], false, source);
		// cred-1's reading and its unlisted KE are 5 minutes old: gone; cred-2's page 1 stays.
		expect(readings.readings).toBe(1);
		expect(readings.held('cred-1')).toBeUndefined();
		expect(readings.heldBytes()).toBeLessThan(one / 2);
	});
});
