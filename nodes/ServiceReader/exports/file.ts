import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CsvFilePage } from './csvFilePage';
import { pageFailed } from '../../shared/pageErrors';
import { pageFetcher } from '../../shared/transport/pageFetch';
import type { Page, PageRequest } from '../../shared/paging';
import { cursorPages, LineDigests, ReadRows, RepeatedPageError } from '../../shared/paging';
import type { ExportRun } from './parameters';
import type { WindowColumn } from '../../shared/expiryWindow';
import { outsideWindow, outsideWindowWords, windowColumn } from '../../shared/expiryWindow';

/** A response body stream; typed structurally because node:stream may not be imported (n8n Cloud rule). */
type Readable = Exclude<Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0], Buffer>;

/**
 * One CSV file built from every page: the header row once, the rows of each page appended as
 * they arrive. The pages are streamed into n8n's binary data, so memory stays flat however long
 * the export is; if a page fails, the stream fails and no file is stored.
 */
export async function exportFile(this: IExecuteFunctions, run: ExportRun): Promise<INodeExecutionData> {
	const { spec, parameters, paging, settings } = run;
	const { limit, stripFormulaGuard } = parameters;
	let rows = 0;
	let pages = 0;
	let current: PageRequest | undefined;
	const fetchPage = pageFetcher.call<IExecuteFunctions, Parameters<typeof pageFetcher>, ReturnType<typeof pageFetcher<Readable>>>(
		this,
		spec.listing,
		run,
		'stream',
		(request) => {
			current = request;
		},
	);
	// The page being streamed into the file; undefined while the next one is awaited.
	let working: PageRequest | undefined;
	const fail = (error: unknown) => pageFailed.call(this, error, run, working ?? current, rows);

	// With Return All, the next page is asked for as soon as this one's headers are in.
	const pageIterator = cursorPages(fetchPage, paging, {
		prefetch: limit === undefined,
		discard: (body) => closeBody(body),
	});
	let first: IteratorResult<Page<Readable>, void>;
	try {
		// The first page is fetched here: its stream supplies the Readable class for the file.
		first = await pageIterator.next();
	} catch (error) {
		throw fail(error);
	}
	if (first.done) throw fail(new Error('The Service answered without a page'));

	// The whole file, every page together, is bounded by Max File Size.
	let fileBytes = 0;
	const counted = (chunk: Buffer) => {
		fileBytes += chunk.length;
		if (fileBytes > settings.maxFileBytes) {
			const limit = settings.maxFileBytes >= 1024 * 1024 ? `${+(settings.maxFileBytes / 1024 / 1024).toFixed(2)} MiB` : `${settings.maxFileBytes} bytes`;
			throw new Error(`The file grew past ${limit}, the Max File Size under Advanced Settings in the Service API credential; raise it if the export really is that large`);
		}
		return chunk;
	};

	// Expiries with a window: every streamed row is held against it, as in items mode.
	const window = run.window;
	let column: WindowColumn | undefined;
	let checked = 0;
	const node = this.getNode();
	const onRow = window === undefined ? undefined : (cells: string[], header: readonly string[]) => {
		const row = Object.fromEntries(header.map((name, i) => [name, cells[i]]));
		column ??= windowColumn(header, row);
		checked++;
		const why = column && outsideWindow(row, column, window);
		if (why) {
			const words = outsideWindowWords(checked, why, window);
			throw new NodeOperationError(node, words.message, { description: words.description, itemIndex: run.itemIndex });
		}
	};

	async function* csvChunks(firstPage: Page<Readable>): AsyncGenerator<Buffer> {
		// What the first page's header row shows (cells, delimiter, line end) reads every later page.
		let first: Pick<CsvFilePage, 'headerCells' | 'delimiter' | 'lineEnd' | 'encoding'> | undefined;
		const readRows = new ReadRows();
		const csvHeader: { header?: Buffer } = {};
		try {
			for (let page: Page<Readable> | undefined = firstPage; page !== undefined; ) {
				working = page.request;
				// The page's charset, byte order mark and sep= line read first; kept records' bytes as sent (csvFilePage.ts).
				const filter = new CsvFilePage({
					contentType: page.contentType,
					fileEncoding: first?.encoding,
					delimiter: first?.delimiter ?? settings.csvDelimiter,
					header: first ? (first.headerCells ?? []) : undefined,
					headerRepeat: settings.csvHeaderRepeat,
					lineEnd: first?.lineEnd,
					stripFormulaGuard,
					maxRows: limit === undefined ? undefined : limit - rows,
					onRow,
				});
				// Each line's digest, to stop at a page that repeats rows read before (a cursor not read: Send Cursor As).
				const lines = new LineDigests(page.request.page, csvHeader);
				// Bytes as they came: a record kept comes out as it came (UTF-16 read as WTF-8 and written back, csvFilePage.ts).
				for await (const chunk of page.content) {
					lines.push(chunk as Buffer);
					for (const bytes of filter.push(chunk as Buffer)) yield counted(bytes);
					// Leaving the loop closes the response: the rest of the page is not needed.
					if (filter.done) break;
				}
				if (!filter.done) {
					if (readRows.repeats(page.request.page, lines.end())) throw new RepeatedPageError(page.request.page, paging.cursorParameter, paging.cursorHeader);
					for (const bytes of filter.end()) yield counted(bytes);
				}
				first ??= filter;
				rows += filter.rows;
				pages++;
				if (limit !== undefined && rows >= limit) break;
				working = undefined;
				const next = await pageIterator.next();
				page = next.done ? undefined : next.value;
			}
		} catch (error) {
			throw fail(error);
		} finally {
			// Ends the page generator when the file is complete early (Limit) or failed.
			await pageIterator.return();
		}
	}

	const fileName = `${spec.listing}.csv`;
	const stream = readableFrom(first.value.content, csvChunks(first.value));
	const binary = await this.helpers.prepareBinaryData(stream, fileName, 'text/csv');
	return {
		json: { export: spec.listing, fileName, pages, rows },
		binary: { [parameters.binaryPropertyName]: binary },
	};
}

/** Releases a response body nobody will read, so its connection does not linger. */
function closeBody(body: Readable): void {
	const stream = body as unknown as { destroy?: () => void; resume?: () => void };
	if (typeof stream.destroy === 'function') stream.destroy();
	else stream.resume?.();
}

/**
 * A Readable of `source`, made with the Readable class of a response stream: community nodes may
 * not import node:stream (n8n Cloud rule), and prepareBinaryData needs a real Readable so every
 * binary data mode (filesystem, database, memory) can consume it.
 */
function readableFrom(sample: Readable, source: AsyncIterable<Buffer>): Readable {
	const readableClass = sample.constructor as unknown as { from?: (iterable: AsyncIterable<Buffer>) => Readable };
	if (typeof readableClass.from !== 'function') {
		throw new Error('The response body is not a Node.js stream, so the CSV file cannot be streamed');
	}
	return readableClass.from(source);
}
