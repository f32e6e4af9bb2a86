import { FORMULA_STARTS } from '../../../nodes/shared/csv';
import type { Sandbox } from '../../sandbox';
import { defaultCsvFormat } from '../../sandbox/csv';
import { defaultDialect } from '../../sandbox/dialect';
import { useTriggerSetup, type TriggerSetup } from './setup';

// Add Company Details over a portfolio in UTF-16BE with a byte order mark and Excel's sep= line on every
// page (issue 44 item 3): the company's row as the UTF-8 portfolio has it, on a later page too.

function expectedCompany(sandbox: Sandbox, ke: string): Record<string, unknown> {
	const company = sandbox.control.companies().find((c) => c.ke === ke)!;
	const share = sandbox.control.shares().find((s) => s.ke === ke)!;
	const name = FORMULA_STARTS.has(company.name[0]) ? `'${company.name}` : company.name;
	return { ke, name, company_name: name, tier: share.tier, status: company.status, decision_due: String(share.decisionDue), shared: true };
}

async function companyOf(setup: TriggerSetup, ke: string): Promise<unknown> {
	const alert = setup.sandbox.control.emit('ledger_high', { organisation: ke });
	await setup.sandbox.control.whenSettled(alert.alertId);
	const [run] = await setup.executionsOf(alert.alertId);
	return run.items[0].json.company;
}

describe('Service Trigger: Add Company Details over a UTF-16BE portfolio with a sep= line (3 companies a page)', () => {
	const csv = { ...defaultCsvFormat, encoding: 'utf-16be' as const, sep: true, delimiter: ';' as const, headerEveryPage: false };
	const setup = useTriggerSetup({
		parameters: { options: { addCompanyDetails: true } },
		sandbox: { pageSize: 3, dialect: { ...defaultDialect, csv } },
		activate: true,
	});

	it('adds the row of a company on the first page and of one on a later page, as UTF-8 would', async () => {
		expect(await companyOf(setup, 'KE-1001')).toEqual(expectedCompany(setup.sandbox, 'KE-1001'));
		expect(await companyOf(setup, 'KE-1009')).toEqual(expectedCompany(setup.sandbox, 'KE-1009'));
	});
});
