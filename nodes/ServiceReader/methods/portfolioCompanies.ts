/**
 * The company picker's reading of one portfolio export page. Pure: no n8n types. The picker fetches
 * one page per list search, so what the first page told (its header row and delimiter) travels with
 * the Service's cursor in n8n's pagination token: a later page need not repeat the header row.
 */
import type { CsvDelimiter, CsvReading } from '../../shared/csv';
import { columnNamed, CsvPages, PORTFOLIO_COLUMNS, stripFormulaGuard } from '../../shared/csv';
import { keColumnOf } from '../../shared/keColumn';

/** Where the next list search picks up: the Service's cursor and what the first page told. */
export interface PickerToken {
	cursor: string;
	/** 1-based number of the page the cursor fetches, for error words. */
	page: number;
	header: string[];
	delimiter: CsvDelimiter;
	/** The KE column the first page was read with (keColumn.ts), so a later page reads the same one. */
	ke?: string;
	/** The first page's rows as one order-free digest (paging.ts pageSum), and its header line's digest: a later page repeating them stops the list. */
	first?: string;
	headerLine?: string;
}

export interface CompanyChoice {
	name: string;
	value: string;
}

const DELIMITERS: readonly string[] = [',', ';', '\t', '|'];

export function encodePickerToken(token: PickerToken): string {
	return JSON.stringify(token);
}

/** The token n8n handed back, or undefined when it is not one this picker made. */
export function decodePickerToken(text: string): PickerToken | undefined {
	let token: Partial<PickerToken>;
	try {
		token = JSON.parse(text) as Partial<PickerToken>;
	} catch {
		return undefined;
	}
	const { cursor, page, header, delimiter, ke, first, headerLine } = token ?? {};
	const valid =
		typeof cursor === 'string' &&
		cursor !== '' &&
		Number.isInteger(page) &&
		(page as number) >= 2 &&
		Array.isArray(header) &&
		header.every((cell) => typeof cell === 'string') &&
		typeof delimiter === 'string' &&
		DELIMITERS.includes(delimiter) &&
		(ke === undefined || (typeof ke === 'string' && header.includes(ke))) &&
		(first === undefined || typeof first === 'string') &&
		(headerLine === undefined || typeof headerLine === 'string');
	return valid ? (token as PickerToken) : undefined;
}

/** A company name on one line, without the Service's spreadsheet formula guard. */
export function displayName(cell: string | undefined): string {
	return stripFormulaGuard(cell ?? '').replace(/\s+/g, ' ').trim();
}

export interface CompanyPage {
	choices: CompanyChoice[];
	header: string[];
	delimiter: CsvDelimiter;
	/** The KE column, once a page with rows told it. */
	ke: string | undefined;
}

/**
 * The companies of one portfolio page as picker choices ("name (KE)", the KE as value), those whose
 * name or KE holds `filter` (case-insensitive). `from` is the token of a later page, else undefined.
 */
export function companyChoices(content: Buffer | string, reading: CsvReading, from: PickerToken | undefined, filter = ''): CompanyPage {
	const csv = new CsvPages(from ? { ...reading, delimiter: from.delimiter } : reading);
	if (from) csv.header = from.header;
	const rows = csv.rows(content);
	const header = csv.header ?? [];
	if (csv.header === undefined || csv.delimiter === undefined) return { choices: [], header, delimiter: csv.delimiter ?? ',', ke: undefined };
	if (from?.ke === undefined && rows.length === 0) return { choices: [], header, delimiter: csv.delimiter, ke: undefined };
	// By name, else by the shape of this page's values (the first page with rows; later pages keep its column).
	const keColumn = from?.ke ?? keColumnOf(header, rows);
	const nameColumn = columnNamed(header, PORTFOLIO_COLUMNS.name);
	const wanted = filter.trim().toLowerCase();
	const choices: CompanyChoice[] = [];
	for (const row of rows) {
		const ke = row[keColumn].trim();
		if (ke === '') continue;
		const name = nameColumn === undefined ? '' : displayName(row[nameColumn]);
		if (wanted !== '' && !ke.toLowerCase().includes(wanted) && !name.toLowerCase().includes(wanted)) continue;
		choices.push({ name: name === '' ? ke : `${name} (${ke})`, value: ke });
	}
	return { choices, header, delimiter: csv.delimiter, ke: keColumn };
}
