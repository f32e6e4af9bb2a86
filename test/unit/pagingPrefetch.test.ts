import type { PageAnswer, PageRequest } from '../../nodes/shared/paging';
import { cursorPages, RepeatedCursorError } from '../../nodes/shared/paging';

// cursorPages with prefetch (Return All exports): the next page is asked for as soon as the current
// one has arrived, before the consumer works on it; what the consumer sees is unchanged.

/** A listing of `pages` pages with cursors c2, c3, ...; records the requests in the order they start. */
function fakeListing(pages: string[][], fail?: number) {
	const started: Array<number | undefined> = [];
	const fetchPage = async (request: PageRequest): Promise<PageAnswer<string[]>> => {
		started.push(request.page);
		if (request.page === fail) throw new Error(`page ${fail} failed`);
		const index = request.page - 1;
		return { content: pages[index], nextCursor: index + 1 < pages.length ? `c${index + 2}` : undefined };
	};
	return { started, fetchPage };
}

describe('cursorPages with prefetch', () => {
	it('asks for the next page before the consumer has the current one, and yields every page in order', async () => {
		const { started, fetchPage } = fakeListing([['a'], ['b'], ['c']]);
		const seen: Array<{ content: string[]; startedBefore: number }> = [];
		for await (const page of cursorPages(fetchPage, { cursorParameter: 'cursor' }, { prefetch: true })) {
			seen.push({ content: page.content, startedBefore: started.length });
		}
		expect(seen).toEqual([
			{ content: ['a'], startedBefore: 2 },
			{ content: ['b'], startedBefore: 3 },
			{ content: ['c'], startedBefore: 3 },
		]);
		expect(started).toEqual([1, 2, 3]);
	});

	it('sends each page the cursor of the one before', async () => {
		const requests: PageRequest[] = [];
		const { fetchPage } = fakeListing([['a'], ['b'], ['c']]);
		const recording = (request: PageRequest) => {
			requests.push(request);
			return fetchPage(request);
		};
		for await (const _page of cursorPages(recording, { cursorParameter: 'after' }, { prefetch: true })) {
			// Every page is taken.
		}
		expect(requests.map((request) => [request.page, request.cursor, request.qs.after])).toEqual([
			[1, undefined, undefined],
			[2, 'c2', 'c2'],
			[3, 'c3', 'c3'],
		]);
	});

	it('throws a prefetched page\'s failure only when the consumer asks for that page', async () => {
		const { fetchPage } = fakeListing([['a'], ['b'], ['c']], 2);
		const seen: string[][] = [];
		const run = async () => {
			for await (const page of cursorPages(fetchPage, { cursorParameter: 'cursor' }, { prefetch: true })) seen.push(page.content);
		};
		await expect(run()).rejects.toThrow('page 2 failed');
		expect(seen).toEqual([['a']]);
	});

	it('does not prefetch with a cursor it already used, and still reports the loop', async () => {
		let calls = 0;
		const fetchPage = async () => {
			calls++;
			return { content: ['a'], nextCursor: 'c2' };
		};
		const run = async () => {
			for await (const _page of cursorPages(fetchPage, { cursorParameter: 'cursor' }, { prefetch: true })) {
				// Every page is taken.
			}
		};
		await expect(run()).rejects.toMatchObject({ page: 2, cursor: 'c2' });
		await expect(run()).rejects.toBeInstanceOf(RepeatedCursorError);
		// Each run: page 1 and page 2 (cursor c2), then c2 again is not fetched.
		expect(calls).toBe(4);
	});

	it('hands a prefetched page the consumer never takes to discard', async () => {
		const { started, fetchPage } = fakeListing([['a'], ['b'], ['c']]);
		const discarded: string[][] = [];
		for await (const page of cursorPages(
			fetchPage,
			{ cursorParameter: 'cursor' },
			{ prefetch: true, discard: (content) => discarded.push(content) },
		)) {
			if (page.request.page === 1) break;
		}
		await new Promise((resolve) => setImmediate(resolve));
		expect(started).toEqual([1, 2]);
		expect(discarded).toEqual([['b']]);
	});
});
