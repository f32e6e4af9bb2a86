/**
 * The portfolio as Add Company Details reads it (companyDetails.ts): per credential one reading, page
 * by page from page 1 and no further than the company's page, bounded in rows, credentials and age.
 * Pure: no n8n types; pages come from the caller's fetch.
 *
 * A row-changing event needs a row from a page asked for after its lookup began. It shares a reading
 * begun since (or not begun yet); otherwise it starts one that begins once the reading in progress is
 * done, and lookups arriving meanwhile share that one: a burst costs about two readings, not one each.
 */
import { columnNamed, CsvPages, PORTFOLIO_COLUMNS, type CsvReading } from '../shared/csv';
import { cursorPages, type PageAnswer, type PageRequest, type PagingOptions } from '../shared/paging';
import { BoundedMemory } from './boundedMemory';

export const COMPANY_LIMITS = { maxCompanies: 10_000, maxAgeMs: 5 * 60 * 1000, maxCredentials: 100 };

export type Row = Record<string, string>;

/** Where one credential's portfolio pages come from, and how to read them. */
export interface PortfolioSource {
	fetchPage(request: PageRequest): Promise<PageAnswer<Buffer>>;
	paging: PagingOptions;
	csv: CsvReading;
	/** The error to throw when page `page` could not be fetched or read. */
	failed(page: number, error: unknown): Error;
}

/** One credential's reading of the portfolio: the rows read so far by KE, and where it goes on. */
export interface PortfolioReading {
	rows: BoundedMemory<Row>;
	/** KEs a pass from page 1 to the last did not find, so an unlisted KE costs one full read, not one per alert. */
	absent: BoundedMemory<true>;
	/** Rows read so far, held or pushed out by the row bound. */
	read: number;
	csv: CsvPages;
	/** The next page and its cursor; undefined before the first page and after the last. */
	next: { page: number; cursor: string } | undefined;
	done: boolean;
	/** A failed page leaves it half read: the next lookup starts a new reading. */
	failed: boolean;
	/** When its first page was asked for, in lookup order; undefined until then. */
	begun: number | undefined;
	/** Lookups run one at a time, so a page is fetched once for all of them. */
	queue: Promise<unknown>;
}

export class PortfolioReadings {
	private readonly memory: BoundedMemory<PortfolioReading>;
	/** Orders lookups and first page requests exactly, where a clock's milliseconds could tie. */
	private order = 0;

	constructor(
		private readonly limits = COMPANY_LIMITS,
		private readonly now: () => number = Date.now,
	) {
		this.memory = new BoundedMemory<PortfolioReading>(limits.maxCredentials, limits.maxAgeMs);
	}

	/** The reading held for a credential, if any. */
	held(key: string): PortfolioReading | undefined {
		return this.memory.get(key, this.now());
	}

	/**
	 * Each KE's row, or undefined when the portfolio does not list it. With `fresh`, every row comes
	 * from a page asked for after this call began. Throws the source's error when a page fails.
	 */
	async lookUp(key: string, kes: readonly string[], fresh: boolean, source: PortfolioSource): Promise<Map<string, Row | undefined>> {
		const since = fresh ? ++this.order : undefined;
		let reading = this.readingFor(key, source, since);
		const found = new Map<string, Row | undefined>();
		for (const ke of kes) {
			const lookIn = async (each: PortfolioReading) => await this.queued(each, async () => await this.findRow(each, source, ke));
			let row = await lookIn(reading);
			if (row === 'unsure') {
				// Rows pushed out by the row bound were never checked for this KE: a new reading, and this lookup first in it.
				reading = this.start(key, source, reading);
				row = await lookIn(reading);
			}
			found.set(ke, row === 'unsure' ? undefined : row);
		}
		return found;
	}

	private readingFor(key: string, source: PortfolioSource, since: number | undefined): PortfolioReading {
		const held = this.memory.get(key, this.now());
		const usable = held !== undefined && !held.failed && (since === undefined || held.begun === undefined || held.begun > since);
		return usable ? held : this.start(key, source, held);
	}

	/** A new reading, held for the credential; it begins once `after`'s lookups are done. */
	private start(key: string, source: PortfolioSource, after: PortfolioReading | undefined): PortfolioReading {
		const reading: PortfolioReading = {
			rows: new BoundedMemory<Row>(this.limits.maxCompanies, this.limits.maxAgeMs),
			absent: new BoundedMemory<true>(this.limits.maxCompanies, this.limits.maxAgeMs),
			read: 0,
			csv: new CsvPages(source.csv),
			next: undefined,
			done: false,
			failed: false,
			begun: undefined,
			queue: after?.queue ?? Promise.resolve(),
		};
		this.memory.set(key, reading, this.now());
		return reading;
	}

	private async queued<T>(reading: PortfolioReading, run: () => Promise<T>): Promise<T> {
		const result = reading.queue.then(run);
		reading.queue = result.catch(() => undefined);
		return await result;
	}

	/**
	 * The company's row: held, or read page by page from where the reading stopped until it turns up
	 * (no page more); undefined when the portfolio does not list it; 'unsure' when rows were pushed out.
	 */
	private async findRow(reading: PortfolioReading, source: PortfolioSource, ke: string): Promise<Row | undefined | 'unsure'> {
		const held = reading.rows.get(ke, this.now());
		if (held !== undefined) return held;
		if (reading.absent.get(ke, this.now()) === true) return undefined;
		const unsure = reading.read > reading.rows.size;
		const fromStart = reading.read === 0;
		if (reading.done) return unsure ? 'unsure' : undefined;
		let page = reading.next?.page ?? 1;
		const fetchPage = async (request: PageRequest) => {
			page = request.page;
			return await source.fetchPage(request);
		};
		reading.begun ??= ++this.order;
		try {
			for await (const answer of cursorPages(fetchPage, source.paging, { from: reading.next })) {
				const rows = reading.csv.rows(answer.content);
				const keColumn = columnNamed(reading.csv.header ?? [], PORTFOLIO_COLUMNS.ke);
				if (keColumn === undefined && reading.csv.header !== undefined) {
					throw new Error(`It has no ke column: its columns are ${reading.csv.header.map((c) => JSON.stringify(c)).join(', ')}`);
				}
				reading.next = answer.nextCursor === undefined ? undefined : { page: answer.request.page + 1, cursor: answer.nextCursor };
				reading.done = answer.nextCursor === undefined;
				let match: Row | undefined;
				for (const row of rows) {
					const rowKe = row[keColumn!].trim();
					reading.read++;
					reading.rows.set(rowKe, row, this.now());
					if (rowKe === ke) match = row;
				}
				// Stops here: the next page is fetched only by a later lookup that needs it.
				if (match !== undefined) return match;
			}
		} catch (error) {
			reading.failed = true;
			throw source.failed(page, error);
		}
		if (fromStart) reading.absent.set(ke, true, this.now());
		return unsure ? 'unsure' : undefined;
	}
}
