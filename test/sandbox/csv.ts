import type { Encoding } from './csvEncoding';

/** Characters that make a spreadsheet read a text cell as a formula (spec section 2, rule 2). */
const formulaStarts = new Set(['=', '+', '-', '@', '\t', '\r']);

export type CsvValue = string | number | boolean | null | undefined;

/** How a Service writes its CSV, where the spec says "not shown" (docs/service-choices.md). */
export interface CsvFormat {
	delimiter: ',' | ';' | '\t' | '|';
	/** Whether every page starts with the header row, or only the first. */
	headerEveryPage: boolean;
	lineEnd: '\r\n' | '\n';
	/** A byte order mark at the start of every page. */
	bom: boolean;
	/** Every cell quoted, or only those that need it. */
	quoteAll: boolean;
	/** The page's charset (csvEncoding.ts); UTF-8 when absent. */
	encoding?: Encoding;
	/** Excel's `sep=X` first line on every page, naming the delimiter. */
	sep?: boolean;
}

export const defaultCsvFormat: CsvFormat = { delimiter: ',', headerEveryPage: true, lineEnd: '\r\n', bom: false, quoteAll: false };

/** One CSV cell: text cells that would read as a formula get a leading quote, then RFC 4180 quoting. */
export function csvCell(value: CsvValue, format: CsvFormat = defaultCsvFormat): string {
	if (value === null || value === undefined) return format.quoteAll ? '""' : '';
	const text = typeof value === 'string' ? value : String(value);
	const guarded = typeof value === 'string' && text.length > 0 && formulaStarts.has(text[0]) ? `'${text}` : text;
	const needsQuotes = format.quoteAll || /["\r\n]/.test(guarded) || guarded.includes(format.delimiter);
	return needsQuotes ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

export function csvLine(values: readonly CsvValue[], format: CsvFormat = defaultCsvFormat): string {
	return `${values.map((value) => csvCell(value, format)).join(format.delimiter)}${format.lineEnd}`;
}
