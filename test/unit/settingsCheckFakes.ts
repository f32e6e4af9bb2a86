import type { Probe, ProbeAnswer, ProbeRequest } from '../../nodes/shared/settingsCheck';

/**
 * A hand-written Service for Check Settings' unit tests: a portfolio of `rows` rows paged by its own
 * names, JSON under its own name and value, an expiries window, each choice an option. Every answer
 * is built here, so a test states exactly what the Service said.
 */
export interface FakeOptions {
	rows?: number;
	pageSize?: number;
	pageSizeName?: string;
	cursorName?: string;
	/** A header the cursor is read from instead of the query (a cursor in the query then ignored). */
	cursorHeader?: string;
	/** Names refused with 400 when sent (a Service refusing unknown parameters by name). */
	refuses?: string[];
	jsonName?: string;
	jsonValue?: string;
	windowName?: string;
	delimiter?: string;
	/** Answers before the routes (sign-in, a missing route...); undefined falls through. */
	before?: (request: ProbeRequest) => ProbeAnswer | undefined;
	/** Cut every CSV answer after this many bytes (truncated). */
	cutAt?: number;
}

const text = (value: string) => new TextEncoder().encode(value);

export function answer(status: number, body: string, headers: Record<string, string> = {}, truncated = false): ProbeAnswer {
	return { status, headers: new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])), body: text(body), truncated };
}

export const jsonAnswer = (status: number, body: unknown, headers: Record<string, string> = {}) => answer(status, JSON.stringify(body), { 'content-type': 'application/json', ...headers });
const refusal = (message: string) => jsonAnswer(400, { error: { code: 'invalid_parameter', message } });

export function fakeService(options: FakeOptions = {}): Probe & { asked: ProbeRequest[] } {
	const o = { rows: 7, pageSize: 50, pageSizeName: 'page_size', cursorName: 'cursor', refuses: [], jsonName: 'format', jsonValue: 'json', windowName: 'window', delimiter: ',', ...options };
	const asked: ProbeRequest[] = [];
	const probe = async (request: ProbeRequest): Promise<ProbeAnswer> => {
		asked.push(request);
		const early = o.before?.(request);
		if (early) return early;
		const query = new Map(request.query ?? []);
		for (const name of o.refuses) if (query.has(name)) return refusal(`Unknown query parameter "${name}".`);
		const path = request.path;
		if (path === '/v1/reader/webhooks/catalogue') return jsonAnswer(200, { data: [{ event_type: 'share_granted' }] });
		if (path === '/v1/reader/exports/portfolio' || path === '/v1/reader/exports/expiries') {
			const format = query.get('format');
			const wantsJson = o.jsonName === 'format' ? format === o.jsonValue : query.get(o.jsonName) === o.jsonValue;
			if (o.jsonName !== 'format' && query.has(o.jsonName) && !wantsJson) return refusal(`${o.jsonName} must be ${o.jsonValue}.`);
			if (format !== undefined && format !== 'csv' && !wantsJson) return refusal(`format must be csv or ${o.jsonValue}.`);
			const expiries = path.endsWith('expiries');
			const window = query.get(o.windowName);
			const all = Array.from({ length: o.rows }, (_, i) => ({ id: `KE-${100 + i}`, days: (i * 17) % 90 }));
			const rows = expiries && window !== undefined ? all.filter((row) => row.days <= Number(window)) : all;
			const size = Number(query.get(o.pageSizeName) ?? o.pageSize);
			const fromHeader = Object.entries(request.headers ?? {}).find(([name]) => name.toLowerCase() === o.cursorHeader?.toLowerCase())?.[1];
			const offset = Number((o.cursorHeader === undefined ? query.get(o.cursorName) : fromHeader) ?? '0');
			const page = rows.slice(offset, offset + size);
			const headers: Record<string, string> = offset + size < rows.length ? { 'X-Service-Next-Cursor': String(offset + size) } : {};
			if (wantsJson) return jsonAnswer(200, { data: page }, headers);
			const csv = `ke${o.delimiter}days\r\n${page.map((row) => `${row.id}${o.delimiter}${row.days}\r\n`).join('')}`;
			const cut = o.cutAt !== undefined && csv.length > o.cutAt;
			return answer(200, cut ? csv.slice(0, o.cutAt) : csv, { 'content-type': 'text/csv', ...headers }, cut);
		}
		if (path === '/v1/reader/exports/decisions' || path === '/v1/reader/exports/statements') return jsonAnswer(200, { data: [] });
		return jsonAnswer(404, { error: { code: 'not_found', message: `No route ${path}.` } });
	};
	return Object.assign(probe, { asked });
}
