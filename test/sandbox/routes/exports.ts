import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';

import type { Route, RouteContext } from '../context';
import { csvLine } from '../csv';
import { csvContentType, encodeChunk } from '../csvEncoding';
import { rateLimitHeaders } from '../answerShapes';
import { compressedFor, HttpError, sendError, writeChunk as writeStreamed } from '../http';
import { expiryWindows, listingSpecs, type ListingQuery } from '../listings';
import { decodeCursor, encodeCursor, listings, PagingError, parsePageSize, type Listing } from '../paging';
import type { StoredObject } from '../objectStore';
import { storedZip } from '../zip';
import { UNKNOWN_PARAMETER, type Dialect } from '../dialect';
import { nameFor } from '../requestDialect';
import { statementsRead } from '../jobs';

// Rows per write: keeps memory flat for 100,000-row pages without a write call per row.
const rowsPerChunk = 500;

export function notShared(ke: string, dialect?: Dialect): HttpError {
	return new HttpError(dialect?.notSharedStatus ?? 404, 'not_shared', `Company ${ke} does not share its record with this reader, or the share has ended.`);
}

function listingQuery(listing: Listing, url: URL): ListingQuery {
	const window = url.searchParams.get('window');
	if (window === null || window === '') return {};
	if (listing !== 'expiries') {
		throw new HttpError(400, 'invalid_parameter', `window applies to the expiries export only, not to ${listing}.`);
	}
	const days = Number(window);
	if (!expiryWindows.includes(days as 30 | 60 | 90)) {
		throw new HttpError(400, 'invalid_parameter', `window must be 30, 60 or 90 (days); got "${window}". Omit it for all windows.`);
	}
	return { window: days };
}

function exportFormat(url: URL, ctx: RouteContext): 'csv' | 'json' {
	const format = url.searchParams.get('format') ?? 'json';
	if (format !== 'csv' && format !== 'json') {
		const jsonName = nameFor(ctx.sandbox.dialect.request, 'export.json_format');
		const got = format.replace(/^unknown:/, '');
		throw new HttpError(
			400,
			'invalid_parameter',
			jsonName === 'format'
				? `format must be csv or ${ctx.sandbox.dialect.jsonFormat}; got "${got}".`
				: `format must be csv (got ${got}); JSON is asked for with the parameter "${jsonName}".`,
		);
	}
	return format;
}

/** A query parameter this dialect does not read: refused naming the one it reads, or ignored (every row then). */
function unknownParameters(listing: Listing, ctx: RouteContext): void {
	const unknown = ctx.url.searchParams.getAll(UNKNOWN_PARAMETER);
	if (unknown.length === 0 || ctx.sandbox.dialect.request.unknownNames === 'ignore') return;
	const windowName = nameFor(ctx.sandbox.dialect.request, 'export.window');
	throw new HttpError(
		400,
		'unknown_parameter',
		`Unknown query parameter "${unknown[0]}" on the ${listing} export: the look-ahead window is asked for with "${windowName}".`,
	);
}

async function pagedExport(listing: Listing, ctx: RouteContext): Promise<void> {
	const { url, res, sandbox, reader } = ctx;
	unknownParameters(listing, ctx);
	const format = exportFormat(url, ctx);
	const query = listingQuery(listing, url);
	let position;
	let pageSize;
	try {
		position = decodeCursor(listing, url.searchParams.get('cursor') ?? undefined);
		pageSize = parsePageSize(url.searchParams.get('page_size') ?? undefined, sandbox.pageSize);
	} catch (error) {
		if (error instanceof PagingError) throw new HttpError(400, 'invalid_parameter', error.message);
		throw error;
	}

	const fault = sandbox.faults.take(listing, position.page);
	if (fault?.mode === 'drop') {
		ctx.req.socket.destroy();
		return;
	}
	if (fault?.mode === '500') {
		throw new HttpError(500, 'server_error', `Page ${position.page} of the ${listing} export failed (sandbox fault): retry the same cursor.`);
	}
	if (fault?.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 1000));
	if (fault?.mode === '429') {
		const seconds = fault.retryAfterSeconds ?? 1;
		throw new HttpError(429, 'rate_limited', `Too many requests: retry after ${seconds} seconds.`, rateLimitHeaders(sandbox.dialect.answers, seconds, Date.now(), fault.rateLimitForm));
	}

	const spec = listingSpecs[listing];
	// A policy run accepted `running` has its statement listed after some reads (jobs.ts).
	if (listing === 'statements' && position.page === 1) statementsRead(reader);
	const rows = spec.rows(sandbox.state, reader, query);
	const end = Math.min(rows.length, position.offset + pageSize);
	const { jsonListsAs, emptyListAs } = sandbox.dialect.answers;
	const jsonLines = format !== 'csv' && jsonListsAs === 'jsonLines';
	const headers: Record<string, string> = {
		'Content-Type': format === 'csv' ? csvContentType(sandbox.dialect.csv.encoding ?? 'utf-8') : jsonLines ? 'application/x-ndjson' : 'application/json; charset=utf-8',
	};
	if (format === 'csv') headers['Content-Disposition'] = `attachment; filename="${listing}-page-${position.page}.csv"`;
	// A Service reading the cursor from a header hands out a new one each time (a first page answered again has a fresh cursor).
	const nonce = sandbox.dialect.cursorIn.in === 'header' ? randomBytes(6).toString('hex') : undefined;
	if (end < rows.length) headers['X-Service-Next-Cursor'] = encodeCursor(listing, { page: position.page + 1, offset: end }, nonce);
	sandbox.state.logAccess({ reader: reader.key, export: listing, path: url.pathname, format, page: position.page });

	if (end <= position.offset && emptyListAs === 204) {
		// Nothing to export: no body at all, in either format.
		delete headers['Content-Type'];
		delete headers['Content-Disposition'];
		res.writeHead(204, headers);
		res.end();
		return;
	}
	// A compressing dialect gzips the whole page (held in memory: sandbox pages are small enough).
	const held: Array<string | Buffer> | undefined = compressedFor(res, sandbox.dialect, Buffer.alloc(0)) === undefined ? undefined : [];
	const writeChunk = async (out: ServerResponse, chunk: string | Buffer) => {
		if (held) held.push(chunk);
		else await writeStreamed(out, chunk);
	};
	if (!held) res.writeHead(200, headers);
	if (jsonLines) {
		for (let i = position.offset; i < end; i += rowsPerChunk) {
			await writeChunk(res, rows.slice(i, Math.min(end, i + rowsPerChunk)).map((row) => `${JSON.stringify(row)}\n`).join(''));
		}
	} else if (format === 'csv') {
		// The default dialect starts every page with the header row, so each page is a CSV file on its own.
		const format = sandbox.dialect.csv;
		const columns = sandbox.dialect.csvColumns(spec.columns);
		const order = columns.map((column) => spec.columns.indexOf(column));
		const cells = (row: Record<string, unknown>) => {
			const values = spec.csv(row);
			return order.map((index) => values[index]);
		};
		// The header row in this dialect's words: the portfolio's KE column may go by another name.
		const names = columns.map((column) => (listing === 'portfolio' && column === 'ke' ? sandbox.dialect.portfolioKeColumn : column));
		const header = position.page === 1 || format.headerEveryPage ? csvLine(names, format) : '';
		// Every page in the dialect's charset: UTF-16 with its byte order mark, Excel's sep= line before the header row.
		const encoding = format.encoding ?? 'utf-8';
		const encoded = (text: string) => (encoding === 'utf-8' ? text : encodeChunk(text, encoding));
		const bom = encoding === 'utf-16le' || encoding === 'utf-16be' || (format.bom && encoding === 'utf-8');
		await writeChunk(res, encoded((bom ? '\uFEFF' : '') + (format.sep ? `sep=${format.delimiter}${format.lineEnd}` : '') + header));
		for (let i = position.offset; i < end; i += rowsPerChunk) {
			let chunk = '';
			for (let j = i; j < Math.min(end, i + rowsPerChunk); j++) chunk += csvLine(cells(rows[j]), format);
			await writeChunk(res, encoded(chunk));
		}
	} else {
		await writeChunk(res, '{"data":[');
		for (let i = position.offset; i < end; i += rowsPerChunk) {
			const slice = rows.slice(i, Math.min(end, i + rowsPerChunk)).map((row) => JSON.stringify(row));
			await writeChunk(res, (i > position.offset ? ',' : '') + slice.join(','));
		}
		await writeChunk(res, ']}');
	}
	if (held) {
		const body = gzipSync(Buffer.concat(held.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk))));
		res.writeHead(200, { ...headers, 'Content-Encoding': 'gzip', 'Content-Length': String(body.length) });
		res.end(body);
		return;
	}
	res.end();
}

function record(ctx: RouteContext): void {
	const [ke] = ctx.params;
	const { state } = ctx.sandbox;
	if (!state.isShared(ctx.reader.key, ke)) throw notShared(ke, ctx.sandbox.dialect);
	const signed = state.recordForKe(ke);
	state.logAccess({ reader: ctx.reader.key, export: 'record', path: ctx.url.pathname, ke });
	sendFile(ctx, { bytes: signed.servedBytes, contentType: 'application/json', contentDisposition: `attachment; filename="${signed.ks}.json"` });
}

/** A file as this dialect hands it over: in the answer, or by a redirect to a pre-signed URL of the object store. */
function sendFile(ctx: RouteContext, file: StoredObject): void {
	const downloads = ctx.sandbox.dialect.downloads;
	if (downloads.via === 'objectStore') {
		ctx.res.writeHead(downloads.status, { Location: ctx.sandbox.objectStore.presign(file, downloads.hops) }).end();
		return;
	}
	const headers: Record<string, string | number> = { 'Content-Type': file.contentType, 'Content-Length': file.bytes.length };
	if (file.contentDisposition) headers['Content-Disposition'] = file.contentDisposition;
	ctx.res.writeHead(200, headers);
	ctx.res.end(file.bytes);
}

function auditPack(ctx: RouteContext): void {
	const [ke, packId] = ctx.params;
	const { state } = ctx.sandbox;
	if (!state.isShared(ctx.reader.key, ke)) throw notShared(ke, ctx.sandbox.dialect);
	const decision = ctx.reader.decisions.find((d) => d.ke === ke && d.pack_id === packId);
	if (!decision) {
		throw new HttpError(404, 'not_found', `No audit pack ${packId} for company ${ke}: take pack_id from the decisions export.`);
	}
	const signed = state.recordForKe(ke);
	const manifest = { pack_id: packId, ke, ks: signed.ks, decision_id: decision.id, created_at: state.nowIso() };
	const zip = storedZip([
		{ name: 'manifest.json', content: Buffer.from(JSON.stringify(manifest, null, 2)) },
		{ name: 'decision.json', content: Buffer.from(JSON.stringify(decision, null, 2)) },
		{ name: `${signed.ks}.json`, content: signed.signedBytes },
	]);
	state.logAccess({ reader: ctx.reader.key, export: 'audit_pack', path: ctx.url.pathname, ke });
	sendFile(ctx, { bytes: zip, contentType: 'application/zip', contentDisposition: `attachment; filename="${packId}.zip"` });
}

export const exportRoutes: Route[] = [
	...listings.map((listing): Route => ({
		method: 'GET',
		pattern: new RegExp(`^/v1/reader/exports/${listing}$`),
		access: 'export',
		handler: async (ctx) => {
			try {
				await pagedExport(listing, ctx);
			} catch (error) {
				// Headers may already be out when the client goes away mid-stream; then just stop.
				if (!(error instanceof HttpError) && ctx.res.headersSent) {
					ctx.res.destroy();
					return;
				}
				if (error instanceof HttpError) return sendError(ctx.res, error);
				throw error;
			}
		},
	})),
	{ method: 'GET', pattern: /^\/v1\/reader\/exports\/records\/([^/]+)$/, access: 'export', handler: record },
	{ method: 'GET', pattern: /^\/v1\/reader\/exports\/audit-packs\/([^/]+)\/([^/]+)$/, access: 'export', handler: auditPack },
];
