import type { PageAnswer, PageRequest } from '../../nodes/shared/paging';
import { cursorPages, pageQuery, RepeatedCursorError } from '../../nodes/shared/paging';

/** A fake listing of `pages` pages whose cursors are c2, c3, ...; records every request. */
function fakeListing(pages: string[][]) {
	const requests: PageRequest[] = [];
	const fetchPage = async (request: PageRequest): Promise<PageAnswer<string[]>> => {
		requests.push(request);
		const index = request.cursor === undefined ? 0 : Number(request.cursor.slice(1)) - 1;
		return { content: pages[index], nextCursor: index + 1 < pages.length ? `c${index + 2}` : undefined };
	};
	return { requests, fetchPage };
}

async function collect<T>(iterable: AsyncIterable<{ content: T }>): Promise<T[]> {
	const contents: T[] = [];
	for await (const page of iterable) contents.push(page.content);
	return contents;
}

describe('pageQuery', () => {
	it('sends the base query, the page size and the cursor under the configured names', () => {
		expect(
			pageQuery(
				{ cursorParameter: 'after', pageSize: { parameter: 'limit', size: 25 }, query: { format: 'csv' } },
				'abc',
			),
		).toEqual({ format: 'csv', limit: 25, after: 'abc' });
	});

	it('sends no cursor on the first page and no page size when none is set', () => {
		expect(pageQuery({ cursorParameter: 'cursor', query: { format: 'json' } }, undefined)).toEqual({
			format: 'json',
		});
	});
});

describe('cursorPages', () => {
	it('follows the next cursor until it is absent, numbering pages from 1', async () => {
		const { requests, fetchPage } = fakeListing([['a', 'b'], ['c', 'd'], ['e']]);
		const pages = [];
		for await (const page of cursorPages(fetchPage, { cursorParameter: 'cursor', query: { format: 'csv' } })) {
			pages.push(page);
		}
		expect(pages.map((p) => [p.request.page, p.request.cursor, p.content, p.nextCursor])).toEqual([
			[1, undefined, ['a', 'b'], 'c2'],
			[2, 'c2', ['c', 'd'], 'c3'],
			[3, 'c3', ['e'], undefined],
		]);
		expect(requests.map((r) => r.qs)).toEqual([
			{ format: 'csv' },
			{ format: 'csv', cursor: 'c2' },
			{ format: 'csv', cursor: 'c3' },
		]);
	});

	it('treats an empty cursor header as the last page', async () => {
		const fetchPage = async () => ({ content: ['only'], nextCursor: '' });
		expect(await collect(cursorPages(fetchPage, { cursorParameter: 'cursor' }))).toEqual([['only']]);
	});

	it('fetches nothing more once the consumer stops (Limit reached)', async () => {
		const { requests, fetchPage } = fakeListing([['a'], ['b'], ['c'], ['d']]);
		for await (const page of cursorPages(fetchPage, { cursorParameter: 'cursor' })) {
			if (page.request.page === 2) break;
		}
		expect(requests.map((r) => r.cursor)).toEqual([undefined, 'c2']);
	});

	it('fails with the page and cursor when the Service hands back a cursor it already gave', async () => {
		// A Service that ignores the cursor parameter serves page 1 again and again.
		const fetchPage = async () => ({ content: ['a'], nextCursor: 'c2' });
		const seen: string[][] = [];
		const run = async () => {
			for await (const page of cursorPages(fetchPage, { cursorParameter: 'after' })) seen.push(page.content);
		};
		const failure = run();
		await expect(failure).rejects.toBeInstanceOf(RepeatedCursorError);
		await expect(failure).rejects.toMatchObject({ page: 2, cursor: 'c2', cursorParameter: 'after' });
		// Both pages were handed to the consumer before the loop was detected.
		expect(seen).toEqual([['a'], ['a']]);
	});

	it('catches a loop A, B, A of long cursors, keeping a fixed-size digest per page rather than the cursors', async () => {
		const cursors = ['A', 'B'].map((letter) => letter.repeat(1_000_000));
		let call = 0;
		const fetchPage = async () => ({ content: [call], nextCursor: cursors[call++ % 2] });
		const run = async () => {
			for await (const _page of cursorPages(fetchPage, { cursorParameter: 'cursor' })) void _page;
		};
		await expect(run()).rejects.toMatchObject({ page: 3, cursor: cursors[0] });
	});

	it('passes a failing page fetch through to the consumer', async () => {
		let calls = 0;
		const fetchPage = async (request: PageRequest) => {
			calls++;
			if (request.page === 2) throw new Error('page 2 failed');
			return { content: ['a'], nextCursor: 'c2' };
		};
		const seen: string[][] = [];
		await expect(
			(async () => {
				for await (const page of cursorPages(fetchPage, { cursorParameter: 'cursor' })) seen.push(page.content);
			})(),
		).rejects.toThrow('page 2 failed');
		expect(seen).toEqual([['a']]);
		expect(calls).toBe(2);
	});
});
