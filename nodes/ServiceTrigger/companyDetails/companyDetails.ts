/**
 * Add Company Details: each event's company (name, tier, status, decision due) from the portfolio
 * export (CSV), looked up in the execution's trigger step, never in webhook(), so the Service's 2xx
 * stays quick (spec section 6, rule 3). How the portfolio is read and held: portfolioReadings.ts.
 *
 * Cost: events that change the company's row (share_*, reader_tier_changed, reader_decision_due,
 * ledger_*) need the portfolio read after they arrived, up to the company's page; such events arriving
 * together share one reading. Other events use what was read in the last 5 minutes: one full portfolio
 * read per 5 minutes per credential, and past 10,000 companies one more per company pushed out (up to
 * its page) or not listed (every page). A reading asks for at most Company Details Max Pages pages.
 * Memory: portfolioReadings.ts COMPANY_LIMITS (companies, bytes, credentials, 5 minutes).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { addLater, withAdded } from '../../shared/addedFields';
import { isRecord } from '../../shared/answerShape';
import { columnNamed, PORTFOLIO_COLUMNS } from '../../shared/csv';
import { KeColumnError } from '../../shared/keColumn';
import { PageCapError, type PageAnswer, type PageRequest } from '../../shared/paging';
import { exportPaging, pageFetcher } from '../../shared/transport/pageFetch';
import { getServiceSettings } from '../../shared/transport/serviceRequest';
import { PortfolioReadings, type PortfolioSource, type Row } from './portfolioReadings';

/** Events whose meaning is a change to the company's portfolio row: what was read before may be out of date. */
export const CHANGES_ROW = /^(share_granted|share_revoked|reader_tier_changed|reader_decision_due|ledger_.+)$/;

/** One per n8n process, shared by every Service Trigger; keyed by Base URL and credential. */
export const portfolioReadings = new PortfolioReadings();

/** The default of the trigger's Company Details Max Pages option: 1,000 pages, far below Max Pages' 100,000. */
export const COMPANY_DETAILS_MAX_PAGES = 1000;

/** The trigger's step: each item naming a company gets `company`; the rest pass on unchanged. */
export async function addCompanyDetails(this: IExecuteFunctions, items: INodeExecutionData[], maxPages: unknown = COMPANY_DETAILS_MAX_PAGES): Promise<INodeExecutionData[]> {
	// The KE from the body's own ids.organisation: a `ke` the Service sent itself is passed on, never looked up.
	const keOf = (item: INodeExecutionData) => {
		const ids = item.json.ids;
		const organisation = isRecord(ids) ? ids.organisation : undefined;
		const ke = typeof organisation === 'string' || typeof organisation === 'number' ? String(organisation).trim() : '';
		return ke === '' ? undefined : ke;
	};
	const kes = [...new Set(items.map(keOf).filter((ke): ke is string => ke !== undefined))];
	if (kes.length === 0) return items;
	if (typeof maxPages !== 'number' || !Number.isInteger(maxPages) || maxPages < 1) {
		throw new NodeOperationError(this.getNode(), `Company Details Max Pages must be a whole number of 1 or more, not ${JSON.stringify(maxPages)}`, {
			description: `Set Company Details Max Pages in the Service Trigger's Options (default ${COMPANY_DETAILS_MAX_PAGES}).`,
		});
	}
	const settings = await getServiceSettings.call(this);
	// The lower cap applies, and its error names it.
	const cap = maxPages <= settings.maxPages ? { pages: maxPages, setting: CAP_OPTION } : { pages: settings.maxPages, setting: CAP_CREDENTIAL };
	const credential = this.getNode().credentials?.serviceApi;
	const key = `${settings.baseUrl}\u0000${credential?.id ?? credential?.name ?? ''}`;
	const fresh = items.some((item) => keOf(item) !== undefined && CHANGES_ROW.test(String(item.json.event_type)));
	const fetchPage = pageFetcher.call(this, 'portfolio', { settings }, 'buffer') as (request: PageRequest) => Promise<PageAnswer<Buffer>>;
	const source: PortfolioSource = {
		fetchPage: async (request) => {
			const answer = await fetchPage(request);
			return { ...answer, content: settings.redactBytes(answer.content) };
		},
		paging: { ...exportPaging(settings, { format: 'csv' }), maxPages: cap.pages },
		csv: { delimiter: settings.csvDelimiter, headerRepeat: settings.csvHeaderRepeat },
		failed: (page, error) => lookupFailed.call(this, error, page, cap.setting),
	};
	const found = await portfolioReadings.lookUp(key, kes, fresh, source);
	return items.map((item) => {
		const ke = keOf(item);
		if (ke === undefined) return item;
		const row = found.get(ke);
		return { ...item, json: addLater(item.json, 'company', row === undefined ? { ke, shared: false } : companyOf(ke, row)) as IDataObject };
	});
}

/** The row whole, by the Service's column names, with `ke`, `name` and `shared` beside its columns, never instead (addedFields.ts). */
export function companyOf(ke: string, row: Row): IDataObject {
	const nameColumn = columnNamed(Object.keys(row), PORTFOLIO_COLUMNS.name);
	const added: IDataObject = { ke, ...(nameColumn === undefined ? {} : { name: row[nameColumn] }), shared: true };
	const company = withAdded(row, added);
	// `ke` and `name` lead, as before, where they hold the node's value.
	const lead = ['ke', 'name'].filter((key) => Object.prototype.hasOwnProperty.call(company, key) && company[key] === added[key]);
	return Object.fromEntries([...lead.map((key) => [key, company[key]]), ...Object.entries(company).filter(([key]) => !lead.includes(key))]) as IDataObject;
}

const KEPT = 'The alert is not lost: the Service was told it was received, and this failed execution keeps the event, so retry it in n8n (Executions, Retry) once the portfolio can be read.';

const CAP_OPTION = "Company Details Max Pages (the Service Trigger's Options)";
const CAP_CREDENTIAL = 'Max Pages (Advanced Settings of the Service API credential)';

/** A new error for each execution: a failed reading fails every lookup sharing it, each with its own node. */
function lookupFailed(this: IExecuteFunctions, error: unknown, page: number, capSetting: string): Error {
	if (error instanceof PageCapError) {
		return new NodeOperationError(
			this.getNode(),
			`Add Company Details stopped reading the portfolio export: it still had a further page after ${error.maxPages} pages, the limit set by ${capSetting}`,
			{
				description: `A reading of the portfolio asks for at most that many pages, shared by the alerts waiting on it, so a portfolio whose cursor never ends cannot cost more. If the portfolio really is that long, raise ${capSetting}; if not, the Service's cursor does not end: tell its operator. ${KEPT}`,
			},
		);
	}
	const what = `Add Company Details could not read page ${page} of the portfolio export`;
	if (error instanceof NodeApiError) {
		// A copy: the error n8n made of the answer, words and all, with this execution's node.
		const copy = Object.create(Object.getPrototypeOf(error) as object, Object.getOwnPropertyDescriptors(error)) as NodeApiError;
		Object.defineProperty(copy, 'node', { value: this.getNode(), enumerable: true, writable: false, configurable: true });
		copy.message = `${what}: ${error.message}`;
		copy.description = `${error.description ?? ''} ${KEPT} Or turn Add Company Details off.`.trim();
		return copy;
	}
	if (error instanceof KeColumnError) {
		return new NodeOperationError(this.getNode(), `${what}: ${error.message}`, {
			description: `Its KE column is found by name (ke, or a name with the word ke such as company_ke) or by its values; the portfolio's columns leave it open, so turn Add Company Details off. ${KEPT}`,
		});
	}
	return new NodeOperationError(this.getNode(), `${what}: ${(error as Error).message}`, {
		description: `Check CSV Delimiter and CSV Header Row on Later Pages under Advanced Settings in the Service API credential. ${KEPT}`,
	});
}
