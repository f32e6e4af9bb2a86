import { listFromBody } from './answerShape';
import type { CsvPages } from './csv';
import { csvPageRead } from './csvText';
import type { ServiceSettings } from './transport/settings';

/**
 * The rows of one export page: CSV read with the export's one `CsvPages` (header row and delimiter
 * found on the first page), else the list in a JSON answer. Used by the Reader's exports as items
 * and by the Service Changes Trigger. CSV bytes are decoded by their charset first (csvText.ts).
 */
export function pageRows(content: unknown, csv: CsvPages | undefined, settings: Pick<ServiceSettings, 'redact'>, contentType?: string): unknown[] {
	return csv === undefined ? listFromBody(content) : csv.rows(settings.redact(csvPageRead(content as Buffer, contentType, csv)));
}
