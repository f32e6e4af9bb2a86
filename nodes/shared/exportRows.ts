import { listFromBody } from './answerShape';
import type { CsvPages } from './csv';
import { csvPageRead } from './csvText';
import type { ServiceSettings } from './transport/settings';

/**
 * The rows of one export page: CSV read with the export's one `CsvPages` (header row and delimiter
 * found on the first page), else the list in a JSON answer. All held: for JSON answers and small
 * pages; an export's CSV pages go through `eachPageRow`. CSV bytes are decoded by their charset first (csvText.ts).
 */
export function pageRows(content: unknown, csv: CsvPages | undefined, settings: Pick<ServiceSettings, 'redact'>, contentType?: string): unknown[] {
	return csv === undefined ? listFromBody(content) : csv.rows(settings.redact(csvPageRead(content as Buffer, contentType, csv)));
}

/**
 * Each row of one export page to `visit`, until it returns false: CSV read record by record (a row
 * object made only for a row visited, never a page of them), a JSON answer's list as parsed. Used by
 * the Reader's exports as items, so Limit applies before a page's rows are held.
 */
export function eachPageRow(content: unknown, csv: CsvPages | undefined, settings: Pick<ServiceSettings, 'redact'>, visit: (row: unknown) => boolean, contentType?: string): void {
	if (csv === undefined) {
		for (const row of listFromBody(content)) if (!visit(row)) return;
		return;
	}
	csv.page(settings.redact(csvPageRead(content as Buffer, contentType, csv))).each((cells) => visit(csv.row(cells)));
}
