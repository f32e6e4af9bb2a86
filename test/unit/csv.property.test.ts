import fc from 'fast-check';

import { CsvFormatError, CsvPages, type CsvDelimiter } from '../../nodes/shared/csv';
import { CsvPageFilter } from '../../nodes/ServiceReader/exports/csvPageFilter';
import { runs } from '../property/fc';

/**
 * Paged CSV exports under generated dialects (docs/service-choices.md): delimiter, header row on
 * later pages or not, LF or CRLF, a byte order mark, quoting every cell or only where needed, a
 * last line end or not, any page and chunk boundaries. Items and the one-file output must both
 * give the rows back, or fail naming the setting; with the settings pinned they always succeed.
 */

interface Dialect {
	delimiter: CsvDelimiter;
	headerEveryPage: boolean;
	lineEnd: '\n' | '\r\n';
	bom: boolean;
	quoteAll: boolean;
	lastLineEnd: boolean;
}

const dialect: fc.Arbitrary<Dialect> = fc.record({
	delimiter: fc.constantFrom<CsvDelimiter>(',', ';', '\t', '|'),
	headerEveryPage: fc.boolean(),
	lineEnd: fc.constantFrom<'\n' | '\r\n'>('\n', '\r\n'),
	bom: fc.boolean(),
	quoteAll: fc.boolean(),
	lastLineEnd: fc.boolean(),
});

const cellText = fc
	.array(fc.oneof(fc.constantFrom(',', ';', '\t', '|', '"', '\r', '\n', '\r\n', "'", '=', '+', '-', '@', ' ', 'é', '€', '😀'), fc.string({ maxLength: 4 })), {
		maxLength: 6,
	})
	.map((parts) => parts.join('').replace(/\uFEFF/g, ''));

// Column names as a Service writes them: identifiers (a name holding a delimiter is a test of its own).
const columnName = fc.stringMatching(/^[a-z][a-z0-9_]{0,9}$/);

const exportCase = fc
	.record({
		d: dialect,
		header: fc.uniqueArray(columnName, { minLength: 2, maxLength: 6 }),
		pageSizes: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 4 }),
		chunk: fc.integer({ min: 1, max: 64 }),
	})
	.chain(({ d, header, pageSizes, chunk }) => {
		const total = pageSizes.reduce((a, b) => a + b, 0);
		return fc.record({
			d: fc.constant(d),
			header: fc.constant(header),
			pageSizes: fc.constant(pageSizes),
			chunk: fc.constant(chunk),
			rows: fc.array(fc.array(cellText, { minLength: header.length, maxLength: header.length }), { minLength: total, maxLength: total }),
		});
	});

function cell(value: string, d: Dialect): string {
	const needs = d.quoteAll || value.includes(d.delimiter) || /["\r\n]/.test(value);
	return needs ? `"${value.replace(/"/g, '""')}"` : value;
}

const line = (cells: string[], d: Dialect) => cells.map((value) => cell(value, d)).join(d.delimiter);

/** The pages as the Service sends them, and what each contributes to the one file. */
function render(d: Dialect, header: string[], rows: string[][], pageSizes: number[]): { pages: string[]; file: string } {
	const pages: string[] = [];
	let file = '';
	let at = 0;
	// A last row without a line end gets the page's own line end; a page showing none, the first page's, else CRLF.
	let firstPageEnd = '\r\n';
	pageSizes.forEach((size, index) => {
		const data = rows.slice(at, at + size).map((cells) => line(cells, d));
		at += size;
		const lines = index === 0 || d.headerEveryPage ? [line(header, d), ...data] : data;
		const body = lines.map((text, i) => (i < lines.length - 1 || d.lastLineEnd ? text + d.lineEnd : text)).join('');
		const page = (d.bom ? '\uFEFF' : '') + body;
		pages.push(page);
		const end = lines.length > 1 || d.lastLineEnd ? d.lineEnd : firstPageEnd;
		if (index === 0) firstPageEnd = end;
		const kept = index === 0 ? lines : data;
		file += (index === 0 && d.bom ? '\uFEFF' : '') + kept.map((text) => text + end).join('');
	});
	return { pages, file };
}

function readItems(pages: string[], settings: ConstructorParameters<typeof CsvPages>[0]) {
	const reader = new CsvPages(settings);
	return pages.flatMap((page) => reader.rows(Buffer.from(page, 'utf8')));
}

function readFile(pages: string[], delimiter: CsvDelimiter | 'auto', headerRepeat: 'auto' | 'every' | 'first', chunk: number): string {
	const out: Buffer[] = [];
	let first: CsvPageFilter | undefined;
	for (const page of pages) {
		const filter = new CsvPageFilter({
			delimiter: first?.delimiter ?? delimiter,
			header: first ? (first.headerCells ?? []) : undefined,
			headerRepeat,
			lineEnd: first?.lineEnd,
			stripFormulaGuard: false,
		});
		const bytes = Buffer.from(page, 'utf8');
		for (let i = 0; i < bytes.length; i += chunk) out.push(...filter.push(bytes.subarray(i, i + chunk)));
		out.push(...filter.end());
		first ??= filter;
	}
	return Buffer.concat(out).toString('utf8');
}

/** A Service whose later page starts with a data row equal to the header row cannot be told apart (docs). */
const noRowLikeHeader = (header: string[], rows: string[][]) => rows.every((cells) => cells.join('\u0000') !== header.join('\u0000'));

describe('paged CSV exports, generated dialects', () => {
	test('items: the rows come back exactly, detected or pinned, or the error names the setting', () => {
		fc.assert(
			fc.property(exportCase, ({ d, header, rows, pageSizes }) => {
				fc.pre(noRowLikeHeader(header, rows));
				const { pages } = render(d, header, rows, pageSizes);
				const expected = rows.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i]])));
				const pinned = readItems(pages, { delimiter: d.delimiter, headerRepeat: d.headerEveryPage ? 'every' : 'first' });
				expect(pinned).toEqual(expected);
				let detected: unknown;
				try {
					detected = readItems(pages, { delimiter: 'auto', headerRepeat: 'auto' });
				} catch (error) {
					expect(error).toBeInstanceOf(CsvFormatError);
					expect((error as Error).message).toMatch(/CSV Delimiter|CSV Header Row/);
					return;
				}
				expect(detected).toEqual(expected);
			}),
			runs(400),
		);
	});

	test('file: byte for byte the pages minus repeated header rows and later byte order marks, in any chunks', () => {
		fc.assert(
			fc.property(exportCase, ({ d, header, rows, pageSizes, chunk }) => {
				fc.pre(noRowLikeHeader(header, rows));
				const { pages, file } = render(d, header, rows, pageSizes);
				expect(readFile(pages, d.delimiter, d.headerEveryPage ? 'every' : 'first', chunk)).toBe(file);
				expect(readFile(pages, 'auto', 'auto', chunk)).toBe(file);
			}),
			runs(400),
		);
	});

	test('a header row whose delimiter cannot be told is refused naming CSV Delimiter, never guessed', () => {
		fc.assert(
			fc.property(fc.constantFrom('ke', 'ke;name,tier', 'a|b;c', '"a,b";"c,d"|e|f;g'), (headerRow) => {
				const page = `${headerRow}\r\nx\r\n`;
				expect(() => readItems([page], { delimiter: 'auto', headerRepeat: 'auto' })).toThrow(/set CSV Delimiter/);
				expect(() => readFile([page], 'auto', 'auto', 3)).toThrow(/set CSV Delimiter/);
			}),
			runs(20),
		);
	});
});
