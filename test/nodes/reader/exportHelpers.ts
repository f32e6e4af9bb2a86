import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type {
	IBinaryData,
	ICredentialDataDecryptedObject,
	IDataObject,
	INodeExecutionData,
	INodeParameters,
} from 'n8n-workflow';

import type { AccessLogEntry, ReaderKey, Sandbox } from '../../sandbox';
import { SandboxClient } from '../../sandbox/testClient';
import { serviceApi } from '../../sandbox/credential';
import type { CsvFormat } from '../../sandbox/csv';
import { encodeText } from '../../sandbox/csvEncoding';

/** The Service API credential as a user would enter it, for one of the sandbox's readers. */
export function serviceCredentials(
	sandbox: Sandbox,
	options: { reader?: ReaderKey; pageSize?: number; cursorParameter?: string; accessToken?: string } = {},
): { serviceApi: ICredentialDataDecryptedObject } {
	const advanced: IDataObject = {};
	if (options.pageSize !== undefined) {
		advanced.pageSizeParameter = sandbox.dialect.pageSizeParameter;
		advanced.pageSize = options.pageSize;
	}
	if (options.cursorParameter !== undefined) advanced.cursorParameter = options.cursorParameter;
	return { serviceApi: serviceApi(sandbox, { reader: options.reader, token: options.accessToken, advanced }) };
}

/** Node parameters of a Get Many operation. */
export function getMany(resource: string, parameters: INodeParameters = {}): INodeParameters {
	return { resource, operation: 'getAll', ...parameters };
}

/** The spreadsheet formula guard as the spec states it (section 2, rule 2), for expected values. */
export function guarded(value: string): string {
	return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** Items as the node outputs them for input item `item`. */
export function asItems(rows: object[], item = 0): INodeExecutionData[] {
	return rows.map((json) => ({ json, pairedItem: { item } }) as INodeExecutionData);
}

/** Portfolio rows from the sandbox's own state (control API), as CSV text values. */
export function portfolioCsvRows(sandbox: Sandbox, options: { strip?: boolean } = {}): Array<Record<string, string>> {
	const companies = new Map(sandbox.control.companies().map((c) => [c.ke, c]));
	return sandbox.control
		.shares()
		.filter((share) => share.state === 'shared')
		.map((share) => {
			const company = companies.get(share.ke)!;
			return {
				ke: share.ke,
				company_name: options.strip ? company.name : guarded(company.name),
				tier: share.tier,
				status: company.status,
				decision_due: String(share.decisionDue),
			};
		});
}

/** Invitation rows from the sandbox's own state (control API), as CSV text values. */
export function invitationCsvRows(sandbox: Sandbox, options: { strip?: boolean } = {}): Array<Record<string, string>> {
	const guard = (value: string) => (options.strip ? value : guarded(value));
	return sandbox.control.invitations().map((i) => ({
		invitation_id: guard(i.id),
		company_name: guard(i.company_name),
		registration_number: guard(i.registration_number),
		work_email: guard(i.work_email),
		reader_reference: guard(i.reader_reference),
		status: guard(i.status),
		updated_at: guard(i.updated_at),
	}));
}

/** Access-log entries written while `run` ran. */
export async function accessLogDuring(
	sandbox: Sandbox,
	run: () => Promise<unknown>,
	reader: ReaderKey = 'reader',
): Promise<Array<Omit<AccessLogEntry, 'at'>>> {
	const before = sandbox.control.accessLog(reader).length;
	await run();
	return sandbox.control
		.accessLog(reader)
		.slice(before)
		.map(({ at: _at, ...entry }) => entry);
}

/** Fetches a listing straight from the sandbox (not through the node): the Service's own answer. */
export async function servicePages(sandbox: Sandbox, path: string): Promise<string[]> {
	const client = new SandboxClient(sandbox);
	try {
		return (await client.allPages(path)).map((page) => page.text);
	} finally {
		client.close();
	}
}

/** The JSON rows of a listing, straight from the sandbox. */
export async function serviceJsonRows(sandbox: Sandbox, path: string): Promise<Array<Record<string, unknown>>> {
	const client = new SandboxClient(sandbox);
	try {
		// The list is the answer's one array, whatever the dialect calls it.
		return (await client.allPages(path)).flatMap((page) => {
			if (page.status === 204) return [];
			// JSON lines: one row a line.
			if (String(page.headers['content-type']).startsWith('application/x-ndjson')) {
				return page.text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
			}
			return Object.values(page.json()).find(Array.isArray) as Array<Record<string, unknown>>;
		});
	} finally {
		client.close();
	}
}

/** Concatenates CSV pages the way one file should hold them: the header row and byte order mark once. */
export function joinCsvPages(pages: string[], format: CsvFormat): string {
	return pages
		.map((page, index) => {
			if (index === 0) return page;
			const rows = page.replace(/^\uFEFF/, '');
			return format.headerEveryPage ? rows.slice(rows.indexOf(format.lineEnd) + format.lineEnd.length) : rows;
		})
		.join('');
}

/** The CSV pages of a listing as the sandbox sent them, bytes in the dialect's charset. */
export async function servicePageBytes(sandbox: Sandbox, path: string): Promise<Buffer[]> {
	const client = new SandboxClient(sandbox);
	try {
		return (await client.allPages(path)).map((page) => page.body);
	} finally {
		client.close();
	}
}

/** A page's text in `format`'s charset, without its byte order mark and sep= line. */
export function csvPageText(page: Buffer, format: CsvFormat): string {
	const text = new TextDecoder(format.encoding ?? 'utf-8').decode(page);
	return format.sep ? text.slice(text.indexOf(format.lineEnd) + format.lineEnd.length) : text;
}

/**
 * The file export of `pages` (bytes) as the nodes should write it: the first page's byte order mark and
 * sep= line once, then each page's records as sent, in the dialect's charset.
 */
export function joinCsvPageBytes(pages: Buffer[], format: CsvFormat): Buffer {
	const joined = joinCsvPages(pages.map((page) => csvPageText(page, format)), format);
	return encodeText((format.sep ? `sep=${format.delimiter}${format.lineEnd}` : '') + joined, format.encoding ?? 'utf-8', format.bom);
}

/** Reads a binary property back through n8n-core's BinaryDataService (filesystem mode in the harness). */
export async function readBinary(binary: IBinaryData | undefined): Promise<Buffer> {
	if (!binary) throw new Error('The item has no binary data');
	return await Container.get(BinaryDataService).getAsBuffer(binary);
}
