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

	it('an empty page offers nothing; a page without a ke column is refused with its columns named', () => {
		expect(companyChoices('', detect, undefined).choices).toEqual([]);
		expect(() => companyChoices('id,company_name\n1,Acme\n', detect, undefined)).toThrow(
			new CsvFormatError('It has no ke column, so no company can be listed: its columns are "id", "company_name"'),
		);
	});

	it('a pagination token round-trips; anything else is not taken for one', () => {
		const token: PickerToken = { cursor: 'abc', page: 3, header: ['ke', 'company_name'], delimiter: '\t' };
		expect(decodePickerToken(encodePickerToken(token))).toEqual(token);
		for (const text of ['abc', '{}', 'null', '{"cursor":"","page":2,"header":[],"delimiter":","}', '{"cursor":"a","page":2,"header":[1],"delimiter":","}', '{"cursor":"a","page":2,"header":[],"delimiter":"x"}', '{"cursor":"a","page":1,"header":[],"delimiter":","}']) {
			expect(decodePickerToken(text)).toBeUndefined();
		}
	});
});
