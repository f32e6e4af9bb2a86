import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { ServiceChangesTrigger } from '../../../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import { ServiceReader } from '../../../nodes/ServiceReader/ServiceReader.node';
import { listSearch, PollHarness } from '../../harness';
import { serviceApi } from '../../sandbox/credential';
import { dialectFromEnvironment, dialectNamed } from '../../sandbox/dialect';
import type { Sandbox } from '../../sandbox';
import { useSandbox } from '../../sandbox/useSandbox';
import { portfolioCsvRows, serviceCredentials } from '../reader/exportHelpers';

// A Service whose portfolio names its KE column otherwise (the spec shows KE as the row's identifier,
// not its column's name): the changes trigger finds it by name, else by the first page's values, or
// fails naming Key Column; the Reader's KE picker reads the same column.

type Rows = Array<Record<string, string>>;
const item = (json: IDataObject) => ({ json });

/** The sandbox's portfolio rows with the KE under `column`, as this Service writes them. */
const rowsWith = (sandbox: Sandbox, column: string): Rows =>
	portfolioCsvRows(sandbox).map(({ ke, ...rest }) => ({ [column]: ke, ...rest }));

function harnessFor(sandbox: Sandbox, pageSize: number, parameters: INodeParameters = {}): PollHarness {
	const credentials = { serviceApi: serviceApi(sandbox, { advanced: { pageSizeParameter: sandbox.dialect.pageSizeParameter, pageSize } }) };
	return new PollHarness({ nodeType: new ServiceChangesTrigger(), parameters, credentials });
}

/** Every page of the KE picker's list, as a user scrolling to its end sees them. */
async function pickerValues(sandbox: Sandbox, pageSize: number): Promise<string[]> {
	const values: string[] = [];
	let paginationToken: string | undefined;
	for (let page = 0; page < 50; page++) {
		const result = await listSearch(new ServiceReader(), 'searchCompanies', {
			credentials: serviceCredentials(sandbox, { pageSize }),
			parameters: { resource: 'record', operation: 'get' },
			paginationToken,
		});
		values.push(...result.results.map((choice) => String(choice.value)));
		paginationToken = result.paginationToken as string | undefined;
		if (paginationToken === undefined) break;
	}
	return values;
}

const kesSharing = (sandbox: Sandbox) => portfolioCsvRows(sandbox).map((row) => row.ke);

describe('Service Changes Trigger: a portfolio whose KE column is company_ke (found by name)', () => {
	const sandbox = useSandbox({ dialect: { ...dialectNamed(dialectFromEnvironment()), portfolioKeColumn: 'company_ke' } });

	it('emits the companies changed and removed keyed by KE, rows in the Service\u2019s own column names', async () => {
		const harness = harnessFor(sandbox, 3);
		expect(await harness.activate()).toEqual({ items: undefined, error: undefined });
		const before = rowsWith(sandbox, 'company_ke');
		sandbox.control.changeShare('KE-1004', { tier: 'tier-9' });
		sandbox.control.endShare('KE-1001');
		const now = rowsWith(sandbox, 'company_ke');
		const at = (rows: Rows, ke: string) => rows.find((row) => row.company_ke === ke)!;
		expect(await harness.poll()).toEqual({
			items: [
				item({ change: 'changed', export: 'portfolio', key: 'KE-1004', row: at(now, 'KE-1004'), previous: { tier: at(before, 'KE-1004').tier } }),
				item({ change: 'removed', export: 'portfolio', key: 'KE-1001', row: at(before, 'KE-1001') }),
			],
			error: undefined,
		});
		expect(harness.liveNodeData()).toMatchObject({ changes: { key: ['company_ke'] } });
	});

	it('the KE picker lists the same KEs from the same column', async () => {
		expect(await pickerValues(sandbox, 3)).toEqual(kesSharing(sandbox));
	});
});

describe('Service Changes Trigger: a portfolio whose KE column is code (found by its values, or set)', () => {
	const sandbox = useSandbox({ dialect: { ...dialectNamed(dialectFromEnvironment()), portfolioKeColumn: 'code' } });

	it('pages of 3 rows leave it open (code and tier both distinct identifiers): refused naming Key Column, nothing stored; set, it polls', async () => {
		const refused = harnessFor(sandbox, 3);
		const error = (await refused.activate().catch((e: unknown) => e)) as Error & { description?: string };
		const candidates = sandbox.dialect.csvColumns(['code', 'tier']).map((c) => JSON.stringify(c)).join(', ');
		expect(error.message).toBe(
			`The portfolio has no column named ke, and 2 columns whose values on the first page could each be the KE (${candidates}), so which one holds it cannot be told. Set Key Column to the column that holds the KE`,
		);
		expect(error.description).toMatch(/^Nothing was emitted and the state of the last complete poll is kept/);
		expect(refused.saved).toEqual({});

		const set = refused.restart({ parameters: { keyColumn: 'code' } });
		expect(await set.activate()).toEqual({ items: undefined, error: undefined });
		const before = rowsWith(sandbox, 'code');
		sandbox.control.endShare('KE-1002');
		expect(await set.poll()).toEqual({
			items: [item({ change: 'removed', export: 'portfolio', key: 'KE-1002', row: before.find((row) => row.code === 'KE-1002') })],
			error: undefined,
		});
	});

	it('pages of 4 rows (a tier repeats): detected from the first page, and the picker agrees', async () => {
		const harness = harnessFor(sandbox, 4, { emitCurrentRows: true });
		const rows = rowsWith(sandbox, 'code');
		expect((await harness.activate()).items).toEqual(rows.map((row) => item({ change: 'added', export: 'portfolio', key: row.code, row })));
		expect(await pickerValues(sandbox, 4)).toEqual(kesSharing(sandbox));
	});

	it('a Key Column the export does not have is refused, naming the setting and the columns', async () => {
		const error = (await harnessFor(sandbox, 4, { keyColumn: 'ke' }).activate().catch((e: unknown) => e)) as Error;
		const columns = sandbox.dialect.csvColumns(['code', 'company_name', 'tier', 'status', 'decision_due']).map((c) => JSON.stringify(c)).join(', ');
		expect(error.message).toBe(`Key Column is "ke", but the portfolio export has no such column: its columns are ${columns}. Set Key Column to one of them, or leave it empty to detect it`);
	});
});
