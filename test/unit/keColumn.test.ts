import fc from 'fast-check';

import { columnWords, keColumnOf, KeColumnError } from '../../nodes/shared/keColumn';
import { PortfolioReadings, type PortfolioSource } from '../../nodes/ServiceTrigger/companyDetails/portfolioReadings';
import { runs } from '../property/fc';

/**
 * The portfolio's KE column, as the KE picker, Add Company Details and the changes trigger find it
 * (nodes/shared/keColumn.ts): by name, then by the first page's values; never one of several.
 */

const rows = (header: string[], ...values: string[][]) => values.map((cells) => Object.fromEntries(header.map((c, i) => [c, cells[i]])));

describe('the portfolio KE column', () => {
	it('by name: ke in any case, a word ke (company_ke, KE Number, keNumber), else the spec\u2019s organisation', () => {
		for (const name of ['ke', 'KE', ' Ke ', 'company_ke', 'ke_number', 'KE Number', 'keNumber', 'company-KE', 'organisation', 'Organization_ID']) {
			const header = ['company_name', name, 'tier'];
			expect(keColumnOf(header, rows(header, ['Acme Ltd', 'KE-1', 'tier-1'], ['Beta', 'KE-2', 'tier-1']))).toBe(name);
		}
		// `ke` itself wins over a word ke, a word ke over organisation.
		expect(keColumnOf(['parent_ke', 'KE', 'organisation'], [])).toBe('KE');
		expect(keColumnOf(['organisation', 'company_ke'], [])).toBe('company_ke');
		expect(columnWords('keNumber')).toEqual(['ke', 'number']);
		expect(columnWords('KEY')).toEqual(['key']);
		expect(columnWords('stake_holder')).toEqual(['stake', 'holder']);
	});

	it('two columns named like a KE are refused, naming both', () => {
		expect(() => keColumnOf(['company_ke', 'parent_ke'], [])).toThrow(
			new KeColumnError('The portfolio has several columns named like a KE ("company_ke", "parent_ke"), so which one holds the KE cannot be told'),
		);
	});

	it('by shape: the one column whose values are all distinct identifiers usable in a request path', () => {
		const header = ['code', 'company_name', 'tier', 'decision_due'];
		const page = rows(header, ['KE-1', 'Acme Ltd', 'tier-1', 'true'], ['KE-2', 'Beta plc', 'tier-1', 'false'], ['KE-3', 'Gamma Ltd', 'tier-2', 'false']);
		expect(keColumnOf(header, page)).toBe('code');
	});

	it('by shape, more than one candidate or none is refused, never one picked', () => {
		const header = ['code', 'company_name', 'tier'];
		// One row: every safe value is distinct.
		expect(() => keColumnOf(header, rows(header, ['KE-1', 'Acme', 'tier-1']))).toThrow(
			new KeColumnError('The portfolio has no column named ke, and 3 columns whose values on the first page could each be the KE ("code", "company_name", "tier"), so which one holds it cannot be told'),
		);
		// A blank or repeated value, or one with a space, is no KE.
		expect(() => keColumnOf(header, rows(header, ['KE-1', 'Acme Ltd', 'tier-1'], ['', 'Beta plc', 'tier-1']))).toThrow(
			new KeColumnError('The portfolio has no column named ke, nor one whose values on the first page are all distinct identifiers, so its companies cannot be told apart: its columns are "code", "company_name", "tier"'),
		);
		expect(() => keColumnOf(header, [])).toThrow(KeColumnError);
	});

	it('never a wrong column: the KE column named like one is found; otherwise it or a refusal (property)', () => {
		const keName = fc.constantFrom('ke', 'KE', 'company_ke', 'ke_number', 'Ke Id', 'organisation', 'code', 'identifier', 'Kennung');
		const other = fc.constantFrom('company_name', 'name', 'tier', 'status', 'decision_due', 'registration_number', 'ks', 'region', 'keyword', 'token');
		const value = fc.oneof(fc.stringMatching(/^[A-Za-z0-9 ._'-]{0,8}$/), fc.constantFrom('tier-1', 'active', 'true', 'false'));
		fc.assert(
			fc.property(keName, fc.uniqueArray(other, { maxLength: 5 }), fc.nat(5), fc.integer({ min: 0, max: 6 }), fc.infiniteStream(value), (ke, others, at, count, values) => {
				const header: string[] = [...others];
				header.splice(Math.min(at, header.length), 0, ke);
				const page = Array.from({ length: count }, (_, i) => Object.fromEntries(header.map((c) => [c, c === ke ? `KE-${i}` : values.next().value as string])));
				const named = columnWords(ke).includes('ke') || columnWords(ke).join('') === 'organisation';
				let found: string | undefined;
				try {
					found = keColumnOf(header, page);
				} catch (error) {
					expect(error).toBeInstanceOf(KeColumnError);
					// Named like a KE, it is always found.
					expect(named).toBe(false);
					return;
				}
				expect(found).toBe(ke);
			}),
			runs(300),
		);
	});

	it('Add Company Details reads the same column, told by the first page and kept for the later ones', async () => {
		const pages = ['code,company_name,tier\r\nKE-1,Acme Ltd,tier-1\r\nKE-2,Beta plc,tier-1\r\n', 'KE-3,Gamma,tier-2\r\n'];
		const source = (content: string[]): PortfolioSource => ({
			fetchPage: async (request) => ({ request, content: Buffer.from(content[request.page - 1]), nextCursor: request.page < content.length ? `c${request.page}` : undefined }),
			paging: { cursorParameter: 'cursor' },
			csv: { delimiter: ',', headerRepeat: 'auto' },
			failed: (page, error) => new Error(`page ${page}: ${(error as Error).message}`),
		});
		const found = await new PortfolioReadings().lookUp('credential', ['KE-3', 'KE-9'], false, source(pages));
		expect([...found]).toEqual([['KE-3', { code: 'KE-3', company_name: 'Gamma', tier: 'tier-2' }], ['KE-9', undefined]]);
		// A first page that leaves it open fails the lookup, naming the candidates.
		await expect(new PortfolioReadings().lookUp('credential', ['KE-3'], false, source(['code,company_name\r\nKE-1,Acme\r\n']))).rejects.toThrow(
			/^page 1: The portfolio has no column named ke, and 2 columns whose values on the first page could each be the KE \("code", "company_name"\)/,
		);
	});
});
