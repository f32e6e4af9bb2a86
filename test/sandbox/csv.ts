/** Characters that make a spreadsheet read a text cell as a formula (spec section 2, rule 2). */
const formulaStarts = new Set(['=', '+', '-', '@', '\t', '\r']);

export type CsvValue = string | number | boolean | null | undefined;

/** One CSV cell: text cells that would read as a formula get a leading quote, then RFC 4180 quoting. */
export function csvCell(value: CsvValue): string {
	if (value === null || value === undefined) return '';
	if (typeof value !== 'string') return String(value);
	const guarded = value.length > 0 && formulaStarts.has(value[0]) ? `'${value}` : value;
	return /[",\r\n]/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

export function csvLine(values: readonly CsvValue[]): string {
	return `${values.map(csvCell).join(',')}\r\n`;
}
