import { createHash } from 'node:crypto';

import { FORMULA_STARTS } from '../../../nodes/shared/csv';
import { ServiceTrigger } from '../../../nodes/ServiceTrigger/ServiceTrigger.node';
import { deduplicationStore } from '../../harness';
import type { Sandbox } from '../../sandbox';
import { csvLine } from '../../sandbox/csv';
import { allFields, expectNoToken } from '../../property/tokenDecoders';
import type { TokenForm } from '../../sandbox/tokenForms';
import { useTriggerSetup, type TriggerSetup } from './setup';

const PORTFOLIO = '/v1/reader/exports/portfolio';

/** The company as the portfolio export has it: every column by name, values as CSV text (a formula's guard quote kept). */
function expectedCompany(sandbox: Sandbox, ke: string): Record<string, unknown> {
	const company = sandbox.control.companies().find((c) => c.ke === ke)!;
	const share = sandbox.control.shares().find((s) => s.ke === ke)!;
	const name = FORMULA_STARTS.has(company.name[0]) ? `'${company.name}` : company.name;
	return {
		ke, name, company_name: name, tier: share.tier, status: company.status, decision_due: String(share.decisionDue), shared: true,
	};
}

/** ids the sandbox requires per event type, as in delivery.test.ts. */
function idsFor(eventType: string, ke: string): Record<string, string> {
	if (eventType === 'report_superseded' || eventType === 'finding_new') return { organisation: ke, report: `KS-${ke.slice(3)}-v2` };
	if (eventType === 'questionnaire_answered') return { organisation: ke, questionnaire: 'QN-0001' };
	return { organisation: ke };
}

async function runFor(setup: TriggerSetup, eventType: string, ke: string) {
	const alert = setup.sandbox.control.emit(eventType, idsFor(eventType, ke));
	const [delivery] = await setup.sandbox.control.whenSettled(alert.alertId);
	const runs = await setup.executionsOf(alert.alertId);
	return { alert, delivery, runs };
}

const portfolioReads = (sandbox: Sandbox) => sandbox.control.requests({ method: 'GET', path: PORTFOLIO });

describe('Service Trigger: Add Company Details', () => {
	const setup = useTriggerSetup({ parameters: { options: { addCompanyDetails: true } }, activate: true });

	it('adds the name, tier, status and decision due of a sharing company to a ledger_high, exactly as the portfolio has them', async () => {
		const { alert, delivery, runs } = await runFor(setup, 'ledger_high', 'KE-1001');
		expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
		expect(runs).toHaveLength(1);
		const body = JSON.parse(alert.body) as Record<string, unknown>;
		expect(runs[0].items).toEqual([{ json: { ...body, ke: 'KE-1001', company: expectedCompany(setup.sandbox, 'KE-1001') }, pairedItem: { item: 0 } }]);
	});

	it('reads the portfolio once for two alerts within 5 minutes', async () => {
		setup.sandbox.control.clearRequests();
		await runFor(setup, 'ledger_high', 'KE-1010');
		expect(portfolioReads(setup.sandbox)).toHaveLength(1);
		const second = await runFor(setup, 'questionnaire_answered', 'KE-1009');
		expect(portfolioReads(setup.sandbox)).toHaveLength(1);
		expect(second.runs[0].items[0].json.company).toEqual(expectedCompany(setup.sandbox, 'KE-1009'));
	});

	it('gives shared: false for a company whose share ended, read again because share_revoked changes its row', async () => {
		setup.sandbox.control.clearRequests();
		const alert = setup.sandbox.control.endShare('KE-1004');
		await setup.sandbox.control.whenSettled(alert.alertId);
		const [run] = await setup.executionsOf(alert.alertId);
		expect(run.items[0].json.company).toEqual({ ke: 'KE-1004', shared: false });
		expect(portfolioReads(setup.sandbox)).toHaveLength(1);
		// A company the portfolio does not list, within the 5 minutes: answered from what was read.
		const other = await runFor(setup, 'finding_new', 'KE-1011');
		expect(other.runs[0].items[0].json.company).toEqual({ ke: 'KE-1011', shared: false });
		expect(portfolioReads(setup.sandbox)).toHaveLength(1);
	});

	it('passes an event with no KE on unchanged, without reading the portfolio', async () => {
		setup.sandbox.control.clearRequests();
		const alert = setup.sandbox.control.emit('reader_invitation_status', { invitation: 'INV-0001' });
		await setup.sandbox.control.whenSettled(alert.alertId);
		const [run] = await setup.executionsOf(alert.alertId);
		expect(run.items[0].json).toEqual({ ...(JSON.parse(alert.body) as object), ke: null });
		expect(portfolioReads(setup.sandbox)).toHaveLength(0);
	});

	it('fails the execution with a clear error when the portfolio cannot be read; the delivery was answered 2xx, the alert recorded, and a retry passes it on', async () => {
		const { control } = setup.sandbox;
		control.failRoute({ path: PORTFOLIO, mode: 'drop' });
		const errorsBefore = setup.receiver.errors.length;
		try {
			// ledger_high changes the company's row, so it reads the portfolio whatever was read before.
			const { alert, delivery, runs } = await runFor(setup, 'ledger_high', 'KE-1010');
			expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
			expect(runs).toHaveLength(0);
			const [error] = setup.receiver.errors.slice(errorsBefore) as Array<Error & { description?: string }>;
			expect(error.message).toMatch(/^The execution failed: Add Company Details could not read page 1 of the portfolio export: The connection to the server was closed unexpectedly/);
			expect(error.description).toContain('Check the Base URL and that the Service is reachable');
			expect(error.description).toContain('The alert is not lost: the Service was told it was received, and this failed execution keeps the event, so retry it in n8n (Executions, Retry)');
			const recorded = createHash('md5').update(`production:${alert.alertId}`).digest('base64');
			expect([...deduplicationStore.records.values()].some((record) => record.data.includes(recorded))).toBe(true);

			control.clearFaults();
			const body = JSON.parse(alert.body) as Record<string, unknown>;
			const retried = await setup.harness.execute([{ json: { ...body, ke: 'KE-1010' } }], 'production', true);
			expect(retried).toEqual([{ json: { ...body, ke: 'KE-1010', company: expectedCompany(setup.sandbox, 'KE-1010') }, pairedItem: { item: 0 } }]);
		} finally {
			control.clearFaults();
		}
	});

	it('keeps a portfolio column named __proto__ in company, and fails naming a column the header row names twice', async () => {
		const { control, dialect } = setup.sandbox;
		const page = (rows: string[][]) => (dialect.csv.bom ? '\uFEFF' : '') + rows.map((cells) => csvLine(cells, dialect.csv)).join('');
		control.failRoute({
			path: PORTFOLIO, times: 1, mode: 'answer', status: 200, contentType: 'text/csv; charset=utf-8',
			body: page([['ke', 'company_name', '__proto__', 'tier'], ['KE-1010', 'Acme', 'kept', 'gold']]),
		});
		// ledger_high changes the company's row, so it reads the portfolio whatever was read before.
		const { runs } = await runFor(setup, 'ledger_high', 'KE-1010');
		const company = runs[0].items[0].json.company as Record<string, unknown>;
		expect(Object.getOwnPropertyDescriptor(company, '__proto__')?.value).toBe('kept');
		expect(JSON.stringify(company)).toBe('{"ke":"KE-1010","name":"Acme","company_name":"Acme","__proto__":"kept","tier":"gold","shared":true}');

		control.failRoute({
			path: PORTFOLIO, times: 1, mode: 'answer', status: 200, contentType: 'text/csv; charset=utf-8',
			body: page([['ke', 'tier', 'company_name', 'tier'], ['KE-1010', 'gold', 'Acme', 'silver']]),
		});
		const errorsBefore = setup.receiver.errors.length;
		const twice = await runFor(setup, 'ledger_high', 'KE-1010');
		expect(twice.runs).toHaveLength(0);
		const [error] = setup.receiver.errors.slice(errorsBefore) as Array<Error & { description?: string }>;
		expect(`${error.message} ${error.description ?? ''}`).toContain('page 1 of the portfolio export: Its header row names the column "tier" twice (columns 2 and 4)');
	});

	it('keeps a portfolio column named shared (or ke) as the Service wrote it; the node\'s shared: true goes under _reader', async () => {
		const { control, dialect } = setup.sandbox;
		const page = (rows: string[][]) => (dialect.csv.bom ? '\uFEFF' : '') + rows.map((cells) => csvLine(cells, dialect.csv)).join('');
		control.failRoute({
			path: PORTFOLIO, times: 1, mode: 'answer', status: 200, contentType: 'text/csv; charset=utf-8',
			body: page([['ke', 'company_name', 'shared', 'tier'], ['KE-1010', 'Acme', 'since 2024', 'gold']]),
		});
		const { runs } = await runFor(setup, 'ledger_high', 'KE-1010');
		expect(runs[0].items[0].json.company).toEqual({ ke: 'KE-1010', name: 'Acme', company_name: 'Acme', shared: 'since 2024', tier: 'gold', _reader: { shared: true } });
	});

	it('a portfolio cursor echoing the access token (in any form) and repeated fails the execution naming the page, never the token: not in the error, not in the log', async () => {
		const { control } = setup.sandbox;
		const forms: TokenForm[] = ['raw', 'urlLower', 'urlUpperPartial', 'jsonEscaped', 'htmlHex', 'htmlNamed', 'mixed'];
		try {
			for (const form of forms) {
				control.failRoute({ path: PORTFOLIO, mode: 'echoToken', status: 200, form, in: 'cursor' });
				const errorsBefore = setup.receiver.errors.length;
				const logsBefore = setup.logs.length;
				const { delivery, runs } = await runFor(setup, 'ledger_high', 'KE-1010');
				expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
				expect(runs).toHaveLength(0);
				const errors = setup.receiver.errors.slice(errorsBefore);
				expect(errors).toHaveLength(1);
				// Page 2 is page 1 again: told by its rows, before its cursor, and named as the setting to check.
				expect(errors[0].message).toContain('Add Company Details could not read page 2 of the portfolio export: Page 2 of the list held only rows already read on an earlier page, so the Service did not read the cursor: check Send Cursor As');
				expectNoToken(JSON.stringify({ errors: allFields(errors), logs: setup.logs.slice(logsBefore) }), setup.sandbox.tokens.reader);
				control.clearFaults();
			}
		} finally {
			control.clearFaults();
		}
	});
});

describe('Service Trigger: Add Company Details off (the default)', () => {
	const setup = useTriggerSetup({ activate: true });

	it('changes nothing and reads no portfolio', async () => {
		setup.sandbox.control.clearRequests();
		const { alert, runs } = await runFor(setup, 'ledger_high', 'KE-1001');
		expect(runs[0].items).toEqual([{ json: { ...(JSON.parse(alert.body) as object), ke: 'KE-1001' }, pairedItem: { item: 0 } }]);
		expect(portfolioReads(setup.sandbox)).toHaveLength(0);
	});
});

describe('Service Trigger: Add Company Details over a paged portfolio (3 companies a page)', () => {
	const setup = useTriggerSetup({ parameters: { options: { addCompanyDetails: true } }, sandbox: { pageSize: 3 }, activate: true });

	it('stops paging at the page that lists the company (page 3 of 4), then goes on from there for a company further down', async () => {
		setup.sandbox.control.clearRequests();
		const { runs } = await runFor(setup, 'finding_new', 'KE-1009');
		expect(runs[0].items[0].json.company).toEqual(expectedCompany(setup.sandbox, 'KE-1009'));
		expect(portfolioReads(setup.sandbox)).toHaveLength(3);
		const later = await runFor(setup, 'report_superseded', 'KE-1010');
		expect(later.runs[0].items[0].json.company).toEqual(expectedCompany(setup.sandbox, 'KE-1010'));
		expect(portfolioReads(setup.sandbox)).toHaveLength(4);
		const earlier = await runFor(setup, 'questionnaire_answered', 'KE-1001');
		expect(earlier.runs[0].items[0].json.company).toEqual(expectedCompany(setup.sandbox, 'KE-1001'));
		expect(portfolioReads(setup.sandbox)).toHaveLength(4);
	});
});

describe('Service Trigger: Add Company Details, a burst of row-changing alerts', () => {
	const setup = useTriggerSetup({ parameters: { options: { addCompanyDetails: true } }, activate: true });
	const KES = ['KE-1001', 'KE-1002', 'KE-1003', 'KE-1004', 'KE-1005'];

	/** Every execution the alerts started, once all have finished: one per alert. */
	const companiesOf = async (alerts: Array<{ alertId: string }>) => {
		await Promise.all(alerts.map((alert) => setup.sandbox.control.whenSettled(alert.alertId)));
		const companies: unknown[] = [];
		for (const alert of alerts) {
			const runs = await setup.executionsOf(alert.alertId);
			expect(runs).toHaveLength(1);
			companies.push(runs[0].items[0].json.company);
		}
		return companies;
	};

	it('shows each company as the Service had it after its alert, and alerts arriving together share readings', async () => {
		const { control } = setup.sandbox;
		// What was read before the burst is held: each row-changing alert must not be answered from it.
		await runFor(setup, 'questionnaire_answered', 'KE-1009');
		control.clearRequests();
		// Each portfolio page takes 1.5 s, so the five executions overlap the first reading.
		control.failPage({ route: 'portfolio', page: 1, mode: 'slow', delayMs: 1500, times: 20 });
		try {
			const ended = KES.map((ke) => control.endShare(ke));
			expect(await companiesOf(ended)).toEqual(KES.map((ke) => ({ ke, shared: false })));
			// Five alerts, one reading each before; now the one in progress and one shared by the rest.
			expect(portfolioReads(setup.sandbox).length).toBeLessThanOrEqual(2);

			control.clearRequests();
			const granted = KES.map((ke) => control.grantShare(ke, { tier: 'tier-9' }));
			expect(await companiesOf(granted)).toEqual(KES.map((ke) => expectedCompany(setup.sandbox, ke)));
			expect(KES.map((ke) => control.shares().find((s) => s.ke === ke)?.tier)).toEqual(KES.map(() => 'tier-9'));
			expect(portfolioReads(setup.sandbox).length).toBeLessThanOrEqual(2);
		} finally {
			control.clearFaults();
		}
	});
});

describe('Service Trigger: Add Company Details, a portfolio whose cursor never ends', () => {
	const setup = useTriggerSetup({ parameters: { options: { addCompanyDetails: true, companyDetailsMaxPages: 20 } }, activate: true });

	it('stops at Company Details Max Pages (20 requests, not Max Pages\' 100,000), and the error names the setting; alerts arriving together share the cost', async () => {
		const { control } = setup.sandbox;
		control.failRoute({ path: PORTFOLIO, mode: 'endlessCursor', csv: true });
		const errorsBefore = setup.receiver.errors.length;
		try {
			control.clearRequests();
			const { delivery, runs } = await runFor(setup, 'ledger_high', 'KE-1001');
			expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
			expect(runs).toHaveLength(0);
			expect(portfolioReads(setup.sandbox)).toHaveLength(20);
			const [error] = setup.receiver.errors.slice(errorsBefore) as Array<Error & { description?: string }>;
			expect(error.message).toBe(
				"The execution failed: Add Company Details stopped reading the portfolio export: it still had a further page after 20 pages, the limit set by Company Details Max Pages (the Service Trigger's Options)",
			);
			expect(error.description).toContain("raise Company Details Max Pages (the Service Trigger's Options)");
			expect(error.description).toContain('The alert is not lost');

			// Five alerts at once: the reading the first began and one shared by the rest, 20 pages each at most.
			control.clearRequests();
			const alerts = ['KE-1001', 'KE-1002', 'KE-1003', 'KE-1004', 'KE-1005'].map((ke) => control.emit('ledger_high', idsFor('ledger_high', ke)));
			await Promise.all(alerts.map((alert) => control.whenSettled(alert.alertId)));
			for (const alert of alerts) expect(await setup.executionsOf(alert.alertId)).toHaveLength(0);
			expect(portfolioReads(setup.sandbox).length).toBeLessThanOrEqual(40);
			expect(setup.receiver.errors.length - errorsBefore).toBe(6);
		} finally {
			control.clearFaults();
		}
	});

	it('defaults to 1,000 pages, far below Max Pages\' 100,000', () => {
		const options = new ServiceTrigger().description.properties.find((property) => property.name === 'options');
		const cap = options?.options?.find((option) => 'name' in option && option.name === 'companyDetailsMaxPages') as { default?: unknown } | undefined;
		expect(cap?.default).toBe(1000);
	});
});

describe('Service Trigger: Add Company Details with a Company Details Max Pages that is not a page count', () => {
	const setup = useTriggerSetup({ parameters: { options: { addCompanyDetails: true, companyDetailsMaxPages: 0 } }, activate: true });

	it('fails the execution naming the setting, before any portfolio request', async () => {
		setup.sandbox.control.clearRequests();
		const errorsBefore = setup.receiver.errors.length;
		const { delivery, runs } = await runFor(setup, 'ledger_high', 'KE-1001');
		expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
		expect(runs).toHaveLength(0);
		const [error] = setup.receiver.errors.slice(errorsBefore) as Array<Error & { description?: string }>;
		expect(error.message).toBe('The execution failed: Company Details Max Pages must be a whole number of 1 or more, not 0');
		expect(error.description).toContain("Set Company Details Max Pages in the Service Trigger's Options");
		expect(portfolioReads(setup.sandbox)).toHaveLength(0);
	});
});
