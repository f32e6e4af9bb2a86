/**
 * The bytes the file export's CSV filter (`csvPageFilter.ts`) looks for, its cap on a record held,
 * and the words for a record past it. Pure: no n8n types.
 */
import { CsvFormatError, FORMULA_GUARD, FORMULA_STARTS } from '../../shared/csv';

/** UTF-8's byte order mark (EF BB BF). */
export const BOM_BYTES: Buffer = Buffer.from([0xef, 0xbb, 0xbf]);
/** The most of one CSV record held at once to read it (the header row, a row under a window). */
export const HELD_RECORD_BYTES = 1024 * 1024;

export const QUOTE = 0x22;
export const CR = 0x0d;
export const LF = 0x0a;
export const GUARD = FORMULA_GUARD.charCodeAt(0);
export const STARTS = new Set([...FORMULA_STARTS].map((ch) => ch.charCodeAt(0)));
export const LINE_ENDS: Record<string, Buffer> = { '\r\n': Buffer.from('\r\n'), '\n': Buffer.from('\n'), '\r': Buffer.from('\r') };
/** A byte count in words: MiB from 1 MiB. */
export const sized = (bytes: number) => (bytes >= 1024 * 1024 ? `${+(bytes / 1024 / 1024).toFixed(2)} MiB` : `${bytes} bytes`);

/** Why a record held to be read whole is refused: the first page's header row, a later page's first row, a row under a window. */
export function heldRecordTooLong(which: 'header' | 'first' | 'window', cap: number, row: number): CsvFormatError {
	const record = `a single CSV record longer than ${sized(cap)}, the most the file export holds of one record before writing it`;
	if (which === 'header') return new CsvFormatError(`Its header row is ${record}, so it is not a header row: check that the Base URL reaches the Service`);
	if (which === 'first') {
		return new CsvFormatError(
			`Its first row is ${record}, so it cannot be told from a repeated header row: set CSV Header Row on Later Pages to First Page Only under Advanced Settings in the Service API credential if later pages never repeat it`,
		);
	}
	return new CsvFormatError(`Row ${row} of the page is ${record}, so it cannot be checked against the expiries window: choose All Windows to get the export without the check`);
}

/** Where the first record of `bytes` from `from` ends (its line end), or -1 when it has not ended yet. */
export function firstRecordEndOf(bytes: Buffer, from: number): number {
	let quoted = false;
	for (let i = from; i < bytes.length; i++) {
		const ch = bytes[i];
		// Inside a well-formed record a quote toggles, a doubled quote toggles twice.
		if (ch === QUOTE) quoted = !quoted;
		else if (!quoted && (ch === LF || ch === CR)) return i;
	}
	return -1;
}
