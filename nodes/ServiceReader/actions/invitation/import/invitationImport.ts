/**
 * Invitation import: building the CSV from mapped values, counting the rows of a file, and reading
 * the Service's per-row answer (docs/service-choices.md: Invitation import). Pure: no n8n types.
 * Checking the rows (names, emails, duplicates) and the formula guard are the Service's business;
 * here the CSV is only quoted correctly, and every row sent must come back answered.
 */
import { parse } from 'csv-parse/sync';

import { findId, findList, findText, isRecord, sampleOf } from '../../../../shared/answerShape';
import { CsvPages } from '../../../../shared/csv';

export const IMPORT_COLUMNS = ['company_name', 'registration_number', 'work_email', 'reader_reference'] as const;
export type ImportColumn = (typeof IMPORT_COLUMNS)[number];
export type ImportRow = Record<ImportColumn, string>;

/** Display names of the mapping parameters, for messages. */
export const IMPORT_COLUMN_LABELS: Record<ImportColumn, string> = {
	company_name: 'Company Name',
	registration_number: 'Registration Number',
	work_email: 'Work Email',
	reader_reference: 'Reader Reference',
};

/** The reader's own reference may be left out; the other columns must map to something. */
const OPTIONAL_COLUMNS: readonly ImportColumn[] = ['reader_reference'];

/** One CSV field, quoted when it holds a delimiter, quote, line break or edge whitespace (RFC 4180). */
export function csvField(value: string): string {
	return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The import file for these rows: header, one CRLF-terminated line per row. */
export function buildImportCsv(rows: readonly ImportRow[]): string {
	const lines = [IMPORT_COLUMNS.join(','), ...rows.map((row) => IMPORT_COLUMNS.map((c) => csvField(row[c])).join(','))];
	return `${lines.join('\r\n')}\r\n`;
}

export type MappedCell = { ok: true; value: string } | { ok: false; problem: string };

/**
 * The text of one mapped column for one item. Empty text is sent as it is (the Service answers
 * that row in words); no value at all means the mapping points at a field the item does not have.
 */
export function mappedCell(column: ImportColumn, value: unknown): MappedCell {
	const label = IMPORT_COLUMN_LABELS[column];
	if (value === undefined || value === null) {
		if (OPTIONAL_COLUMNS.includes(column)) return { ok: true, value: '' };
		return {
			ok: false,
			problem: `The ${label} mapping gives no value: point it at the item's field that holds the ${label.toLowerCase()} (e.g. {{ $json.${column} }}), or enter an empty text on purpose.`,
		};
	}
	if (typeof value === 'string') return { ok: true, value };
	if (typeof value === 'number' || typeof value === 'bigint') return { ok: true, value: String(value) };
	const kind = Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : typeof value;
	return { ok: false, problem: `The ${label} mapping gives ${kind}, not text: map it to a single text field.` };
}

export interface ImportFileRows {
	/** Data rows (records after the header, blank lines skipped). */
	count: number;
	/** Data rows by header name, for rows the Service answers without their data. */
	rows: Array<Record<string, string>>;
	/** Set when the file could not be read to its end (e.g. an unclosed quote); `count` is then a lower bound. */
	unreadableFrom?: string;
}

/** Counts and reads the data rows of an import file the way an RFC 4180 reader would. */
export function readImportFile(bytes: Uint8Array): ImportFileRows {
	// Lossy decoding: a file in the wrong encoding still has rows to count; the Service names the encoding problem.
	const text = new TextDecoder('utf-8').decode(bytes);
	const records: string[][] = [];
	let unreadableFrom: string | undefined;
	try {
		parse(text, {
			bom: true,
			relax_column_count: true,
			relax_quotes: true,
			skip_empty_lines: true,
			on_record: (record: string[]) => {
				records.push(record);
				return record;
			},
		});
	} catch (error) {
		// The record being read when the parser stopped is one more row the Service may or may not answer.
		unreadableFrom = (error as Error).message;
		records.push([]);
	}
	const isBlank = (record: string[]) => record.length === 1 && record[0].trim() === '';
	const [header = [], ...data] = records.filter((record) => !isBlank(record));
	const names = header.map((name) => name.trim());
	return {
		count: data.length,
		rows: data.map((values) => Object.fromEntries(names.map((name, i) => [name, values[i]]).filter(([, v]) => v !== undefined))),
		unreadableFrom,
	};
}

export interface ImportAnswerRow {
	row: number;
	ok: boolean;
	check: string;
	invitation_id?: string;
	data?: Record<string, unknown>;
	/** Every field the Service sent for the row. */
	said: Record<string, unknown>;
}

/** Where the Service may put each part of a row's answer (docs/service-choices.md: Invitation import). */
const ROW_NUMBER = ['row', 'row_number', 'rowNumber', 'line', 'line_number'];
const ROW_OK = ['ok', 'accepted', 'valid', 'success'];
const ROW_STATUS = ['status', 'result', 'outcome'];
const ROW_REASON = ['check', 'reason', 'message', 'problem', 'error', 'detail', 'details', 'explanation', 'note'];
const ROW_INVITATION = ['invitation_id', 'invitationId', 'invitation'];
const ROW_HTTP_STATUS = ['status_code', 'statusCode', 'http_status', 'httpStatus', 'code'];
const ACCEPTED = /^(ok|accepted|invited|sent|created|valid|success)$/i;
const REFUSED = /^(refused|rejected|invalid|error|failed|declined|skipped)$/i;

function rowOk(record: Record<string, unknown>): boolean | undefined {
	for (const name of ROW_OK) {
		const value = record[name];
		if (typeof value === 'boolean') return value;
		// CSV has no booleans.
		if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
	}
	for (const name of ROW_STATUS) {
		const value = record[name];
		if (typeof value === 'string' && ACCEPTED.test(value.trim())) return true;
		if (typeof value === 'string' && REFUSED.test(value.trim())) return false;
	}
	// A 207 Multi-Status answer gives each row its own HTTP status: 2xx accepted, 4xx or 5xx refused.
	for (const name of [...ROW_STATUS, ...ROW_HTTP_STATUS]) {
		const value = typeof record[name] === 'string' && /^\d{3}$/.test((record[name] as string).trim()) ? Number(record[name]) : record[name];
		if (typeof value === 'number' && Number.isInteger(value) && value >= 200 && value <= 599) return value < 300;
	}
	return undefined;
}

/** A refused row's words: a reason by name, else each entry of its `errors` (RFC 9457's extension, JSON:API's `errors[]`) as "field: detail". */
function rowReason(record: Record<string, unknown>): string | undefined {
	const named = findText(record, ROW_REASON, [...ROW_NUMBER, ...ROW_STATUS, ...ROW_HTTP_STATUS, ...ROW_INVITATION, 'id', 'ok', 'data', 'errors']);
	if (named !== undefined) return named;
	const errors = Array.isArray(record.errors) ? record.errors : isRecord(record.errors) ? [record.errors] : isRecord(record.error) ? [record.error] : [];
	const words = errors.filter(isRecord).slice(0, 20).map((error) => {
		const detail = findText(error, ['detail', 'message', 'title', 'reason', 'error', 'code']);
		const source = isRecord(error.source) ? error.source : error;
		const field = findText(source, ['pointer', 'field', 'name', 'path', 'parameter', 'param'], ['detail', 'message', 'title', 'reason', 'error', 'code', 'type', 'status']);
		return detail === undefined ? undefined : field === undefined ? detail : `${field.startsWith('/') ? field.slice(1) : field}: ${detail}`;
	});
	const said = words.filter((word): word is string => word !== undefined);
	return said.length > 0 ? said.join('; ') : undefined;
}

function rowNumber(record: Record<string, unknown>): number | undefined {
	for (const name of ROW_NUMBER) {
		const value = typeof record[name] === 'string' ? Number(record[name]) : record[name];
		if (typeof value === 'number' && Number.isInteger(value) && value >= 1) return value;
	}
	return undefined;
}

/** The rows of an import answer sent as CSV; its empty cells are left out, as JSON would leave them out. */
function csvAnswerRows(text: string): Array<Record<string, string>> {
	const rows = new CsvPages({ delimiter: 'auto', headerRepeat: 'auto' }).rows(text);
	return rows.map((row) => Object.fromEntries(Object.entries(row).filter(([, value]) => value !== '')));
}

export class ImportAnswerError extends Error {
	constructor(
		message: string,
		/** The first row sent that got no answer, when that is the problem. */
		readonly firstUnanswered?: number,
	) {
		super(message);
	}
}

/**
 * The Service's rows, one per row sent and in order. Fails, quoting the Service's own checks, when
 * a row sent got no answer, so a refused or lost row is never dropped silently.
 */
export function matchImportAnswer(body: unknown, sent: number, countIsLowerBound = false): ImportAnswerRow[] {
	// An answer sent as CSV (by its content type) is the same rows, one per line.
	const list = typeof body === 'string' ? csvAnswerRows(body) : findList(body, ['rows', 'results', 'checks', 'items', 'data'], 'row');
	if (!list) {
		throw new ImportAnswerError(
			`The Service's answer to the import has no list of rows, so the result of each row is unknown. It sent: ${sampleOf(body)}`,
		);
	}
	const byRow = new Map<number, ImportAnswerRow>();
	list.forEach((entry, index) => {
		if (!isRecord(entry)) throw new ImportAnswerError(`The Service answered a row the node cannot read: ${sampleOf(entry)}.`);
		// Without a row number, the answers are taken to be in the order the rows were sent.
		const row = rowNumber(entry) ?? (ROW_NUMBER.some((name) => name in entry) ? undefined : index + 1);
		const ok = rowOk(entry);
		if (row === undefined || ok === undefined) {
			throw new ImportAnswerError(`The Service answered a row the node cannot read: ${sampleOf(entry)}.`);
		}
		if (byRow.has(row)) throw new ImportAnswerError(`The Service answered row ${row} twice.`);
		const invitationId = findId(entry, ok ? [...ROW_INVITATION, 'id'] : ROW_INVITATION);
		byRow.set(row, {
			row,
			ok,
			check: rowReason(entry) ?? '',
			...(invitationId !== undefined ? { invitation_id: invitationId } : {}),
			...(isRecord(entry.data) ? { data: entry.data } : {}),
			said: entry,
		});
	});
	// Numbered by line of the uploaded file (the header is line 1): rows 2..n+1 answer the n rows sent.
	if (!countIsLowerBound && sent > 0 && byRow.size === sent && !byRow.has(1) && [...byRow.keys()].every((row) => row >= 2 && row <= sent + 1)) {
		const byLine = [...byRow.values()];
		byRow.clear();
		for (const answer of byLine) byRow.set(answer.row - 1, { ...answer, row: answer.row - 1 });
	}
	// A file read only in part may hold more rows than counted: the answered rows that follow on from
	// them count too. A made-up row number beyond that is reported, never counted up to.
	let expected = sent;
	if (countIsLowerBound) while (byRow.has(expected + 1)) expected++;
	const missing: number[] = [];
	for (let row = 1; row <= expected; row++) if (!byRow.has(row)) missing.push(row);
	const extra = [...byRow.keys()].filter((row) => row > expected);
	if (missing.length === 0 && extra.length === 0) {
		return [...byRow.values()].sort((a, b) => a.row - b.row);
	}
	const answered = [...byRow.values()]
		.sort((a, b) => a.row - b.row)
		.map((r) => `row ${r.row}: ${r.ok ? 'accepted' : 'refused'}${r.check ? `, "${r.check}"` : ''}`);
	const problem = missing.length
		? `The Service answered ${byRow.size} of the ${expected} rows sent: row${missing.length > 1 ? 's' : ''} ${rangeList(missing)} got no answer.`
		: `The Service answered row${extra.length > 1 ? 's' : ''} ${rangeList(extra)}, but only ${expected} row${expected === 1 ? ' was' : 's were'} sent.`;
	throw new ImportAnswerError(
		`${problem} Check the file and import the unanswered rows again.${answered.length ? ` The Service said: ${answered.join('; ')}.` : ''}`,
		missing[0],
	);
}

/** 1-5, 7, 9-10 */
function rangeList(numbers: number[]): string {
	const parts: string[] = [];
	for (let i = 0; i < numbers.length; i++) {
		let j = i;
		while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
		parts.push(j > i ? `${numbers[i]}-${numbers[j]}` : String(numbers[i]));
		i = j;
	}
	return parts.join(', ');
}
