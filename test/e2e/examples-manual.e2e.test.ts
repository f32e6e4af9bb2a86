import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { binaryOf, downloadBinary } from './examples/binary-file';
import { suppliersCsvPath } from './examples/catalog';
import { credentialId, exampleIds } from './examples/stack';
import { useExampleStack } from './examples/useExampleStack';
import { readXlsx } from './examples/xlsx';
import { nodeItems } from './n8n';

// The examples a user runs by hand, in a real n8n with the package installed from its npm pack tarball.
describe('manual example workflows in a real n8n', () => {
	// 4 rows a page: the demo portfolio's 10 companies come in 3 pages.
	const running = useExampleStack('e2e-manual', { sandbox: { pageSize: 4 } });

	test('n8n loads both nodes from the tarball, and the Service API credential passes its test', async () => {
		const { n8n, sandbox } = running();
		expect(await n8n.hasNodeType('n8n-nodes-service-reader.serviceReader')).toBe(true);
		expect(await n8n.hasNodeType('n8n-nodes-service-reader.serviceTrigger')).toBe(true);

		// What the credential dialog does: open the credential (secrets redacted), then Test.
		const opened = await n8n.rest('GET', `/rest/credentials/${credentialId}?includeData=true`);
		expect(opened.status).toBe(200);
		const { data } = opened.json<{ data: { data: Record<string, unknown> } }>().data;
		expect(data.baseUrl).toBe(sandbox.baseUrl);
		expect(data.accessToken).not.toBe(sandbox.tokens.reader);
		const before = sandbox.control.requests().length;
		const test = await n8n.rest('POST', '/rest/credentials/test', {
			credentials: { id: credentialId, name: 'Service API', type: 'serviceApi', data },
		});
		expect(test.status).toBe(200);
		expect(test.json()).toEqual({ data: { status: 'OK', message: expect.any(String) } });
		// Check Settings (the nodes' serviceApiSettings): read-only and bounded, signed in as the reader.
		const calls = sandbox.control.requests().slice(before);
		expect(calls.length).toBeGreaterThan(0);
		expect(calls.length).toBeLessThanOrEqual(40);
		expect([...new Set(calls.map((call) => call.method))]).toEqual(['GET']);
		expect([calls[0].path, calls[0].reader, calls[0].status]).toEqual(['/v1/reader/webhooks/catalogue', 'reader', 200]);
	}, 60_000);

	test('the credential test says why it fails: a wrong token, a plain http Base URL, a redirect', async () => {
		const { n8n, sandbox } = running();
		const testWith = async (data: Record<string, unknown>) => {
			const answer = await n8n.rest('POST', '/rest/credentials/test', {
				credentials: { id: credentialId, name: 'Service API', type: 'serviceApi', data },
			});
			expect(answer.status).toBe(200);
			return answer.json<{ data: { status: string; message: string } }>().data;
		};
		const wrong = await testWith({ baseUrl: sandbox.baseUrl, accessToken: 'svc_wrong_token_000' });
		expect(wrong.status).toBe('Error');
		// The Service's 401 asks for the token as it was sent (Bearer): the token is named, no other way to send it.
		expect(wrong.message).toMatch(/^Sign-in: Check the Access Token \(it may be wrong, expired or revoked\)/);
		expect(wrong.message).not.toMatch(/Set Send Token As/);
		expect(wrong.message).not.toContain('svc_wrong_token_000');
		const http = await testWith({ baseUrl: sandbox.baseUrl.replace('https://', 'http://'), accessToken: sandbox.tokens.reader });
		expect(http.status).toBe('Error');
		expect(http.message).toContain('must be an https:// address');
		sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'redirect', status: 302, location: 'https://localhost:9/elsewhere' });
		try {
			const redirected = await testWith({ baseUrl: sandbox.baseUrl, accessToken: sandbox.tokens.reader });
			expect(redirected.status).toBe('Error');
			expect(redirected.message).toContain('Base URL');
		} finally {
			sandbox.control.clearFaults();
		}
	}, 60_000);

	test('portfolio example: every page of the export lands in one .xlsx file', async () => {
		const { n8n, sandbox } = running();
		const shared = sandbox.control.shares().filter((share) => share.state === 'shared');
		const pagesBefore = sandbox.control.accessLog().filter((entry) => entry.export === 'portfolio').length;

		const run = await n8n.executeWorkflow(exampleIds.portfolio);
		expect(run.data.resultData.error).toBeUndefined();
		const items = nodeItems(run, 'Portfolio: every page');
		expect(items).toHaveLength(shared.length);

		const file = binaryOf(run, 'Spreadsheet (.xlsx)');
		expect(file).toMatchObject({ fileName: 'portfolio.xlsx' });
		const { sheets, rows } = await readXlsx(await downloadBinary(n8n, file));
		expect(sheets).toEqual(['Portfolio']);
		// Every company that shares, once, with the columns of the export in the Service's order.
		expect(rows.map((row) => row.ke).sort()).toEqual(shared.map((share) => share.ke).sort());
		expect(Object.keys(rows[0])).toEqual(sandbox.dialect.csvColumns(['ke', 'company_name', 'tier', 'status', 'decision_due']));
		expect(rows).toEqual(items);
		for (const row of rows) {
			const share = shared.find((candidate) => candidate.ke === row.ke);
			expect(row.tier).toBe(share?.tier);
		}
		// Names that would run as formulas keep the Service's guard quote in the spreadsheet too.
		expect(rows.find((row) => row.ke === 'KE-1002')?.company_name).toBe('\'=HYPERLINK("http://evil.example","click me")');
		expect(rows.find((row) => row.ke === 'KE-1001')?.company_name).toBe('Acme Supplies Ltd');
		// The sandbox's access log has one entry per page: 10 rows at 4 a page.
		const pages = sandbox.control.accessLog().filter((entry) => entry.export === 'portfolio').slice(pagesBefore);
		expect(pages.map((entry) => entry.page)).toEqual([1, 2, 3]);
	}, 120_000);

	test('supplier check example: the company picked From List is fetched as its signed record, which verifies byte for byte', async () => {
		const { n8n, sandbox } = running();
		const served = sandbox.control.record('KE-1001');
		const logBefore = sandbox.control.companyAccessLog('KE-1001').length;

		const run = await n8n.executeWorkflow(exampleIds.supplierCheck);
		expect(run.data.resultData.error).toBeUndefined();
		expect(nodeItems(run, "Supplier's signed record")).toEqual([JSON.parse(served.bytes.toString('utf8'))]);
		expect(nodeItems(run, 'Verify it and this copy')).toEqual([
			// The Service's own verification fields pass on as sent (flat or nested, by dialect); the node's copy check beside them.
			expect.objectContaining({ ks: 'KS-1001-v1', ke: 'KE-1001', valid: true, copy_matches: true, copy_sha256: served.sha256 }),
		]);
		// The picked company sees the export in its own access log (spec section 1).
		expect(sandbox.control.companyAccessLog('KE-1001').slice(logBefore).map((entry) => entry.export)).toEqual(['record']);
	}, 120_000);

	test('invitation example: accepted rows are invited, each refused row comes back on its own branch with its reason', async () => {
		const { n8n, sandbox } = running();
		const csvRows = parse(readFileSync(suppliersCsvPath, 'utf8'), { columns: true }) as Array<Record<string, string>>;
		const invitationsBefore = sandbox.control.invitations().length;

		const run = await n8n.executeWorkflow(exampleIds.invitations);
		expect(run.data.resultData.error).toBeUndefined();

		const invited = nodeItems(run, 'Invited');
		const refused = nodeItems(run, 'Refused: fix and send again');
		// Every row of the file is answered, on exactly one branch.
		expect([...invited, ...refused].map((item) => item.row).sort()).toEqual(csvRows.map((_, i) => i + 1));

		const created = sandbox.control.invitations().slice(invitationsBefore);
		expect(invited).toEqual(
			created.map((invitation) => ({
				row: csvRows.findIndex((row) => row.registration_number === invitation.registration_number) + 1,
				company_name: invitation.company_name,
				invitation_id: invitation.id,
			})),
		);
		expect(invited.map((item) => item.company_name)).toEqual(['Blue Harbour Foods Ltd', 'Kestrel Metals GmbH']);

		const reasons = Object.fromEntries(refused.map((item) => [item.company_name, item.reason]));
		expect(reasons).toEqual({
			'Quick Parts': expect.stringContaining('free-mail'),
			'No Number Ltd': expect.stringContaining('registration number is missing'),
			'Northwind Traders': expect.stringContaining('already exists'),
			'Typo Trading': expect.stringContaining('not a valid email address'),
		});
	}, 120_000);
});
