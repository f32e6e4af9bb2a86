import { parse } from 'csv-parse/sync';
import fc from 'fast-check';

import { CsvPages, splitEach, splitPlain, type CsvDelimiter } from '../../nodes/shared/csv';
import { runs } from '../property/fc';

/**
 * The Changes Trigger splits CSV pages itself (`splitPlain`) for speed: whatever it reads must be
 * exactly what csv-parse reads with the options `CsvPages` gives it, and anything it is not sure of
 * must go to csv-parse (undefined), so a page csv-parse refuses is still refused in its words.
 */
const csvParse = (text: string, delimiter: string): string[][] | Error => {
	try {
		return parse(text, { delimiter, skip_empty_lines: true, relax_column_count: true }) as string[][];
	} catch (error) {
		return error as Error;
	}
};

const delimiter = fc.constantFrom<CsvDelimiter>(',', ';', '\t', '|');

describe('splitPlain: CSV split in one pass, as csv-parse reads it', () => {
	it('any text: read exactly as csv-parse reads it, or left to csv-parse', () => {
		const piece = fc.constantFrom('a', 'b', ',', ';', '\t', '|', '"', '""', '\r', '\n', '\r\n', ' ', "'", 'é', '');
		fc.assert(
			fc.property(fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join('')), delimiter, (text, d) => {
				const mine = splitPlain(text, d);
				if (mine === undefined) return;
				expect(mine).toEqual(csvParse(text, d));
			}),
			runs(3000),
		);
	});

	it('any text, record by record: the records taken before it is unsure are csv-parse\'s first records (the rest is read by csv-parse, passing over them)', () => {
		const piece = fc.constantFrom('a', 'b', ',', ';', '"', '""', '\r', '\n', '\r\n', ' ', 'é', '');
		fc.assert(
			fc.property(fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join('')), delimiter, (text, d) => {
				const taken: string[][] = [];
				const unsureAt = splitEach(text, d, (cells) => void taken.push(cells));
				const theirs: string[][] = [];
				try {
					parse(text, { delimiter: d, skip_empty_lines: true, relax_column_count: true, on_record: (cells: string[]) => void theirs.push(cells) });
				} catch {
					// Its records before the error are what it read.
				}
				expect(taken).toEqual(unsureAt < 0 ? theirs : theirs.slice(0, unsureAt));
			}),
			runs(3000),
		);
	});

	it('well-formed RFC 4180 CSV (quoted cells with delimiters, quotes and line ends, LF, CRLF or CR) is read by it, as csv-parse reads it', () => {
		const cell = fc.array(fc.constantFrom('a', 'Z', ' ', '"', ',', ';', '\t', '|', '\r', '\n', "'", '€'), { maxLength: 6 }).map((c) => c.join(''));
		fc.assert(
			fc.property(
				fc.array(fc.array(cell, { minLength: 2, maxLength: 5 }), { maxLength: 6 }),
				delimiter,
				fc.constantFrom('\n', '\r\n', '\r'),
				fc.boolean(),
				fc.boolean(),
				(records, d, lineEnd, quoteAll, lastLineEnd) => {
					const quote = (value: string) => (quoteAll || /["\r\n]/.test(value) || value.includes(d) ? `"${value.replace(/"/g, '""')}"` : value);
					const text = records.map((cells) => cells.map(quote).join(d)).join(lineEnd) + (lastLineEnd && records.length > 0 ? lineEnd : '');
					const mine = splitPlain(text, d);
					expect(mine).toBeDefined();
					expect(mine).toEqual(csvParse(text, d));
				},
			),
			runs(1000),
		);
	});

	it('CsvPage.each gives the cells of the rows CsvPages.rows gives, page by page', () => {
		const cell = fc.array(fc.constantFrom('a', '1', ' ', '"', ',', '\n', '=', "'"), { maxLength: 5 }).map((c) => c.join(''));
		fc.assert(
			fc.property(fc.array(fc.array(fc.tuple(cell, cell, cell), { maxLength: 4 }), { minLength: 1, maxLength: 4 }), fc.boolean(), (pages, strip) => {
				const header = ['ke', 'name', 'tier'];
				const quote = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
				const bodies = pages.map((rows) => [header, ...rows].map((cells) => `${cells.map(quote).join(',')}\r\n`).join(''));
				const byRows = new CsvPages({ delimiter: 'auto', headerRepeat: 'auto', stripFormulaGuard: strip });
				const byCells = new CsvPages({ delimiter: 'auto', headerRepeat: 'auto', stripFormulaGuard: strip });
				for (const body of bodies) {
					const rows = byRows.rows(Buffer.from(body));
					const cells: string[][] = [];
					byCells.page(Buffer.from(body)).each((row) => void cells.push(row));
					expect(cells).toEqual(rows.map((row) => header.map((column) => row[column])));
					expect(byCells.header).toEqual(byRows.header);
				}
			}),
			runs(500),
		);
	});

	it('a stray quote or mixed line ends are left to csv-parse, which refuses or reads it; CR alone is a line end as csv-parse reads it', () => {
		expect(splitPlain('ke,name\r\nKE-1,a"b\r\n', ',')).toBeUndefined();
		expect(splitPlain('ke,name\r\nKE-1,"ab"c\r\n', ',')).toBeUndefined();
		expect(splitPlain('ke,name\rKE-1,a\r', ',')).toEqual([['ke', 'name'], ['KE-1', 'a']]);
		expect(splitPlain('ke,name\rKE-1,a\nb\r', ',')).toBeUndefined();
		expect(splitPlain('ke,name\r\nKE-1,a\nKE-2,b\r\n', ',')).toBeUndefined();
		expect(splitPlain('ke,name\r\nKE-1,"a\r\n', ',')).toBeUndefined();
		expect(splitPlain('ke,name\r\n"KE-1","a ""b"", c"\r\n\r\nKE-2,\r\n', ',')).toEqual([['ke', 'name'], ['KE-1', 'a "b", c'], ['KE-2', '']]);
	});
});
