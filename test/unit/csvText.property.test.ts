import fc from 'fast-check';

import type { CsvDelimiter } from '../../nodes/shared/csv';
import { CsvFormatError, CsvPages } from '../../nodes/shared/csv';
import { charsetOf, csvPageRead, CsvTextDecoder } from '../../nodes/shared/csvText';
import { CsvFilePage } from '../../nodes/ServiceReader/exports/csvFilePage';
import { runs } from '../property/fc';
import { encodeCsv, ENCODINGS, type Encoding } from '../sandbox/csvEncoding';

/**
 * CSV as Excel-minded Services ship it (issue 44 item 3): whatever the encoding (UTF-8 with or without a
 * byte order mark, UTF-16LE/BE with one, windows-1252 named in Content-Type), however the bytes are
 * split into chunks, whatever the delimiter and whether a `sep=` line names it, the rows read are the
 * rows of the same page in UTF-8.
 */

const cell = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('é', 'ü', '€', '"', ',', ';', '\r\n', 'Ωmega', 'x'));
// windows-1252 has no 'Ω' nor emoji: cells of such pages keep to what it can say.
const latinCell = fc.oneof(fc.string({ maxLength: 6 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')), fc.constantFrom('é', 'ü', '€', '"', ';', 'x'));
const quote = (value: string, d: string) => (/["\r\n]/.test(value) || value.includes(d) || value === '' ? `"${value.replace(/"/g, '""')}"` : value);

const page = fc
	.record({
		encoding: fc.constantFrom<Encoding>(...ENCODINGS),
		delimiter: fc.constantFrom<CsvDelimiter>(',', ';', '\t', '|'),
		sep: fc.boolean(),
		lineEnd: fc.constantFrom('\r\n', '\n'),
		width: fc.integer({ min: 1, max: 4 }),
		cuts: fc.array(fc.integer({ min: 1, max: 7 }), { maxLength: 40 }),
	})
	.chain((shape) =>
		fc.record({
			shape: fc.constant(shape),
			rows: fc.array(fc.array(shape.encoding === 'windows-1252' ? latinCell : cell, { minLength: shape.width, maxLength: shape.width }), { minLength: 0, maxLength: 5 }),
		}),
	);

function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
	const chunks: Buffer[] = [];
	let at = 0;
	for (const cut of cuts) {
		if (at >= bytes.length) break;
		chunks.push(bytes.subarray(at, at + cut));
		at += cut;
	}
	if (at < bytes.length) chunks.push(bytes.subarray(at));
	return chunks;
}

test('every encoding, chunk split, delimiter and sep= line reads to the rows of the page in UTF-8', () => {
	fc.assert(
		fc.property(page, ({ shape, rows }) => {
			const header = Array.from({ length: shape.width }, (_, i) => `col_${i}`);
			const text = [header, ...rows].map((cells) => cells.map((c) => quote(c, shape.delimiter)).join(shape.delimiter) + shape.lineEnd).join('');
			const sent = (shape.sep ? `sep=${shape.delimiter}${shape.lineEnd}` : '') + text;
			const { bytes, contentType } = encodeCsv(sent, shape.encoding);
			// Decoded chunk by chunk: the same text, without the byte order mark and the sep= line.
			const decoder = new CsvTextDecoder(contentType);
			const decoded = chunked(bytes, shape.cuts).map((chunk) => decoder.push(chunk)).join('') + decoder.end();
			expect(decoded).toBe(text);
			expect(decoder.sep ? decoder.sep.delimiter : undefined).toBe(shape.sep ? shape.delimiter : undefined);
			// Read into rows, the delimiter detected or given by sep=: the rows of the UTF-8 page.
			if (header.length === 1 && !shape.sep) return;
			const utf8 = new CsvPages({ delimiter: shape.delimiter, headerRepeat: 'auto' }).rows(Buffer.from(text));
			const reading = new CsvPages({ delimiter: 'auto', headerRepeat: 'auto' });
			expect(reading.rows(csvPageRead(bytes, contentType, reading))).toEqual(utf8);
		}),
		runs(300),
	);
});

test('a later page without a byte order mark or charset is read in the first page\'s encoding', () => {
	const reading = new CsvPages({ delimiter: 'auto', headerRepeat: 'auto' });
	const first = encodeCsv('ke;name\r\nKE-1;Zoë\r\n', 'utf-16le');
	expect(reading.rows(csvPageRead(first.bytes, first.contentType, reading))).toEqual([{ ke: 'KE-1', name: 'Zoë' }]);
	const later = Buffer.from('KE-2;Łukasz\r\n', 'utf16le');
	expect(reading.rows(csvPageRead(later, 'text/csv', reading))).toEqual([{ ke: 'KE-2', name: 'Łukasz' }]);
});

test('a sep= line is the delimiter on every page; one contradicting CSV Delimiter is refused naming it', () => {
	const reading = new CsvPages({ delimiter: 'auto', headerRepeat: 'auto' });
	expect(reading.rows(csvPageRead(Buffer.from('sep=;\r\na,b;c\r\n1,2;3\r\n'), undefined, reading))).toEqual([{ 'a,b': '1,2', c: '3' }]);
	expect(reading.rows(csvPageRead(Buffer.from('SEP=;\na,b;c\n4,5;6\n'), undefined, reading))).toEqual([{ 'a,b': '4,5', c: '6' }]);
	const pinned = new CsvPages({ delimiter: ',', headerRepeat: 'auto' });
	expect(() => csvPageRead(Buffer.from('sep=;\r\na;b\r\n'), undefined, pinned)).toThrow(
		'Its first line "sep=;" says the delimiter is a semicolon, but the export is read with a comma: set CSV Delimiter under Advanced Settings in the Service API credential to Detect or semicolon',
	);
	expect(() => csvPageRead(Buffer.from('sep=:\r\na:b\r\n'), undefined, reading)).toThrow(/names the delimiter ":", which the nodes do not read/);
	// A first line that only starts like one is the header row.
	expect(new CsvPages({ delimiter: 'auto', headerRepeat: 'auto' }).rows(csvPageRead(Buffer.from('sep=;x;y\r\n1;2;3\r\n'), undefined, reading))).toEqual([{ 'sep=': '1', x: '2', y: '3' }]);
});

test('charsets: named ones decoded by name, an unknown one refused naming it, a contradicting byte order mark wins', () => {
	expect(charsetOf('text/csv; Charset="Windows-1252"')).toBe('windows-1252');
	expect(charsetOf('text/csv;charset=')).toBeUndefined();
	const latin = new CsvPages({ delimiter: 'auto', headerRepeat: 'auto' });
	expect(latin.rows(csvPageRead(Buffer.from([0x6e, 0x3b, 0x76, 0x0a, 0x80, 0x3b, 0xe9, 0x0a]), 'text/csv; charset=ISO-8859-1', latin))).toEqual([{ n: '€', v: 'é' }]);
	expect(() => new CsvTextDecoder('text/csv; charset=x-klingon')).toThrow(CsvFormatError);
	expect(() => new CsvTextDecoder('text/csv; charset=x-klingon')).toThrow('Its Content-Type names the charset "x-klingon", which the nodes cannot decode');
	const decoder = new CsvTextDecoder('text/csv; charset=utf-8');
	const text = decoder.push(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\r\n', 'utf16le')])) + decoder.end();
	expect(text).toBe('a,b\r\n');
	expect([decoder.encoding, decoder.bomContradicts]).toEqual(['utf-16le', true]);
});

test('UTF-16 without a byte order mark or charset is told by its NUL bytes, in both modes and byte orders', () => {
	const text = 'ke;company_name;tier\r\nKE-1;Société Générale;gold\r\nKE-2;Ωmega 😀;silver\r\n';
	const rows = [
		{ ke: 'KE-1', company_name: 'Société Générale', tier: 'gold' },
		{ ke: 'KE-2', company_name: 'Ωmega 😀', tier: 'silver' },
	];
	for (const bytes of [Buffer.from(text, 'utf16le'), Buffer.from(text, 'utf16le').swap16()]) {
		const reading = new CsvPages({ delimiter: 'auto', headerRepeat: 'auto' });
		expect(reading.rows(csvPageRead(bytes, 'text/csv', reading))).toEqual(rows);
		const decoder = new CsvTextDecoder(undefined);
		expect(Array.from(bytes, (byte) => decoder.push(Uint8Array.of(byte))).join('') + decoder.end()).toBe(text);
		const file = new CsvFilePage({ contentType: 'text/csv', delimiter: 'auto', headerRepeat: 'auto', stripFormulaGuard: false });
		expect(Buffer.concat([...file.push(bytes), ...file.end()]).equals(bytes)).toBe(true);
	}
	// Named otherwise, it is refused rather than read with NULs in its cells.
	const named = new CsvPages({ delimiter: 'auto', headerRepeat: 'auto' });
	expect(() => csvPageRead(Buffer.from(text, 'utf16le'), 'text/csv; charset=utf-8', named)).toThrow(
		'Its Content-Type names the charset utf-8, but its bytes are UTF-16LE (a NUL byte beside each character) without a byte order mark',
	);
	// UTF-8 (no NUL bytes) stays UTF-8.
	const utf8 = new CsvPages({ delimiter: 'auto', headerRepeat: 'auto' });
	expect(utf8.rows(csvPageRead(Buffer.from(text), undefined, utf8))).toEqual(rows);
});
