/**
 * Cursor paging of the Service's list and export routes. Pure: no n8n types, no HTTP; the caller
 * passes the function that fetches one page.
 *
 * Paging rule (spec section 4): while a further page exists the answer carries
 * X-Service-Next-Cursor; sending that value back (in the query parameter or the header named in the
 * credential, docs/service-choices.md) fetches the next page. A Service that does not read it where it is
 * sent answers the first page again: a page whose rows were all read before stops the list.
 */

import { createHash } from 'node:crypto';

import { pageSum, RowHash } from './rowDigest';

export { pageSum } from './rowDigest';

export interface PagingOptions {
	/** Query parameter that carries the cursor back (credential: Cursor Parameter). */
	cursorParameter: string;
	/** The header that carries it instead (credential: Send Cursor As Header, Cursor Header Name); then the query has none. */
	cursorHeader?: string;
	/** Sent on every page when set (credential: Page Size Parameter + Page Size). */
	pageSize?: { parameter: string; size: number };
	/** Query sent on every page, e.g. format and window. */
	query?: Record<string, string>;
	/** A cursor chain longer than this fails instead of paging for ever (credential: Max Pages). */
	maxPages?: number;
}

/** What to fetch: the 1-based page number, the cursor it is fetched with, and the full query. */
export interface PageRequest {
	page: number;
	/** Undefined for the first page. */
	cursor: string | undefined;
	qs: Record<string, string | number>;
}

export interface PageAnswer<T> {
	content: T;
	/** Value of X-Service-Next-Cursor; absent or empty on the last page. */
	nextCursor: string | undefined;
	/** The page's Content-Type (its charset reads a CSV page: csvText.ts). */
	contentType?: string;
	/** The SHA-256 of each row of the page, packed 32 bytes after 32 (`Digests`), when the fetch can read them: a page of rows already read stops the list. */
	rows?: Buffer;
}

export interface Page<T> extends PageAnswer<T> {
	request: PageRequest;
}

/**
 * The Service handed back a cursor this listing was already fetched with. Following it would loop
 * for ever; it usually means the Service ignores the cursor parameter's name.
 */
export class RepeatedCursorError extends Error {
	constructor(
		readonly page: number,
		readonly cursor: string,
		readonly cursorParameter: string,
		readonly cursorHeader?: string,
	) {
		super(
			`Page ${page} of the list answered with the cursor "${cursor}" that was already used, so paging would never end`,
		);
	}
}

/**
 * A page fetched with a fresh cursor holds only rows the list already gave (in any order): the Service did
 * not read the cursor where it was sent and answered the first page again. Its rows are not passed on.
 */
export class RepeatedPageError extends Error {
	constructor(
		readonly page: number,
		readonly cursorParameter: string,
		readonly cursorHeader: string | undefined,
	) {
		super(`Page ${page} of the list held only rows already read on an earlier page, so the Service did not read the cursor: check Send Cursor As`);
	}
}

/** The settings the words of a repeated page name: how the cursor was sent, and the other way. */
export function cursorSentWords(cursorParameter: string, cursorHeader: string | undefined): string {
	return cursorHeader === undefined
		? `The cursor was sent in the query parameter "${cursorParameter}". If the Service reads it from a header (such as Service-Cursor), set Send Cursor As to Header with that Cursor Header Name; otherwise check Cursor Parameter under Advanced Settings in the Service API credential.`
		: `The cursor was sent in the header "${cursorHeader}". If the Service reads it from a query parameter, set Send Cursor As to Query Parameter with that Cursor Parameter; otherwise check Cursor Header Name under Advanced Settings in the Service API credential.`;
}

/** A row's text (or bytes) as its 32-byte digest (rowDigest.ts), whatever the row's length. */
export function rowDigest(row: string | Uint8Array): Buffer {
	return typeof row === 'string' ? new RowHash().updateText(row).digest() : new RowHash().update(row).digest();
}

/** Rows of page 1 held as digests at most: 32 bytes each, 640 KiB in all. Past it, a page is matched as a whole. */
export const FIRST_PAGE_DIGESTS = 20_000;

/** The 32-byte digests of a page's rows, packed into one buffer grown by doubling: no object per row. */
export class Digests {
	// A page of 1,000 rows without growing.
	private bytes = Buffer.allocUnsafe(32 * 1024);
	private used = 0;

	add(digest: Uint8Array): void {
		const at = this.slot();
		this.bytes.set(digest.length === 32 ? digest : digest.subarray(0, 32), at);
	}

	/** The next 32 bytes' offset in `buffer`, to be written there (`drop` gives them back). */
	slot(): number {
		if (this.used + 32 > this.bytes.length) {
			// Every byte up to `used` is written before it is read: no zeroing needed.
			const grown = Buffer.allocUnsafe(this.bytes.length * 2);
			this.bytes.copy(grown, 0, 0, this.used);
			this.bytes = grown;
		}
		this.used += 32;
		return this.used - 32;
	}

	/** The last slot taken, given back. */
	drop(): void {
		this.used -= 32;
	}

	get buffer(): Buffer {
		return this.bytes;
	}

	/** Every digest added, packed. */
	packed(): Buffer {
		return this.bytes.subarray(0, this.used);
	}
}

/** Digests packed, as a page's `rows` holds them. */
export function packDigests(digests: readonly Uint8Array[]): Buffer {
	const packed = new Digests();
	for (const digest of digests) packed.add(digest);
	return packed.packed();
}

/**
 * What a list has read, to tell a page that repeats it: each row of the first page as its 32-byte
 * digest (up to FIRST_PAGE_DIGESTS), and each page as one order-free digest (the sum of its rows'
 * digests, 32 bytes a page, bounded by Max Pages). No row is held. An empty page is never a repeat.
 */
export class ReadRows {
	/** Digests as 32-character one-byte strings. */
	private readonly first = new Set<string>();
	private firstWhole = true;
	private readonly pages = new Set<string>();
	/** Bytes of digests held (Set and string overhead aside). */
	heldBytes = 0;

	/** Whether `rows` (this page's digests, packed) were all read before; records them otherwise. */
	repeats(page: number, rows: Buffer): boolean {
		const count = Math.floor(rows.length / 32);
		if (count === 0) return false;
		const key = (i: number) => rows.toString('latin1', i * 32, i * 32 + 32);
		const whole = pageSum(rows);
		if (this.pages.has(whole)) return true;
		if (page > 1 && this.firstWhole && this.first.size > 0) {
			let all = true;
			for (let i = 0; i < count && all; i++) all = this.first.has(key(i));
			if (all) return true;
		}
		this.pages.add(whole);
		this.heldBytes += 32;
		if (page === 1) {
			for (let i = 0; i < count; i++) {
				if (this.first.size >= FIRST_PAGE_DIGESTS) {
					this.firstWhole = false;
					break;
				}
				const row = key(i);
				if (!this.first.has(row)) this.heldBytes += 32;
				this.first.add(row);
			}
		}
		return false;
	}
}

/**
 * The digest of each line of a CSV page, fed chunk by chunk (a streamed page) or whole: blank lines
 * left out, and the first page's first line, the header row, wherever it comes again (`shared` keeps
 * it from page to page). A quoted line break splits a record the same way on every reading. Holds
 * 32 bytes a line of this page, never its bytes.
 */
export class LineDigests {
	private readonly hash = new RowHash();
	private open = false;
	private readonly lines = new Digests();

	constructor(
		private readonly page: number,
		private readonly shared: { header?: Buffer },
	) {}

	push(chunk: Uint8Array): void {
		// One pass: a line feed found by the loop that walks the bytes (a native search a line cost more).
		let start = 0;
		for (let i = 0; i < chunk.length; i++) {
			if (chunk[i] !== 0x0a) continue;
			if (i > start) {
				this.hash.update(chunk, start, i);
				this.open = true;
			}
			this.close();
			start = i + 1;
		}
		if (chunk.length > start) {
			this.hash.update(chunk, start, chunk.length);
			this.open = true;
		}
	}

	/** The digests of every line read, packed. */
	end(): Buffer {
		this.close();
		return this.lines.packed();
	}

	/** The line's digest written where it is kept (no allocation a line), given back when it is the header row. */
	private close(): void {
		if (!this.open) return;
		this.open = false;
		const at = this.lines.slot();
		const bytes = this.lines.buffer;
		this.hash.digestInto(bytes, at);
		const header = this.shared.header;
		if (this.page === 1 && header === undefined) {
			this.shared.header = Buffer.from(bytes.subarray(at, at + 32));
			this.lines.drop();
		} else if (header !== undefined && sameDigest(bytes, at, header)) this.lines.drop();
	}
}

/** Whether the 32 bytes at `at` are `digest` (a JS loop: most rows differ at the first byte, where a native call would cost more). */
function sameDigest(bytes: Uint8Array, at: number, digest: Uint8Array): boolean {
	for (let i = 0; i < 32; i++) if (bytes[at + i] !== digest[i]) return false;
	return true;
}

/** The Service kept handing out new cursors past the page cap. */
export class PageCapError extends Error {
	constructor(readonly maxPages: number) {
		super(`The list still had a further page after ${maxPages} pages, the Max Pages limit`);
	}
}

/** The query of one page request. */
export function pageQuery(options: PagingOptions, cursor: string | undefined): Record<string, string | number> {
	// Own properties: a parameter named `__proto__` is sent like any name.
	const entries: Array<[string, string | number]> = Object.entries(options.query ?? {});
	if (options.pageSize) entries.push([options.pageSize.parameter, options.pageSize.size]);
	if (cursor !== undefined && options.cursorHeader === undefined) entries.push([options.cursorParameter, cursor]);
	return Object.fromEntries(entries);
}

export interface CursorPagesOptions<T> {
	/**
	 * Ask for the next page as soon as the current one has arrived, before the consumer works on
	 * it, so the Service's answer time overlaps the consumer's work (CSV parsing). Only for
	 * consumers that take every page (Return All): the next page is requested even if the
	 * consumer then stops. Off by default.
	 */
	prefetch?: boolean;
	/** Called with a prefetched page the consumer never took (it stopped or failed), e.g. to close a stream. */
	discard?: (content: T) => void;
	/** Resume at this page with the cursor an earlier reading was handed (default: the first page). */
	from?: { page: number; cursor: string };
}

/**
 * Yields page after page. Without `prefetch`, each page is fetched only when the consumer asks
 * for it: a consumer that stops iterating (Limit reached) never causes a further request. A failed
 * fetch is thrown when the consumer asks for that page, prefetched or not.
 */
export async function* cursorPages<T>(
	fetchPage: (request: PageRequest) => Promise<PageAnswer<T>>,
	options: PagingOptions,
	{ prefetch = false, discard, from }: CursorPagesOptions<T> = {},
): AsyncGenerator<Page<T>, void, undefined> {
	// Digests, not the cursors: memory stays at 32 bytes a page however long the Service's cursors are,
	// and Max Pages bounds the pages (100,000 pages: about 10 MB), while A, B, A is still caught.
	const usedCursors = new Set<string>();
	const readRows = new ReadRows();
	const digest = (cursor: string) => createHash('sha256').update(cursor).digest('base64');
	const start = (request: PageRequest): { request: PageRequest; pending: Promise<PageAnswer<T>> } => {
		const pending = fetchPage(request);
		// Awaited when the consumer asks for the page; until then a failure must not count as unhandled.
		pending.catch(() => undefined);
		return { request, pending };
	};
	const first = from?.page ?? 1;
	let next: ReturnType<typeof start> | undefined = start({ page: first, cursor: from?.cursor, qs: pageQuery(options, from?.cursor) });
	let prefetched: ReturnType<typeof start> | undefined;
	try {
		for (let page = first; next !== undefined; page++) {
			const { request, pending } = next;
			const answer: PageAnswer<T> = await pending;
			const cursor: string | undefined =
				answer.nextCursor === undefined || answer.nextCursor === '' ? undefined : answer.nextCursor;
			// Checked before this page is yielded: its rows, read already, never reach the consumer twice.
			if (answer.rows !== undefined && readRows.repeats(page, answer.rows)) throw new RepeatedPageError(page, options.cursorParameter, options.cursorHeader);
			const seen = cursor === undefined ? undefined : digest(cursor);
			const repeated = seen !== undefined && usedCursors.has(seen);
			if (seen !== undefined) usedCursors.add(seen);
			const capped = cursor !== undefined && !repeated && options.maxPages !== undefined && page >= options.maxPages;
			const following: PageRequest | undefined =
				cursor === undefined || repeated || capped ? undefined : { page: page + 1, cursor, qs: pageQuery(options, cursor) };
			next = prefetched = following && prefetch ? start(following) : undefined;
			yield { ...answer, nextCursor: cursor, request };
			prefetched = undefined;
			// Checked after yielding so the rows of this page are still counted by the consumer's error.
			if (repeated && cursor !== undefined) throw new RepeatedCursorError(page, cursor, options.cursorParameter, options.cursorHeader);
			if (capped) throw new PageCapError(page);
			if (following && !prefetch) next = start(following);
		}
	} finally {
		// The consumer stopped while a prefetched page was on its way: let the caller release it.
		if (prefetched && discard) prefetched.pending.then((answer) => discard(answer.content), () => undefined);
	}
}
