/**
 * The portfolio as Add Company Details reads it (companyDetails.ts): per credential one reading, page
 * by page from page 1 and no further than the companies its lookups want, bounded in rows, bytes,
 * credentials and age. Pure: no n8n types; pages come from the caller's fetch.
 *
 * Every lookup says which KEs it wants when it joins a reading, and every row read is checked against
 * all of them, so the lookups sharing a reading share its pages: a burst costs about two readings (the
 * one in progress and the next), not one each, however many rows were pushed out of memory. A
 * row-changing event needs a row from a page asked for after its lookup began: it joins a reading not
 * begun yet. KEs a reading did not find are remembered for the credential across readings.
 */
import { CsvPages, type CsvReading } from '../../shared/csv';
import { csvPageRead } from '../../shared/csvText';
import { keColumnOf } from '../../shared/keColumn';
import { cursorPages, PageCapError, type PageAnswer, type PageRequest, type PagingOptions } from '../../shared/paging';
import { BoundedMemory } from '../boundedMemory';

export const COMPANY_LIMITS = {
	maxCompanies: 10_000,
	maxAgeMs: 5 * 60 * 1000,
	maxCredentials: 100,
	/** Rows and header rows held, every credential together, as `rowBytes` counts them. */
	maxBytes: 28 * 1024 * 1024,
	/** KEs known not to be listed, every credential together. */
	maxAbsent: 10_000,
	maxAbsentBytes: 4 * 1024 * 1024,
};

export type CompanyLimits = typeof COMPANY_LIMITS;

export type Row = Record<string, string>;

/** What a row counts against the bytes bound: 2 bytes a character of its KE, column names and values (the most V8 stores one in), plus 64 a cell. */
export function rowBytes(row: Row, ke = ''): number {
	let bytes = 2 * ke.length + 64;
	for (const name in row) bytes += 2 * (name.length + row[name].length) + 64;
	return bytes;
}

/** Where one credential's portfolio pages come from, and how to read them. */
export interface PortfolioSource {
	fetchPage(request: PageRequest): Promise<PageAnswer<Buffer>>;
	/** Its `maxPages` caps the pages of a reading: a portfolio that never ends costs at most that per reading. */
	paging: PagingOptions;
	csv: CsvReading;
	/** The error to throw when page `page` could not be fetched or read; called once per lookup it fails. */
	failed(page: number, error: unknown): Error;
}

/** A KE some lookups sharing the reading want: its row once read, and whether every row of the reading was checked for it. */
interface Wanted {
	lookups: number;
	fromStart: boolean;
	row?: Row;
}

/** One credential's reading of the portfolio: the rows read so far by KE, and where it goes on. */
export interface PortfolioReading {
	key: string;
	rows: BoundedMemory<Row>;
	/** The KEs of the lookups that joined it and are not done: rows found for them are kept for them. */
	wanted: Map<string, Wanted>;
	/** Rows read so far, held or pushed out. */
	read: number;
	headerBytes: number;
	csv: CsvPages;
	/** The KE column, told by the first page with rows (keColumn.ts: by name, else by shape). */
	keColumn: string | undefined;
	/** The next page and its cursor; undefined before the first page and after the last. */
	next: { page: number; cursor: string } | undefined;
	done: boolean;
	/** The page that failed: every lookup that needs a page more fails with it, none asks again. */
	failure: { page: number; error: unknown } | undefined;
	/** When its first page was asked for, in lookup order; undefined until then. */
	begun: number | undefined;
	/** Lookups run one at a time, so a page is fetched once for all of them. */
	queue: Promise<unknown>;
}

type Found = { row: Row | undefined } | { retryIn: PortfolioReading };

export class PortfolioReadings {
	/** The reading each credential's next lookup joins. */
	private readonly memory: BoundedMemory<PortfolioReading>;
	/** Every reading whose rows are held: the current ones and those lookups still use, oldest first. */
	private readonly holding = new Set<PortfolioReading>();
	/** KEs a whole reading did not list, by credential and KE: the order its reading began at. */
	private readonly absent: BoundedMemory<number>;
	/** Orders lookups and first page requests exactly, where a clock's milliseconds could tie. */
	private order = 0;

	constructor(
		private readonly limits: CompanyLimits = COMPANY_LIMITS,
		private readonly now: () => number = Date.now,
	) {
		this.memory = new BoundedMemory<PortfolioReading>(limits.maxCredentials, limits.maxAgeMs);
		this.absent = new BoundedMemory<number>(limits.maxAbsent, limits.maxAgeMs, {
			maxBytes: limits.maxAbsentBytes,
			sizeOf: (_begun, key) => 2 * key.length + 64,
		});
	}

	/** The reading held for a credential, if any. */
	held(key: string): PortfolioReading | undefined {
		return this.memory.get(key, this.now());
	}

	/** What everything held counts, by `rowBytes`: at most `maxBytes` + `maxAbsentBytes` once a page is read (header rows of readings in use aside). */
	heldBytes(): number {
		let bytes = this.absent.heldBytes;
		for (const reading of this.holding) bytes += reading.rows.heldBytes + reading.headerBytes;
		return bytes;
	}

	/** How many readings hold rows. */
	get readings(): number {
		return this.holding.size;
	}

	/**
	 * Each KE's row, or undefined when the portfolio does not list it. With `fresh`, every row comes
	 * from a page asked for after this call began. Throws the source's error when a page fails.
	 */
	async lookUp(key: string, kes: readonly string[], fresh: boolean, source: PortfolioSource): Promise<Map<string, Row | undefined>> {
		this.release();
		const since = fresh ? ++this.order : undefined;
		const reading = this.readingFor(key, source, since);
		for (const ke of kes) this.want(reading, ke);
		// Every KE stays wanted where it is looked for until this lookup is done, failed or not.
		const wanted: Array<[PortfolioReading, string]> = kes.map((ke) => [reading, ke]);
		const found = new Map<string, Row | undefined>();
		try {
			// Every turn queued at once: a reading begun after this one waits for all of them.
			const first = await Promise.allSettled(kes.map(async (ke) => [ke, await this.turn(reading, source, ke, since)] as const));
			const retries: Array<[string, PortfolioReading]> = [];
			for (const result of first) {
				if (result.status === 'rejected') continue;
				const [ke, answer] = result.value;
				if ('row' in answer) found.set(ke, answer.row);
				else {
					wanted.push([answer.retryIn, ke]);
					retries.push([ke, answer.retryIn]);
				}
			}
			const failed = first.find((result) => result.status === 'rejected');
			if (failed !== undefined) throw failed.reason;
			// A reading not begun when the KE was wanted there checks every row for it: no third reading.
			const again = await settled(retries.map(async ([ke, next]) => [ke, await this.turn(next, source, ke, since)] as const));
			for (const [ke, result] of again) found.set(ke, 'row' in result ? result.row : undefined);
		} finally {
			for (const [where, ke] of wanted) this.unwant(where, ke);
			this.release();
		}
		return found;
	}

	private readingFor(key: string, source: PortfolioSource, since: number | undefined): PortfolioReading {
		const held = this.memory.get(key, this.now());
		const usable = held !== undefined && held.failure === undefined && (since === undefined || held.begun === undefined || held.begun > since);
		return usable ? held : this.start(key, source, held);
	}

	/** A new reading, held for the credential; it begins once `after`'s lookups are done. */
	private start(key: string, source: PortfolioSource, after: PortfolioReading | undefined): PortfolioReading {
		const reading: PortfolioReading = {
			key,
			rows: new BoundedMemory<Row>(this.limits.maxCompanies, this.limits.maxAgeMs, { maxBytes: this.limits.maxBytes, sizeOf: rowBytes }),
			wanted: new Map(),
			read: 0,
			headerBytes: 0,
			csv: new CsvPages(source.csv),
			keColumn: undefined,
			next: undefined,
			done: false,
			failure: undefined,
			begun: undefined,
			queue: after?.queue ?? Promise.resolve(),
		};
		this.memory.set(key, reading, this.now());
		this.holding.add(reading);
		return reading;
	}

	private want(reading: PortfolioReading, ke: string): void {
		const wanted = reading.wanted.get(ke);
		if (wanted !== undefined) wanted.lookups++;
		else reading.wanted.set(ke, { lookups: 1, fromStart: reading.begun === undefined });
	}

	private unwant(reading: PortfolioReading, ke: string): void {
		const wanted = reading.wanted.get(ke);
		if (wanted !== undefined && --wanted.lookups === 0) reading.wanted.delete(ke);
	}

	/** One KE's turn in a reading's queue. */
	private async turn(reading: PortfolioReading, source: PortfolioSource, ke: string, since: number | undefined): Promise<Found> {
		const result = reading.queue.then(async () => await this.findRow(reading, source, ke, since));
		reading.queue = result.catch(() => undefined);
		return await result;
	}

	/**
	 * The company's row: found for it, held, or read page by page from where the reading stopped until
	 * it turns up (no page more); undefined when the portfolio does not list it; another reading to
	 * look in when rows this lookup never checked were pushed out.
	 */
	private async findRow(reading: PortfolioReading, source: PortfolioSource, ke: string, since: number | undefined): Promise<Found> {
		const wanted = reading.wanted.get(ke)!;
		if (wanted.row !== undefined) return { row: wanted.row };
		const held = reading.rows.get(ke, this.now());
		if (held !== undefined) return { row: held };
		const absentSince = this.absent.get(absentKey(reading.key, ke), this.now());
		if (absentSince !== undefined && (since === undefined || absentSince > since)) return { row: undefined };
		if (reading.failure !== undefined) throw source.failed(reading.failure.page, reading.failure.error);
		// Rows read before this KE was wanted were checked only if still held.
		if (!wanted.fromStart && reading.rows.dropped > 0) return { retryIn: this.retry(reading, source, ke) };
		if (!reading.done) {
			let page = reading.next?.page ?? 1;
			const fetchPage = async (request: PageRequest) => {
				page = request.page;
				return await source.fetchPage(request);
			};
			reading.begun ??= ++this.order;
			try {
				// A lookup that found its company on the last page the cap allows left a cursor: no page more.
				const cap = source.paging.maxPages;
				if (reading.next !== undefined && cap !== undefined && reading.next.page > cap) throw new PageCapError(cap);
				for await (const answer of cursorPages(fetchPage, source.paging, { from: reading.next })) {
					this.readPage(reading, answer.content, answer.contentType);
					reading.next = answer.nextCursor === undefined ? undefined : { page: answer.request.page + 1, cursor: answer.nextCursor };
					reading.done = answer.nextCursor === undefined;
					// Stops here: the next page is fetched only by a later lookup that needs it.
					if (wanted.row !== undefined) return { row: wanted.row };
				}
			} catch (error) {
				reading.failure = { page, error };
				throw source.failed(page, error);
			}
		}
		this.absent.set(absentKey(reading.key, ke), reading.begun!, this.now());
		return { row: undefined };
	}

	/** One page, row by row: each row is held (bounded, `fit`) or dropped as it is read, never a page of parsed rows. */
	private readPage(reading: PortfolioReading, content: Buffer, contentType: string | undefined): void {
		const hadHeader = reading.csv.header !== undefined;
		// Decoded by its charset, a sep= line giving the delimiter (csvText.ts).
		const page = reading.csv.page(csvPageRead(content, contentType, reading.csv));
		const header = reading.csv.header;
		if (!hadHeader && header !== undefined) reading.headerBytes = rowBytes(Object.fromEntries(header.map((name) => [name, ''])));
		const now = this.now();
		page.each((cells) => {
			// Told once, by the first page with rows (by name, else by shape: that page read again, row by row), and kept for the later pages.
			reading.keColumn ??= keColumnOf(header ?? [], (visit) => page.each((again) => visit(reading.csv.row(again))));
			const row = reading.csv.row(cells);
			const rowKe = row[reading.keColumn].trim();
			reading.read++;
			reading.rows.set(rowKe, row, now);
			if (this.absent.size > 0) this.absent.delete(absentKey(reading.key, rowKe));
			const wanted = reading.wanted.get(rowKe);
			if (wanted !== undefined) wanted.row = row;
			if (this.holding.size > 1) this.fit(reading);
		});
		this.fit(reading);
	}

	/** The reading a KE looks in from page 1, wanted there before it begins: the next one, or a new one after it. */
	private retry(reading: PortfolioReading, source: PortfolioSource, ke: string): PortfolioReading {
		const held = this.memory.get(reading.key, this.now());
		const next = held !== undefined && held !== reading && held.failure === undefined && held.begun === undefined ? held : this.start(reading.key, source, held ?? reading);
		this.want(next, ke);
		return next;
	}

	/**
	 * Keeps what is held within `maxBytes`: other readings' rows go first, oldest first, then this one's
	 * oldest, then other readings no lookup uses, header rows and all. A header row alone past the bound
	 * is released as soon as no lookup uses it.
	 */
	private fit(current: PortfolioReading): void {
		let bytes = this.heldBytes() - this.absent.heldBytes;
		if (bytes <= this.limits.maxBytes) return;
		for (const other of this.holding) {
			if (other === current || bytes <= this.limits.maxBytes) continue;
			bytes -= other.rows.heldBytes;
			other.rows.clear();
		}
		while (bytes > this.limits.maxBytes && current.rows.size > 0) bytes -= current.rows.dropOldest();
		for (const other of this.holding) {
			if (other === current || bytes <= this.limits.maxBytes || other.wanted.size > 0) continue;
			bytes -= other.headerBytes;
			this.drop(other);
		}
		if (current.headerBytes > this.limits.maxBytes && this.memory.get(current.key, this.now()) === current) this.memory.delete(current.key);
	}

	private drop(reading: PortfolioReading): void {
		reading.rows.clear();
		this.holding.delete(reading);
		if (this.memory.get(reading.key, this.now()) === reading) this.memory.delete(reading.key);
	}

	/** Releases, by the caller's clock, what is 5 minutes old and every reading no longer current that no lookup uses. */
	private release(): void {
		const now = this.now();
		this.absent.prune(now);
		this.memory.prune(now);
		for (const reading of this.holding) {
			if (this.memory.get(reading.key, now) !== reading && reading.wanted.size === 0) this.drop(reading);
			else reading.rows.prune(now);
		}
	}
}

/** Every result once all are done, or the first failure once all are done. */
async function settled<T>(promises: Array<Promise<T>>): Promise<T[]> {
	const results = await Promise.allSettled(promises);
	const failed = results.find((result) => result.status === 'rejected');
	if (failed !== undefined) throw failed.reason;
	return results.map((result) => (result as PromiseFulfilledResult<T>).value);
}

function absentKey(key: string, ke: string): string {
	return `${key}\u0000${ke}`;
}
