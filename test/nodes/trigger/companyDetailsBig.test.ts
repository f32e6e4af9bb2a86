import { portfolioReadings } from '../../../nodes/ServiceTrigger/companyDetails/companyDetails';
import { COMPANY_LIMITS } from '../../../nodes/ServiceTrigger/companyDetails/portfolioReadings';
import { decodeCursor } from '../../sandbox/paging';
import { portfolioCsvRows } from '../reader/exportHelpers';
import { useTriggerSetup } from './setup';

const PORTFOLIO = '/v1/reader/exports/portfolio';

describe('Service Trigger: Add Company Details past 10,000 companies (10,050 sharing, 1,000 a page)', () => {
	// The 10 demo companies and 10,040 generated ones share with the reader.
	const setup = useTriggerSetup({
		parameters: { options: { addCompanyDetails: true } },
		sandbox: { pageSize: 1000, portfolioRows: 10_040 },
		activate: true,
	});

	/** The company as the portfolio export has it: every column by name, values as CSV text. */
	const expectedCompany = (ke: string) => {
		const row = portfolioCsvRows(setup.sandbox).find((r) => r.ke === ke)!;
		return { ke, name: row.company_name, ...row, shared: true };
	};

	/** The `company` the execution started by one alert about `ke` carries. */
	const companyOfAlert = async (eventType: 'finding_new' | 'questionnaire_answered', ke: string) => {
		const ids: Record<string, string> = eventType === 'finding_new' ? { organisation: ke, report: `KS-${ke.slice(3)}-v2` } : { organisation: ke, questionnaire: 'QN-0001' };
		const alert = setup.sandbox.control.emit(eventType, ids);
		const [delivery] = await setup.sandbox.control.whenSettled(alert.alertId);
		expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
		const runs = await setup.executionsOf(alert.alertId);
		expect(runs).toHaveLength(1);
		return runs[0].items[0].json.company;
	};

	/** The portfolio pages the Service was asked for since the last call, by page number (1 = no cursor). */
	let seen = 0;
	const pagesAskedFor = () => {
		const requests = setup.sandbox.control.requests({ method: 'GET', path: PORTFOLIO });
		const fresh = requests.slice(seen);
		seen = requests.length;
		expect(fresh.every((request) => request.status === 200)).toBe(true);
		return fresh.map((request) => decodeCursor('portfolio', request.query[setup.sandbox.dialect.cursorParameter]).page);
	};

	/** What the trigger holds for this credential: the rows it read and how many it has read. */
	const reading = () => portfolioReadings.held(`${setup.sandbox.baseUrl}\u0000cred-1`)!;

	it('finds the last company (row 10,050), a first one pushed out by the bound (read again up to page 1), and none for a KE not listed, read whole once', async () => {
		const portfolio = portfolioCsvRows(setup.sandbox);
		expect(portfolio).toHaveLength(10_050);
		const last = portfolio[10_049].ke;
		const first = portfolio[0].ke;
		setup.sandbox.control.clearRequests();

		// Beyond row 10,000: every page is read, up to page 11 of 11.
		expect(await companyOfAlert('finding_new', last)).toEqual(expectedCompany(last));
		expect(pagesAskedFor()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
		expect(reading().read).toBe(10_050);
		expect(reading().rows.size).toBeLessThanOrEqual(10_000);
		// The first 50 rows were pushed out, so the first company is no longer held.
		expect(reading().rows.get(first, Date.now())).toBeUndefined();

		// A first company, pushed out: the portfolio is read again from page 1, and only page 1.
		expect(await companyOfAlert('questionnaire_answered', first)).toEqual(expectedCompany(first));
		expect(pagesAskedFor()).toEqual([1]);

		// A KE the portfolio does not list: read on from page 2 to the last page, then shared: false.
		expect(portfolio.some((row) => row.ke === 'KE-1011')).toBe(false);
		expect(await companyOfAlert('finding_new', 'KE-1011')).toEqual({ ke: 'KE-1011', shared: false });
		expect(pagesAskedFor()).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
		expect(reading().read).toBe(10_050);
		expect(reading().rows.size).toBeLessThanOrEqual(10_000);

		// Another KE not listed, once rows were pushed out: only a whole pass from page 1 can tell, and it is
		// remembered, so a second alert about it within 5 minutes reads nothing.
		expect(portfolio.some((row) => row.ke === 'KE-1012')).toBe(false);
		expect(await companyOfAlert('questionnaire_answered', 'KE-1012')).toEqual({ ke: 'KE-1012', shared: false });
		expect(pagesAskedFor()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
		expect(await companyOfAlert('finding_new', 'KE-1012')).toEqual({ ke: 'KE-1012', shared: false });
		expect(pagesAskedFor()).toEqual([]);

		// KE-1011 again, after a new reading (of KE-1012) began: still known not to be listed, nothing read.
		expect(await companyOfAlert('questionnaire_answered', 'KE-1011')).toEqual({ ke: 'KE-1011', shared: false });
		expect(pagesAskedFor()).toEqual([]);

		// In all: 11 + 1 + 10 + 11 portfolio requests.
		expect(setup.sandbox.control.requests({ method: 'GET', path: PORTFOLIO })).toHaveLength(33);
	});

	it('20 share_revoked alerts arriving together cost two readings of the 11 pages, not one (or two) each, and each shows shared: false', async () => {
		const { control } = setup.sandbox;
		const kes = portfolioCsvRows(setup.sandbox).slice(2000, 2020).map((row) => row.ke);
		control.clearRequests();
		seen = 0;
		// Page 1 takes 1.5 s, so the 20 executions overlap the first reading.
		control.failPage({ route: 'portfolio', page: 1, mode: 'slow', delayMs: 1500, times: 40 });
		try {
			const alerts = kes.map((ke) => control.endShare(ke));
			await Promise.all(alerts.map((alert) => control.whenSettled(alert.alertId)));
			for (const [index, alert] of alerts.entries()) {
				const runs = await setup.executionsOf(alert.alertId);
				expect(runs).toHaveLength(1);
				expect(runs[0].items[0].json.company).toEqual({ ke: kes[index], shared: false });
			}
			// The reading the first alert began, and one shared by the 19 that arrived while it was on its way.
			const pages = pagesAskedFor();
			expect(pages.length).toBeLessThanOrEqual(22);
			expect(pages.filter((page) => page === 1).length).toBeLessThanOrEqual(2);
		} finally {
			control.clearFaults();
		}
		// And what is held for the credential stays within the bytes bound.
		expect(portfolioReadings.heldBytes()).toBeLessThanOrEqual(COMPANY_LIMITS.maxBytes + COMPANY_LIMITS.maxAbsentBytes);
	});
});
