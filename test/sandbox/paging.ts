export type Listing = 'portfolio' | 'expiries' | 'decisions' | 'invitations' | 'statements';
export const listings: readonly Listing[] = ['portfolio', 'expiries', 'decisions', 'invitations', 'statements'];

export const maxPageSize = 100_000;

export interface PagePosition {
	/** 1-based page number within this listing. */
	page: number;
	offset: number;
}

/** Thrown for a bad paging parameter; the route answers 400 with the message. */
export class PagingError extends Error {}

/** Opaque cursor: base64url of the listing, page number and row offset; with `nonce`, new each time it is handed out. */
export function encodeCursor(listing: Listing, position: PagePosition, nonce?: string): string {
	return Buffer.from(JSON.stringify({ l: listing, p: position.page, o: position.offset, ...(nonce === undefined ? {} : { n: nonce }) })).toString('base64url');
}

export function decodeCursor(listing: Listing, cursor: string | undefined): PagePosition {
	if (cursor === undefined || cursor === '') return { page: 1, offset: 0 };
	let parsed: { l?: unknown; p?: unknown; o?: unknown } | undefined;
	try {
		parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as typeof parsed;
	} catch {
		parsed = undefined;
	}
	if (!parsed || parsed.l !== listing || !Number.isInteger(parsed.p) || !Number.isInteger(parsed.o)
		|| (parsed.p as number) < 2 || (parsed.o as number) < 0) {
		throw new PagingError(
			`The cursor is not one the ${listing} export issued: send back the X-Service-Next-Cursor value unchanged, or start again without a cursor.`,
		);
	}
	return { page: parsed.p as number, offset: parsed.o as number };
}

export function parsePageSize(value: string | undefined, fallback: number): number {
	if (value === undefined || value === '') return fallback;
	const size = Number(value);
	if (!/^\d+$/.test(value) || size < 1 || size > maxPageSize) {
		throw new PagingError(`page_size must be a whole number from 1 to ${maxPageSize}; got "${value}".`);
	}
	return size;
}
