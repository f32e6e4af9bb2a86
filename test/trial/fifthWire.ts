// Wire formats of the fifth Service: big-number JSON, RFC 9457 problems, gateway HTML pages, Excel-minded CSV.
import type { ServerResponse } from 'node:http';

export const NEXT_CURSOR_HEADER = 'X-Service-Next-Cursor';
export const CURSOR_REQUEST_HEADER = 'Service-Cursor';
export const PROBLEM_TYPE = 'application/problem+json';

/** JSON where a bigint is written as a bare number of all its digits (19-20 digit ids stay exact on the wire). */
export function bigJson(value: unknown): string {
	if (typeof value === 'bigint') return value.toString();
	if (Array.isArray(value)) return `[${value.map(bigJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const parts = Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => `${JSON.stringify(k)}:${bigJson(v)}`);
		return `{${parts.join(',')}}`;
	}
	return JSON.stringify(value);
}

export interface FieldProblem { pointer: string; detail: string }

/** An RFC 9457 problem, thrown by handlers and written by sendProblem. */
export class Problem extends Error {
	constructor(
		readonly status: number,
		readonly title: string,
		readonly detail: string,
		readonly errors: FieldProblem[] = [],
		readonly headers: Record<string, string> = {},
		readonly slug = title.toLowerCase().replace(/[^a-z]+/g, '-'),
	) {
		super(detail);
	}
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const bytes = Buffer.from(bigJson(body));
	res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(bytes.length), ...headers });
	res.end(bytes);
}

export function problemBody(problem: Problem): Record<string, unknown> {
	return {
		type: `https://docs.fifth-service.test/problems/${problem.slug}`, title: problem.title, status: problem.status, detail: problem.detail,
		...(problem.errors.length > 0 ? { errors: problem.errors } : {}),
	};
}

export function sendProblem(res: ServerResponse, problem: Problem, extraHeaders: Record<string, string> = {}): void {
	const bytes = Buffer.from(JSON.stringify(problemBody(problem)));
	res.writeHead(problem.status, { 'Content-Type': PROBLEM_TYPE, 'Content-Length': String(bytes.length), ...extraHeaders, ...problem.headers });
	res.end(bytes);
}

const GATEWAY_TITLES: Record<number, string> = { 401: '401 Authorization Required', 502: '502 Bad Gateway', 503: '503 Service Temporarily Unavailable', 504: '504 Gateway Time-out' };

/** The HTML page the reverse proxy in front answers with (nginx-like), never JSON. */
export function sendGatewayPage(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
	const title = GATEWAY_TITLES[status] ?? `${status} Gateway Error`;
	const html = `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>fifth-edge</center>\r\n</body>\r\n</html>\r\n`;
	const bytes = Buffer.from(html);
	res.writeHead(status, { 'Content-Type': 'text/html', 'Content-Length': String(bytes.length), Server: 'fifth-edge', ...headers });
	res.end(bytes);
}

/** Rule 2: a text cell that a spreadsheet would read as a formula gets a leading quote. */
export function cell(value: string | number | bigint | boolean | null, delimiter: string): string {
	let text = value === null ? '' : String(value);
	if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
	return text.includes(delimiter) || text.includes('"') || text.includes('\n') || text.includes('\r') ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvText(columns: string[], rows: Array<Record<string, string | number | bigint | boolean | null>>, delimiter: string): string {
	return [columns.join(delimiter), ...rows.map((row) => columns.map((c) => cell(row[c] ?? null, delimiter)).join(delimiter))].map((line) => `${line}\r\n`).join('');
}

export function utf16leWithBom(text: string): Buffer {
	return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}

const CP1252_HIGH: Record<string, number> = {
	'€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87, 'ˆ': 0x88, '‰': 0x89, 'Š': 0x8a, '‹': 0x8b, 'Œ': 0x8c,
	'Ž': 0x8e, '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97, '˜': 0x98, '™': 0x99, 'š': 0x9a, '›': 0x9b,
	'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f,
};

/** windows-1252 bytes; a character it cannot hold becomes '?', as Excel's "CSV (Windows)" does. */
export function windows1252(text: string): Buffer {
	const out: number[] = [];
	for (const ch of text) {
		const code = ch.codePointAt(0) ?? 63;
		if (CP1252_HIGH[ch] !== undefined) out.push(CP1252_HIGH[ch]);
		else if (code < 0x80 || (code >= 0xa0 && code <= 0xff)) out.push(code);
		else out.push(63);
	}
	return Buffer.from(out);
}

/** Simple RFC 4180 reader (quotes, doubled quotes), for the invitation import. */
export function parseCsv(text: string, delimiter = ','): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let field = '';
	let quoted = false;
	for (let i = 0; i < text.length; i++) {
		const ch = text[i];
		if (quoted) {
			if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; }
			else if (ch === '"') quoted = false;
			else field += ch;
		} else if (ch === '"') quoted = true;
		else if (ch === delimiter) { row.push(field); field = ''; }
		else if (ch === '\n' || ch === '\r') {
			if (ch === '\r' && text[i + 1] === '\n') i++;
			row.push(field); field = '';
			if (row.some((f) => f !== '')) rows.push(row);
			row = [];
		} else field += ch;
	}
	row.push(field);
	if (row.some((f) => f !== '')) rows.push(row);
	return rows;
}
