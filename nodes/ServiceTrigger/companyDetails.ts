/**
 * Add Company Details: each event's company (name, tier, status, decision due) from the portfolio
 * export (CSV), looked up in the execution's trigger step, never in webhook(), so the Service's 2xx
 * stays quick (spec section 6, rule 3).
 *
 * Cost: events that change the company's row (share_*, reader_tier_changed, reader_decision_due,
 * ledger_*) read the portfolio again, up to the company's page; other events use what was read in
 * the last 5 minutes: one full portfolio read per 5 minutes per credential, and past 10,000 companies
 * one more per company pushed out (up to its page) or not listed (every page). Memory: at most 10,000
 * companies and 10,000 unlisted KEs for each of at most 100 credentials (Base URL and credential),
 * none older than 5 minutes.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { columnNamed, CsvPages, PORTFOLIO_COLUMNS } from '../shared/csv';
import type { PageAnswer, PageRequest } from '../shared/paging';
import { cursorPages } from '../shared/paging';
import { exportPaging, pageFetcher } from '../shared/transport/pageFetch';
import { getServiceSettings } from '../shared/transport/serviceRequest';
import type { ServiceSettings } from '../shared/transport/settings';
import { BoundedMemory } from './boundedMemory';

export const COMPANY_LIMITS = { maxCompanies: 10_000, maxAgeMs: 5 * 60 * 1000, maxCredentials: 100 };

/** Events whose meaning is a change to the company's portfolio row: what was read before may be out of date. */
export const CHANGES_ROW = /^(share_granted|share_revoked|reader_tier_changed|reader_decision_due|ledger_.+)$/;

type Row = Record<string, string>;

/** One credential's reading of the portfolio: the rows read so far by KE, and where it goes on. */
interface PortfolioReading {
	rows: BoundedMemory<Row>;
	/** KEs a pass from page 1 to the last did not find, so an unlisted KE costs one full read, not one per alert. */
	absent: BoundedMemory<true>;
	/** Rows read so far, held or pushed out by the 10,000 bound. */
	read: number;
	csv: CsvPages;
	/** The next page and its cursor; undefined before the first page and after the last. */
	next: { page: number; cursor: string } | undefined;
	done: boolean;
	/** A failed page leaves it half read: the next lookup starts a new reading. */
	failed: boolean;
	/** Lookups run one at a time, so a page is fetched once for all of them. */
	queue: Promise<unknown>;
}

/** One per n8n process, shared by every Service Trigger; keyed by Base URL and credential. */
export const portfolioMemory = new BoundedMemory<PortfolioReading>(COMPANY_LIMITS.maxCredentials, COMPANY_LIMITS.maxAgeMs);

function newReading(settings: ServiceSettings): PortfolioReading {
	return {
		rows: new BoundedMemory<Row>(COMPANY_LIMITS.maxCompanies, COMPANY_LIMITS.maxAgeMs),
		absent: new BoundedMemory<true>(COMPANY_LIMITS.maxCompanies, COMPANY_LIMITS.maxAgeMs),
		read: 0,
		csv: new CsvPages({ delimiter: settings.csvDelimiter, headerRepeat: settings.csvHeaderRepeat }),
		next: undefined,
		done: false,
		failed: false,
		queue: Promise.resolve(),
	};
}

/** The trigger's step: each item naming a company gets `company`; the rest pass on unchanged. */
export async function addCompanyDetails(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const keOf = (item: INodeExecutionData) => (typeof item.json.ke === 'string' && item.json.ke.trim() !== '' ? item.json.ke.trim() : undefined);
	const kes = [...new Set(items.map(keOf).filter((ke): ke is string => ke !== undefined))];
	if (kes.length === 0) return items;
	const settings = await getServiceSettings.call(this);
	const credential = this.getNode().credentials?.serviceApi;
	const key = `${settings.baseUrl}\u0000${credential?.id ?? credential?.name ?? ''}`;
	const fresh = items.some((item) => keOf(item) !== undefined && CHANGES_ROW.test(String(item.json.event_type)));
	let reading = fresh ? undefined : portfolioMemory.get(key, Date.now());
	if (reading === undefined || reading.failed) {
		reading = newReading(settings);
		portfolioMemory.set(key, reading, Date.now());
	}
	const found = new Map<string, Row | undefined>();
	for (const ke of kes) {
		let row = await queued(reading, async () => await lookUp.call(this, reading!, settings, ke));
		if (row === 'unsure') {
			// Rows pushed out by the 10,000 bound were never checked for this KE: read again, up to its page.
			reading = newReading(settings);
			portfolioMemory.set(key, reading, Date.now());
			row = await queued(reading, async () => await lookUp.call(this, reading!, settings, ke));
		}
		found.set(ke, row === 'unsure' ? undefined : row);
	}
	return items.map((item) => {
		const ke = keOf(item);
		if (ke === undefined) return item;
		const row = found.get(ke);
		return { ...item, json: { ...item.json, company: row === undefined ? { ke, shared: false } : companyOf(ke, row) } };
	});
}

/** The row whole, by the Service's column names, plus `ke`, `name` and `shared`. */
function companyOf(ke: string, row: Row): IDataObject {
	const nameColumn = columnNamed(Object.keys(row), PORTFOLIO_COLUMNS.name);
	return { ke, ...(nameColumn === undefined ? {} : { name: row[nameColumn] }), ...row, shared: true };
}

async function queued<T>(reading: PortfolioReading, run: () => Promise<T>): Promise<T> {
	const result = reading.queue.then(run);
	reading.queue = result.catch(() => undefined);
	return await result;
}

/**
 * The company's row: held, or read page by page from where the reading stopped until it turns up
 * (no page more); undefined when the portfolio does not list it; 'unsure' when rows were pushed out.
 */
async function lookUp(this: IExecuteFunctions, reading: PortfolioReading, settings: ServiceSettings, ke: string): Promise<Row | undefined | 'unsure'> {
	const held = reading.rows.get(ke, Date.now());
	if (held !== undefined) return held;
	if (reading.absent.get(ke, Date.now()) === true) return undefined;
	const unsure = reading.read > reading.rows.size;
	const fromStart = reading.read === 0;
	if (reading.done) return unsure ? 'unsure' : undefined;
	const paging = exportPaging(settings, { format: 'csv' });
	let page = reading.next?.page ?? 1;
	const fetchPage = pageFetcher.call(this, 'portfolio', { settings }, 'buffer', (request) => {
		page = request.page;
	}) as (request: PageRequest) => Promise<PageAnswer<Buffer>>;
	try {
		for await (const answer of cursorPages(fetchPage, paging, { from: reading.next })) {
			const rows = reading.csv.rows(settings.redactBytes(answer.content));
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
				reading.rows.set(rowKe, row, Date.now());
				if (rowKe === ke) match = row;
			}
			// Stops here: the next page is fetched only by a later lookup that needs it.
			if (match !== undefined) return match;
		}
	} catch (error) {
		reading.failed = true;
		throw lookupFailed.call(this, error, page);
	}
	if (fromStart) reading.absent.set(ke, true, Date.now());
	return unsure ? 'unsure' : undefined;
}

const KEPT = 'The alert is not lost: the Service was told it was received, and this failed execution keeps the event, so retry it in n8n (Executions, Retry) once the portfolio can be read.';

function lookupFailed(this: IExecuteFunctions, error: unknown, page: number): Error {
	const what = `Add Company Details could not read page ${page} of the portfolio export`;
	if (error instanceof NodeApiError) {
		error.message = `${what}: ${error.message}`;
		error.description = `${error.description ?? ''} ${KEPT} Or turn Add Company Details off.`.trim();
		return error;
	}
	return new NodeOperationError(this.getNode(), `${what}: ${(error as Error).message}`, {
		description: `Check CSV Delimiter and CSV Header Row on Later Pages under Advanced Settings in the Service API credential. ${KEPT}`,
	});
}
