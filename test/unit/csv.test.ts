import { CsvFormatError, parseCsvRows, stripFormulaGuard } from '../../nodes/shared/csv';
import { CsvPageFilter } from '../../nodes/ServiceReader/exports/csvPageFilter';
import type { CsvPageFilterOptions } from '../../nodes/ServiceReader/exports/csvPageFilter';

const BOM = '\uFEFF';

/** Runs a page's UTF-8 bytes through a filter in pieces of `size` bytes (1 = every possible split). */
function filterPage(text: string, options: CsvPageFilterOptions, size?: number) {
	const page = Buffer.from(text, 'utf8');
	const step = size ?? (page.length || 1);
	const filter = new CsvPageFilter(options);
	const out: Buffer[] = [];
	for (let i = 0; i < page.length && !filter.done; i += step) out.push(...filter.push(page.subarray(i, i + step)));
	if (!filter.done) out.push(...filter.end());
	return { out: Buffer.concat(out).toString('utf8'), filter };
}

/** A first page's filter options, and a later page's (after the first page's header row `header`). */
const firstPage = (more: Partial<CsvPageFilterOptions> = {}): CsvPageFilterOptions => ({ delimiter: ',', headerRepeat: 'auto', stripFormulaGuard: false, ...more });
const laterPage = (header: string[], more: Partial<CsvPageFilterOptions> = {}): CsvPageFilterOptions => ({ ...firstPage(more), header, ...more });

/** Every way to cut the page into pieces of 1, 2, 3, 5, 7 characters and in one piece. */
const splits = [1, 2, 3, 5, 7, Number.MAX_SAFE_INTEGER];

describe('stripFormulaGuard', () => {
	it.each([
		["'=SUM(A1)", '=SUM(A1)'],
		["'+1 Logistics", '+1 Logistics'],
		["'-2 Components", '-2 Components'],
		["'@SUM(A1:A9)", '@SUM(A1:A9)'],
		["'\tTabbed", '\tTabbed'],
		["'\rCarriage", '\rCarriage'],
	])('removes the guard of %j', (guarded, plain) => {
		expect(stripFormulaGuard(guarded)).toBe(plain);
	});

	it.each([["O'Brien"], ["'quoted text'"], ["''=two quotes"], ["'"], [''], ['=not guarded'], ["Société d'Été"]])(
		'leaves %j alone (no formula character after a leading quote)',
		(value) => {
			expect(stripFormulaGuard(value)).toBe(value);
		},
	);
});

describe('parseCsvRows', () => {
	it('keys rows by the header row; handles a BOM, CRLF, quoted commas, quotes and line breaks', () => {
		const page =
			`${BOM}ke,company_name,decision_due\r\n` +
			'KE-1,"Smith, Jones & ""Partners""\nLLP",true\r\n' +
			'KE-2,"Multi\r\nline",false\r\n';
		expect(parseCsvRows(Buffer.from(page, 'utf8'))).toEqual([
			{ ke: 'KE-1', company_name: 'Smith, Jones & "Partners"\nLLP', decision_due: 'true' },
			{ ke: 'KE-2', company_name: 'Multi\r\nline', decision_due: 'false' },
		]);
	});

	it('reads LF-only files and a last row without a line end', () => {
		expect(parseCsvRows('a,b\n1,2\n3,4')).toEqual([
			{ a: '1', b: '2' },
			{ a: '3', b: '4' },
		]);
	});

	it('gives no rows for a header-only page or an empty page', () => {
		expect(parseCsvRows('a,b\r\n')).toEqual([]);
		expect(parseCsvRows('')).toEqual([]);
	});

	it('keeps the formula guard by default and strips it on request, quoted or not', () => {
		const page = `ke,name\r\nKE-1,"'=HYPERLINK(""http://evil.example"",""x"")"\r\nKE-2,'+1 Logistics\r\nKE-3,"'\rCR"\r\nKE-4,O'Brien\r\n`;
		expect(parseCsvRows(page).map((r) => r.name)).toEqual([
			`'=HYPERLINK("http://evil.example","x")`,
			"'+1 Logistics",
			"'\rCR",
			"O'Brien",
		]);
		expect(parseCsvRows(page, { stripFormulaGuard: true }).map((r) => r.name)).toEqual([
			'=HYPERLINK("http://evil.example","x")',
			'+1 Logistics',
			'\rCR',
			"O'Brien",
		]);
	});

	it('throws on a quoted cell that never closes', () => {
		expect(() => parseCsvRows('a,b\r\n1,"open\r\n')).toThrow(/quote/i);
	});
});

describe('CsvPageFilter', () => {
	const header = 'ke,company_name,tier\r\n';
	const HEADER = ['ke', 'company_name', 'tier'];
	const rows = [
		'KE-1,Acme Supplies Ltd,tier-1\r\n',
		'KE-2,"\'=HYPERLINK(""http://evil.example"",""click me"")",tier-2\r\n',
		"KE-3,'+1 Logistics,tier-3\r\n",
		"KE-4,'\tTabbed Holdings,tier-1\r\n",
		'KE-5,"\'\rCarriage Return Co",tier-2\r\n',
		'KE-6,"Smith, Jones & ""Partners""\nLLP",tier-3\r\n',
		"KE-7,Société Générale d'Été,tier-1\r\n",
	];
	const page = header + rows.join('');

	it.each(splits)('passes the first page through byte for byte (pieces of %d)', (size) => {
		const { out, filter } = filterPage(page, firstPage({ stripFormulaGuard: false }), size);
		expect(out).toBe(page);
		expect(filter.rows).toBe(7);
		expect(filter.headerCells).toEqual(HEADER);
	});

	it.each(splits)('drops the header row of later pages, BOM included (pieces of %d)', (size) => {
		const { out } = filterPage(BOM + page, laterPage(HEADER, { stripFormulaGuard: false }), size);
		expect(out).toBe(rows.join(''));
	});

	it('keeps the BOM of the first page, outside the header text', () => {
		const { out, filter } = filterPage(BOM + page, firstPage({ stripFormulaGuard: false }));
		expect(out).toBe(BOM + page);
		expect(filter.headerCells).toEqual(HEADER);
	});

	it.each(splits)('strips the formula guard only at the start of cells (pieces of %d)', (size) => {
		const { out } = filterPage(page, firstPage({ stripFormulaGuard: true }), size);
		expect(out).toBe(
			header +
				[
					'KE-1,Acme Supplies Ltd,tier-1\r\n',
					'KE-2,"=HYPERLINK(""http://evil.example"",""click me"")",tier-2\r\n',
					'KE-3,+1 Logistics,tier-3\r\n',
					'KE-4,\tTabbed Holdings,tier-1\r\n',
					'KE-5,"\rCarriage Return Co",tier-2\r\n',
					'KE-6,"Smith, Jones & ""Partners""\nLLP",tier-3\r\n',
					"KE-7,Société Générale d'Été,tier-1\r\n",
				].join(''),
		);
	});

	it('gives the same rows as parsing and stripping, so items and file agree', () => {
		const { out } = filterPage(page, firstPage({ stripFormulaGuard: true }), 3);
		expect(parseCsvRows(out)).toEqual(parseCsvRows(page, { stripFormulaGuard: true }));
	});

	it("leaves a quote that is a whole unquoted cell, or followed by text, alone", () => {
		const text = "a,b\r\n',x\r\nO'Brien,'quoted'\r\n'\r\n";
		expect(filterPage(text, firstPage({ stripFormulaGuard: true }), 1).out).toBe(text);
	});

	it.each(splits)('stops after maxRows rows, even inside a chunk (pieces of %d)', (size) => {
		const { out, filter } = filterPage(page, laterPage(HEADER, { stripFormulaGuard: false, maxRows: 3 }), size);
		expect(out).toBe(rows.slice(0, 3).join(''));
		expect(filter.rows).toBe(3);
		expect(filter.done).toBe(true);
	});

	it('counts a quoted line break as part of the row, not a new row', () => {
		const { filter } = filterPage(page, firstPage({ stripFormulaGuard: false }), 1);
		expect(filter.rows).toBe(rows.length);
	});

	it('ends a last row that has no line end with the line end of the header, for the next page to follow', () => {
		const { out } = filterPage('a,b\r\n1,2\r\n3,4', laterPage(['a', 'b'], { stripFormulaGuard: false }));
		expect(out).toBe('1,2\r\n3,4\r\n');
		expect(filterPage('a,b\n1,2', firstPage({ stripFormulaGuard: false })).out).toBe('a,b\n1,2\n');
	});

	it('keeps LF-only pages as they are and passes blank lines without counting them', () => {
		const text = 'a,b\n1,2\n\n3,4\n';
		const { out, filter } = filterPage(text, laterPage(['a', 'b'], { stripFormulaGuard: false }), 2);
		expect(out).toBe('1,2\n\n3,4\n');
		expect(filter.rows).toBe(2);
	});

	it('gives nothing for an empty page and only the header for a header-only first page', () => {
		expect(filterPage('', laterPage(HEADER, { stripFormulaGuard: false })).out).toBe('');
		expect(filterPage(header, laterPage(HEADER, { stripFormulaGuard: false })).out).toBe('');
		const only = filterPage(header, firstPage({ stripFormulaGuard: false }));
		expect([only.out, only.filter.rows]).toEqual([header, 0]);
	});

	it('refuses a page that ends inside a quoted cell', () => {
		expect(() => filterPage('a,b\r\n1,"open\r\n', firstPage({ stripFormulaGuard: false }), 4)).toThrow(
			new CsvFormatError('A quoted cell in row 1 is not closed at the end of the page'),
		);
	});

	it('joins pages into one file equal to the pages minus their repeated header rows', () => {
		const pages = [header + rows.slice(0, 3).join(''), header + rows.slice(3, 6).join(''), header + rows[6]];
		const file = pages
			.map((p, index) => filterPage(p, index > 0 ? laterPage(HEADER) : firstPage(), 4).out)
			.join('');
		expect(file).toBe(page);
	});
});
