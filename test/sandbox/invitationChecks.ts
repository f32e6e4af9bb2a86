import { parseCsv } from './csvRead';
import type { Invitation } from './types';

export const importColumns = ['company_name', 'registration_number', 'work_email', 'reader_reference'] as const;
export type ImportColumn = (typeof importColumns)[number];
export type InvitationInput = Record<ImportColumn, string>;

/** Longest accepted value per field, in characters. */
export const fieldLimits: Record<ImportColumn, number> = {
	company_name: 200,
	registration_number: 40,
	work_email: 254,
	reader_reference: 100,
};

/** Free-mail domains: an invitation must go to a work address at the company. */
export const freeMailDomains = new Set([
	'gmail.com', 'googlemail.com', 'yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'outlook.com', 'hotmail.com',
	'hotmail.co.uk', 'live.com', 'msn.com', 'aol.com', 'icloud.com', 'me.com', 'mail.com', 'gmx.com', 'gmx.de',
	'web.de', 'proton.me', 'protonmail.com', 'yandex.ru',
]);

const emailPattern = /^[^\s@",;<>()[\]]+@([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})$/;
const columnList = importColumns.join(',');

/** Registration numbers compare without case or spaces. */
export function registrationKey(value: string): string {
	return value.replace(/\s+/g, '').toUpperCase();
}

/** Plain-words problems with one invitation's fields (not duplicates). */
export function fieldProblems(input: Partial<Record<ImportColumn, unknown>>): string[] {
	const problems: string[] = [];
	for (const column of importColumns) {
		const value = input[column];
		if (value !== undefined && value !== null && typeof value !== 'string') {
			problems.push(`${column} must be text, not ${Array.isArray(value) ? 'a list' : typeof value}.`);
		}
	}
	if (problems.length) return problems;
	const text = (column: ImportColumn) => ((input[column] as string | undefined) ?? '').trim();
	if (!text('company_name')) problems.push('The company name is missing: fill in company_name.');
	if (!text('registration_number')) {
		problems.push('The registration number is missing: fill in registration_number from the company register.');
	}
	const email = text('work_email');
	if (!email) {
		problems.push('The work email is missing: fill in work_email with a contact at the company.');
	} else {
		const match = emailPattern.exec(email);
		if (!match) {
			problems.push(`The work email "${email}" is not a valid email address: check it for typos.`);
		} else if (freeMailDomains.has(match[1].toLowerCase())) {
			problems.push(`The work email "${email}" is a personal free-mail address (${match[1].toLowerCase()}): use the contact's work address at the company.`);
		}
	}
	for (const column of importColumns) {
		const length = text(column).length;
		if (length > fieldLimits[column]) {
			problems.push(`${column} is ${length} characters long; the limit is ${fieldLimits[column]}: shorten it.`);
		}
	}
	return problems;
}

/** The problem when an invitation for the same registration number already exists, if one does. */
export function existingDuplicate(registrationNumber: string, existing: readonly Invitation[]): string | undefined {
	const key = registrationKey(registrationNumber);
	const found = existing.find((i) => registrationKey(i.registration_number) === key);
	return found
		? `An invitation for registration number ${registrationNumber.trim()} already exists (${found.id}, status ${found.status}): it was not sent again.`
		: undefined;
}

export interface ImportRowCheck {
	row: number;
	ok: boolean;
	check: string;
	data: Record<string, string>;
	/** The invitation to create when ok. */
	input?: InvitationInput;
}

export type ImportCheckResult =
	| { kind: 'unreadable'; message: string }
	| { kind: 'rows'; rows: ImportRowCheck[] };

function normaliseHeader(name: string): string {
	return name.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

/** Where the first byte that is not UTF-8 sits, as a 1-based line number. */
function firstBadLine(bytes: Buffer): number {
	const lossy = new TextDecoder('utf-8').decode(bytes);
	const at = lossy.indexOf('\uFFFD');
	return lossy.slice(0, at).split('\n').length;
}

/**
 * Checks an invitation import file and answers every row in plain words. File-level problems (encoding,
 * header) refuse every row with the reason; row problems refuse that row only.
 */
export function checkImport(bytes: Buffer, existing: readonly Invitation[]): ImportCheckResult {
	const fileProblems: string[] = [];
	let text: string;
	try {
		text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
	} catch {
		text = new TextDecoder('utf-8').decode(bytes);
		fileProblems.push(
			`The file is not UTF-8 text (the first invalid byte is on line ${firstBadLine(bytes)}): save it as "CSV UTF-8" and upload it again.`,
		);
	}
	if (text.trim() === '') {
		return { kind: 'unreadable', message: `The file is empty: send a CSV with the header ${columnList} and one row per company.` };
	}
	const parsed = parseCsv(text);
	if (parsed.unclosedQuoteLine !== undefined) {
		fileProblems.push(`A quoted value starting on line ${parsed.unclosedQuoteLine} is never closed: close the quote or remove it.`);
	}
	const [header, ...dataRecords] = parsed.records;
	if (!header) return { kind: 'unreadable', message: fileProblems.join(' ') };
	if (dataRecords.length === 0) {
		return {
			kind: 'unreadable',
			message: fileProblems.length
				? fileProblems.join(' ')
				: 'The file has a header but no rows: add one row per company under the header.',
		};
	}

	const columns = header.values.map(normaliseHeader);
	const known = new Set<string>(importColumns);
	const unknown = columns.filter((c) => !known.has(c));
	if (unknown.length) {
		fileProblems.push(
			`Unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `"${c}"`).join(', ')} in the header: the columns are ${columnList}.`,
		);
	}
	const missing = importColumns.filter((c) => c !== 'reader_reference' && !columns.includes(c));
	if (missing.length) {
		fileProblems.push(`The header has no ${missing.join(', ')} column: the columns are ${columnList}.`);
	}
	const repeated = columns.filter((c, i) => columns.indexOf(c) !== i);
	if (repeated.length) fileProblems.push(`The header repeats the column ${repeated[0]}: keep each column once.`);

	const seen = new Map<string, number>();
	const rows = dataRecords.map((record, index): ImportRowCheck => {
		const row = index + 1;
		const data: Record<string, string> = {};
		columns.forEach((column, i) => {
			if (i < record.values.length) data[column] = record.values[i];
		});
		if (fileProblems.length) return { row, ok: false, check: fileProblems.join(' '), data };
		if (record.values.length > columns.length) {
			return {
				row, ok: false, data,
				check: `Row has ${record.values.length} values but the header has ${columns.length} columns: put quotes around values that contain commas.`,
			};
		}
		if (record.values.length < columns.length) {
			return {
				row, ok: false, data,
				check: `Row has ${record.values.length} value${record.values.length === 1 ? '' : 's'} but the header has ${columns.length} columns: fill in every column, even if empty.`,
			};
		}
		const input: InvitationInput = {
			company_name: (data.company_name ?? '').trim(),
			registration_number: (data.registration_number ?? '').trim(),
			work_email: (data.work_email ?? '').trim(),
			reader_reference: (data.reader_reference ?? '').trim(),
		};
		const problems = fieldProblems(input);
		if (input.registration_number) {
			const key = registrationKey(input.registration_number);
			const earlier = seen.get(key);
			if (earlier !== undefined) {
				problems.push(`Duplicate of row ${earlier}: the same registration number ${input.registration_number} appears twice in the file.`);
			} else {
				seen.set(key, row);
				const duplicate = existingDuplicate(input.registration_number, existing);
				if (duplicate) problems.push(duplicate);
			}
		}
		return problems.length
			? { row, ok: false, check: problems.join(' '), data }
			: { row, ok: true, check: `Invitation sent to ${input.work_email}.`, data, input };
	});
	return { kind: 'rows', rows };
}
