import fc from 'fast-check';

import { CsvFormatError, parseCsvRows } from '../../nodes/shared/csv';
import { runs } from '../property/fc';

/**
 * Column names are the Service's text (issue 31): whatever they are, a row keeps every value under its
 * own name (`__proto__`, `constructor` and `toString` included), and a header row naming a column
 * twice is refused naming it, never one value silently kept.
 */

const quoted = (cell: string) => `"${cell.replace(/"/g, '""')}"`;
const csvOf = (rows: string[][]) => rows.map((cells) => cells.map(quoted).join(',')).join('\r\n');

// Names an object keyed by column name gets wrong, and any text.
const columnName = fc.oneof(
	fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'ke', 'name'),
	fc.string({ minLength: 1, maxLength: 8 }),
);

describe('CSV rows keyed by the Service’s column names', () => {
	it('keeps every value as an own property under its column name, in header order, whatever the names', () => {
		fc.assert(
			fc.property(
				fc.uniqueArray(columnName, { minLength: 1, maxLength: 6 }),
				fc.array(fc.string({ maxLength: 6 }), { minLength: 6, maxLength: 6 }),
				(header, values) => {
					const cells = header.map((_, i) => values[i]);
					const [row] = parseCsvRows(csvOf([header, cells]));
					// Sorted: an object lists integer-like keys first, whatever the header order.
					expect(Object.keys(row).sort()).toEqual([...header].sort());
					for (let i = 0; i < header.length; i++) {
						expect(Object.getOwnPropertyDescriptor(row, header[i])?.value).toBe(cells[i]);
					}
					// What n8n stores and shows: the row as JSON.
					expect(JSON.parse(JSON.stringify(row))).toEqual(JSON.parse(JSON.stringify(Object.fromEntries(header.map((name, i) => [name, cells[i]])))));
					expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
				},
			),
			runs(300),
		);
	});

	it('refuses a header row naming a column twice, naming the column and both positions', () => {
		fc.assert(
			fc.property(
				fc.uniqueArray(columnName, { minLength: 1, maxLength: 5 }),
				fc.nat(),
				fc.nat(),
				(names, pick, at) => {
					const twice = names[pick % names.length];
					const header = [...names];
					const position = at % (header.length + 1);
					header.splice(position, 0, twice);
					const first = header.indexOf(twice);
					const second = header.indexOf(twice, first + 1);
					const read = () => parseCsvRows(csvOf([header, header.map(() => 'v')]));
					expect(read).toThrow(CsvFormatError);
					expect(read).toThrow(`names the column ${JSON.stringify(twice)} twice (columns ${first + 1} and ${second + 1})`);
				},
			),
			runs(300),
		);
	});

	it('keeps a __proto__ column’s value (the issue-31 probe)', () => {
		const [row] = parseCsvRows('ke,__proto__,name\r\nKE-1,"{""polluted"":true}",Acme\r\n');
		expect(JSON.stringify(row)).toBe('{"ke":"KE-1","__proto__":"{\\"polluted\\":true}","name":"Acme"}');
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});
});
