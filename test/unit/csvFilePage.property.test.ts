import fc from 'fast-check';

import type { CsvDelimiter } from '../../nodes/shared/csv';
import { CsvFormatError } from '../../nodes/shared/csv';
import { CsvFilePage } from '../../nodes/ServiceReader/exports/csvFilePage';
import { Utf16ToWtf8, Wtf8ToUtf16 } from '../../nodes/ServiceReader/exports/utf16Units';
import { runs } from '../property/fc';
import { encodeText, csvContentType, ENCODINGS, type Encoding } from '../sandbox/csvEncoding';

/**
 * File mode keeps the Service's bytes (issue 44 item 3): whatever the encoding (UTF-8, UTF-16LE/BE with
 * a byte order mark, windows-1252), the chunk splits, the delimiter, a `sep=` line, and whether later
 * pages repeat the header row, the file is the first page as sent (its mark and sep= line once, at the
 * start), then each later page's records as sent, without its mark, sep= line or repeated header row.
 */

const cell = fc.oneof(fc.string({ maxLength: 5 }), fc.constantFrom('é', '€', 'Ω', '😀', '"', ',', ';', '|', '\r\n', "'=1"));
const latin = fc.oneof(fc.string({ maxLength: 5 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')), fc.constantFrom('é', '€', '"', ';', '\n'));
const quote = (value: string, d: string) => (/["\r\n]/.test(value) || value.includes(d) || value === '' ? `"${value.replace(/"/g, '""')}"` : value);

const shape = fc
	.record({
		encoding: fc.constantFrom<Encoding>(...ENCODINGS),
		delimiter: fc.constantFrom<CsvDelimiter>(',', ';', '\t', '|'),
		sep: fc.boolean(),
		bom: fc.boolean(),
		headerEveryPage: fc.boolean(),
		lineEnd: fc.constantFrom('\r\n', '\n'),
		chunk: fc.integer({ min: 1, max: 9 }),
	})
	.chain((s) =>
		fc.record({
			s: fc.constant(s),
			pages: fc.array(fc.array(fc.tuple(fc.string({ maxLength: 3 }), s.encoding === 'windows-1252' ? latin : cell), { maxLength: 3 }), { minLength: 1, maxLength: 3 }),
		}),
	);

function run(pages: Array<{ bytes: Buffer; contentType: string }>, chunk: number, delimiter: CsvDelimiter | 'auto'): Buffer {
	const out: Buffer[] = [];
	let first: CsvFilePage | undefined;
	for (const page of pages) {
		const filter = new CsvFilePage({
			contentType: page.contentType,
			fileEncoding: first?.encoding,
			delimiter: first?.delimiter ?? delimiter,
			header: first ? (first.headerCells ?? []) : undefined,
			headerRepeat: 'auto',
			lineEnd: first?.lineEnd,
			stripFormulaGuard: false,
		});
		for (let i = 0; i < page.bytes.length; i += chunk) out.push(...filter.push(page.bytes.subarray(i, i + chunk)));
		out.push(...filter.end());
		first ??= filter;
	}
	return Buffer.concat(out);
}

test('the file holds every kept record as sent, the first page\'s mark and sep= line once, in every encoding and split', () => {
	fc.assert(
		fc.property(shape, ({ s, pages }) => {
			const line = (cells: string[]) => cells.map((c) => quote(c, s.delimiter)).join(s.delimiter) + s.lineEnd;
			const header = line(['ke', 'name']);
			const head = (s.sep ? `sep=${s.delimiter}${s.lineEnd}` : '');
			const texts = pages.map((rows, i) => head + (i === 0 || s.headerEveryPage ? header : '') + rows.map(([k, v]) => line([`K${k}`, v])).join(''));
			const sent = texts.map((text) => ({ bytes: encodeText(text, s.encoding, s.bom), contentType: csvContentType(s.encoding) }));
			const expected = head + header + pages.map((rows) => rows.map(([k, v]) => line([`K${k}`, v])).join('')).join('');
			expect(run(sent, s.chunk, 'auto').equals(encodeText(expected, s.encoding, s.bom))).toBe(true);
		}),
		runs(300),
	);
});

test('WTF-8 round trip: any UTF-16 code units, lone surrogates included, cut anywhere, come back as the very bytes', () => {
	fc.assert(
		fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 }), fc.boolean(), fc.integer({ min: 1, max: 7 }), (units, bigEndian, cut) => {
			const bytes = Buffer.from(Uint16Array.from(units).buffer);
			if (bigEndian) bytes.swap16();
			const there = new Utf16ToWtf8(bigEndian);
			const back = new Wtf8ToUtf16(bigEndian);
			const out: Buffer[] = [];
			for (let i = 0; i < bytes.length; i += cut) out.push(back.push(there.push(bytes.subarray(i, i + cut))));
			out.push(back.push(there.push(Buffer.alloc(0), true)));
			expect(Buffer.concat(out).equals(bytes)).toBe(true);
		}),
		runs(300),
	);
});

test('pages that cannot share one file as sent are refused naming why', () => {
	const le = { bytes: encodeText('ke,name\r\nK1,a\r\n', 'utf-16le'), contentType: 'text/csv; charset=utf-16' };
	const be = { bytes: encodeText('ke,name\r\nK2,b\r\n', 'utf-16be'), contentType: 'text/csv; charset=utf-16' };
	expect(() => run([le, be], 4, 'auto')).toThrow('This page is in utf-16be where the first page was in utf-16le: one file cannot hold both as sent');
	expect(() => run([{ bytes: Buffer.from('ke,name\r\n'), contentType: 'text/csv; charset=shift_jis' }], 4, 'auto')).toThrow(CsvFormatError);
	expect(() => run([{ bytes: Buffer.from('sep=;\r\nke;name\r\n'), contentType: 'text/csv' }], 4, ',')).toThrow(/says the delimiter is a semicolon, but the export is read with a comma: set CSV Delimiter/);
	expect(() => run([{ bytes: Buffer.from([0xff, 0xfe, 0x61]), contentType: 'text/csv' }], 4, ',')).toThrow('The page ends in the middle of a UTF-16 character');
});
