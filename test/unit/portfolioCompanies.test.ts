import type { CsvReading } from '../../nodes/shared/csv';
import { columnNamed, CsvFormatError } from '../../nodes/shared/csv';
import type { PickerToken } from '../../nodes/ServiceReader/methods/portfolioCompanies';
import {
	companyChoices,
	decodePickerToken,
	encodePickerToken,
} from '../../nodes/ServiceReader/methods/portfolioCompanies';

const detect: CsvReading = { delimiter: 'auto', headerRepeat: 'auto' };

describe('the KE picker reading a portfolio page', () => {
	it('offers "name (KE)" with the KE as value, names on one line and without the formula guard', () => {
		const page = 'ke,company_name,tier\r\nKE-1,Acme Ltd,tier-1\r\nKE-2,"\'=HYPERLINK(""x"")",tier-2\r\nKE-3,"Smith &\r\n Jones",tier-3\r\nKE-4,,tier-1\r\n,Nameless,tier-1\r\n';
		expect(companyChoices(page, detect, undefined).choices).toEqual([
			{ name: 'Acme Ltd (KE-1)', value: 'KE-1' },
			{ name: '=HYPERLINK("x") (KE-2)', value: 'KE-2' },
			{ name: 'Smith & Jones (KE-3)', value: 'KE-3' },
			{ name: 'KE-4', value: 'KE-4' },
		]);
	});

	it('finds the KE and name columns by name, in any order and case, with any delimiter', () => {
		const page = 'Decision_Due;Name;KE\nfalse;Acme Ltd;KE-1\n';
		expect(companyChoices(page, detect, undefined)).toEqual({
			choices: [{ name: 'Acme Ltd (KE-1)', value: 'KE-1' }],
			header: ['Decision_Due', 'Name', 'KE'],
			delimiter: ';',
			ke: 'KE',
		});
		expect(columnNamed(['ke', 'company', 'name'], ['company_name', 'name', 'company'])).toBe('name');
		expect(columnNamed(['ke', 'tier'], ['company_name', 'name'])).toBeUndefined();
	});

	it('filters by name or KE, case-insensitive', () => {
		const page = 'ke,company_name\nKE-1001,Acme Ltd\nKE-2002,Beta plc\n';
		const kes = (filter: string) => companyChoices(page, detect, undefined, filter).choices.map((choice) => choice.value);
		expect(kes('ACME')).toEqual(['KE-1001']);
		expect(kes('ke-2')).toEqual(['KE-2002']);
		expect(kes('  plc ')).toEqual(['KE-2002']);
		expect(kes('')).toEqual(['KE-1001', 'KE-2002']);
		expect(kes('gamma')).toEqual([]);
	});

	it('reads a later page with the header row and delimiter the token carries, repeated or not', () => {
		const from: PickerToken = { cursor: 'c2', page: 2, header: ['company_name', 'ke'], delimiter: ';' };
		expect(companyChoices('Beta plc;KE-2\r\n', detect, from).choices).toEqual([{ name: 'Beta plc (KE-2)', value: 'KE-2' }]);
		expect(companyChoices('\uFEFFcompany_name;ke\r\nBeta plc;KE-2\r\n', detect, from).choices).toEqual([{ name: 'Beta plc (KE-2)', value: 'KE-2' }]);
	});

	it('an empty page offers nothing; a page whose KE column cannot be told is refused, naming the columns', () => {
		expect(companyChoices('', detect, undefined).choices).toEqual([]);
		expect(companyChoices('id,company_name\n', detect, undefined).choices).toEqual([]);
		expect(() => companyChoices('id,company_name\n1,Acme\n', detect, undefined)).toThrow(
			new CsvFormatError('The portfolio has no column named ke, and 2 columns whose values on the first page could each be the KE ("id", "company_name"), so which one holds it cannot be told'),
		);
		expect(() => companyChoices('id,company_name\n1,Acme Ltd\n1,Beta plc\n', detect, undefined)).toThrow(/nor one whose values on the first page are all distinct identifiers.*its columns are "id", "company_name"/);
	});

	it('a KE column named otherwise is found by name or by its values, and later pages read the same column', () => {
		expect(companyChoices('company_ke,company_name\nKE-1,Acme Ltd\n', detect, undefined)).toMatchObject({ choices: [{ name: 'Acme Ltd (KE-1)', value: 'KE-1' }], ke: 'company_ke' });
		const first = companyChoices('code,company_name,tier\nKE-1,Acme Ltd,tier-1\nKE-2,Beta plc,tier-1\n', detect, undefined);
		expect(first).toMatchObject({ choices: [{ name: 'Acme Ltd (KE-1)', value: 'KE-1' }, { name: 'Beta plc (KE-2)', value: 'KE-2' }], ke: 'code' });
		// One row on the later page would leave its shape open: the token's column is used.
		const from: PickerToken = { cursor: 'c2', page: 2, header: first.header, delimiter: first.delimiter, ke: first.ke };
		expect(decodePickerToken(encodePickerToken(from))).toEqual(from);
		expect(companyChoices('KE-3,Gamma,tier-2\n', detect, from).choices).toEqual([{ name: 'Gamma (KE-3)', value: 'KE-3' }]);
		expect(decodePickerToken(encodePickerToken({ ...from, ke: 'elsewhere' }))).toBeUndefined();
	});

	it('a pagination token round-trips; anything else is not taken for one', () => {
		const token: PickerToken = { cursor: 'abc', page: 3, header: ['ke', 'company_name'], delimiter: '\t' };
		expect(decodePickerToken(encodePickerToken(token))).toEqual(token);
		for (const text of ['abc', '{}', 'null', '{"cursor":"","page":2,"header":[],"delimiter":","}', '{"cursor":"a","page":2,"header":[1],"delimiter":","}', '{"cursor":"a","page":2,"header":[],"delimiter":"x"}', '{"cursor":"a","page":1,"header":[],"delimiter":","}']) {
			expect(decodePickerToken(text)).toBeUndefined();
		}
	});
});
