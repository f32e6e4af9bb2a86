// Wire format of the fourth Service: tab-separated exports, signed page tokens, fault bodies, JSON bodies.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const NEXT_CURSOR_HEADER = 'X-Service-Next-Cursor';
export const TSV_TYPE = 'text/tab-separated-values; charset=utf-8';
export const NDJSON_TYPE = 'application/x-ndjson; charset=utf-8';

/** A refusal: HTTP status, a code a program can branch on, a sentence a person can act on. */
export class Fault extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly extra: Record<string, unknown> = {},
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const bytes = Buffer.from(JSON.stringify(body));
	res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(bytes.length), ...headers });
	res.end(bytes);
}

export function sendFault(res: ServerResponse, fault: Fault): void {
	const traceId = `tr_${randomBytes(6).toString('hex')}`;
	sendJson(res, fault.status, { fault: { code: fault.code, message: fault.message, ...fault.extra, trace_id: traceId } }, fault.headers);
}

// Rule 2 of section 2: a text cell a spreadsheet would read as a formula gets a leading quote.
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r']);

export function tsvCell(value: string | number | boolean | null): string {
	if (value === null) return '';
	if (typeof value !== 'string') return String(value);
	const text = value.length > 0 && FORMULA_START.has(value[0]) ? `'${value}` : value;
	return /["\t\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One page of a tab-separated export: the header line on every page, CRLF line ends. */
export function tsvPage(columns: string[], rows: Array<Record<string, string | number | boolean | null>>): string {
	const lines = [columns.join('\t'), ...rows.map((row) => columns.map((column) => tsvCell(row[column] ?? null)).join('\t'))];
	return `${lines.join('\r\n')}\r\n`;
}

export function ndjsonPage(rows: unknown[]): string {
	return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
}

/** Page tokens: opaque, signed, tied to the route and filters they were issued for. */
export class PageTokens {
	private readonly key = randomBytes(32);

	issue(scope: string, offset: number): string {
		const body = Buffer.from(JSON.stringify({ s: scope, o: offset })).toString('base64url');
		return `${body}.${this.mac(body)}`;
	}

	/** The offset a token points at; a Fault (400, naming page_token) for anything else. */
	read(token: string, scope: string): number {
		const [body, mac, ...rest] = token.split('.');
		const expected = body ? this.mac(body) : '';
		const valid = rest.length === 0 && mac !== undefined && mac.length === expected.length && timingSafeEqual(Buffer.from(mac), Buffer.from(expected));
		if (!valid) throw new Fault(400, 'invalid_page_token', 'page_token is not one this Service issued. Send the X-Service-Next-Cursor value of the previous page unchanged.', { parameter: 'page_token' });
		const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { s: string; o: number };
		if (parsed.s !== scope) throw new Fault(400, 'page_token_mismatch', 'page_token was issued for another export or other filters. Keep the same route, horizon_days and format while paging.', { parameter: 'page_token' });
		return parsed.o;
	}

	private mac(body: string): string {
		return createHmac('sha256', this.key).update(body).digest('base64url').slice(0, 22);
	}
}

const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > MAX_BODY_BYTES) throw new Fault(413, 'body_too_large', `The request body is over ${MAX_BODY_BYTES} bytes.`);
		chunks.push(chunk);
	}
	return Buffer.concat(chunks);
}

export function mediaType(req: IncomingMessage): string {
	return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
	if (mediaType(req) !== 'application/json') {
		throw new Fault(415, 'unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
	}
	const raw = await readBody(req);
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw.toString('utf8'));
	} catch {
		throw new Fault(400, 'malformed_json', 'The request body is not valid JSON.');
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		throw new Fault(422, 'invalid_body', 'The request body must be a JSON object.');
	}
	return parsed as Record<string, unknown>;
}

/** Refuses query parameters the route does not take, naming each of them. */
export function checkQuery(query: URLSearchParams, allowed: string[]): void {
	const unknown = [...new Set([...query.keys()])].filter((name) => !allowed.includes(name));
	if (unknown.length > 0) {
		const takes = allowed.length > 0 ? `This route takes: ${allowed.join(', ')}.` : 'This route takes no query parameters.';
		throw new Fault(400, 'unknown_parameter', `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. ${takes}`, { parameters: unknown });
	}
}

/** per_page: 1–100, 10 when not sent. */
export function perPage(query: URLSearchParams): number {
	const raw = query.get('per_page');
	if (raw === null) return 10;
	const value = /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
	if (!(value >= 1 && value <= 100)) throw new Fault(400, 'invalid_parameter', 'per_page must be a whole number from 1 to 100.', { parameter: 'per_page' });
	return value;
}
