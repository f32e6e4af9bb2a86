import { crc32 } from 'node:zlib';

import { startSandbox, type Sandbox } from './index';
import { SandboxClient } from './testClient';
import { useSandboxWithClient } from './useSandbox';

// A fixed clock makes the expiry dates exact.
const now = Date.parse('2026-03-01T12:00:00.000Z');
const { sandbox, client } = useSandboxWithClient({ now: () => now, pageSize: 4 });

const portfolioHeader = 'ke,company_name,tier,status,decision_due\r\n';
const portfolioRows = [
	'KE-1001,Acme Supplies Ltd,tier-1,active,true\r\n',
	'KE-1002,"\'=HYPERLINK(""http://evil.example"",""click me"")",tier-2,active,false\r\n',
	"KE-1003,'+1 Logistics,tier-3,active,true\r\n",
	"KE-1004,'-2 Components,tier-1,active,false\r\n",
	"KE-1005,'@SUM(A1:A9) Trading,tier-2,active,true\r\n",
	"KE-1006,'\tTabbed Holdings,tier-3,active,false\r\n",
	'KE-1007,"\'\rCarriage Return Co",tier-1,active,true\r\n',
	'KE-1008,"Smith, Jones & ""Partners""\nLLP",tier-2,active,false\r\n',
	"KE-1009,Société Générale d'Été,tier-3,in_liquidation,true\r\n",
	'KE-1010,Struck Off Widgets Ltd,tier-1,struck_off,false\r\n',
];

function dataRows(page: string, header: string): string {
	expect(page.startsWith(header)).toBe(true);
	return page.slice(header.length);
}

describe('portfolio export', () => {
	it('pages the CSV with X-Service-Next-Cursor; every page has the header; formula cells are guarded and quoted', async () => {
		const pages = await client.allPages('/v1/reader/exports/portfolio?format=csv&page_size=3');
		expect(pages.map((p) => p.text.split('\r\n').length - 2)).toEqual([3, 3, 3, 1]);
		expect(pages.map((p) => p.headers['content-type'])).toEqual(Array(4).fill('text/csv; charset=utf-8'));
		expect(pages[3].headers['x-service-next-cursor']).toBeUndefined();
		expect(pages.map((p) => dataRows(p.text, portfolioHeader)).join('')).toBe(portfolioRows.join(''));
	});

	it('uses the configured default page size when page_size is not sent', async () => {
		const first = await client.request('/v1/reader/exports/portfolio?format=csv');
		expect(first.text).toBe(portfolioHeader + portfolioRows.slice(0, 4).join(''));
		expect(first.headers['x-service-next-cursor']).toEqual(expect.any(String));
	});

	it('lets one row span a page: page_size=1 gives ten pages of one row', async () => {
		const pages = await client.allPages('/v1/reader/exports/portfolio?format=csv&page_size=1');
		expect(pages.map((p) => dataRows(p.text, portfolioHeader))).toEqual(portfolioRows);
	});

	it('answers JSON as {"data": [...]} with raw values (no guard) and the same paging', async () => {
		const pages = await client.allPages('/v1/reader/exports/portfolio?format=json&page_size=6');
		expect(pages).toHaveLength(2);
		expect(pages[0].headers['content-type']).toBe('application/json; charset=utf-8');
		const rows = pages.flatMap((p) => p.json().data);
		expect(rows).toHaveLength(10);
		expect(rows[1]).toEqual({
			ke: 'KE-1002', company_name: '=HYPERLINK("http://evil.example","click me")', tier: 'tier-2', status: 'active', decision_due: false,
		});
		const defaultFormat = await client.request('/v1/reader/exports/portfolio?page_size=100');
		expect(defaultFormat.json().data).toEqual(rows);
	});

	it('writes one access-log entry per page fetched', async () => {
		const before = sandbox.control.accessLog().length;
		await client.allPages('/v1/reader/exports/portfolio?format=csv&page_size=5');
		expect(sandbox.control.accessLog().slice(before)).toEqual([
			{ at: '2026-03-01T12:00:00.000Z', reader: 'reader', export: 'portfolio', path: '/v1/reader/exports/portfolio', format: 'csv', page: 1 },
			{ at: '2026-03-01T12:00:00.000Z', reader: 'reader', export: 'portfolio', path: '/v1/reader/exports/portfolio', format: 'csv', page: 2 },
		]);
	});

	it.each([
		['a cursor that was never issued', 'cursor=not-a-cursor', 'The cursor is not one the portfolio export issued: send back the X-Service-Next-Cursor value unchanged, or start again without a cursor.'],
		['page_size 0', 'page_size=0', 'page_size must be a whole number from 1 to 100000; got "0".'],
		['page_size text', 'page_size=ten', 'page_size must be a whole number from 1 to 100000; got "ten".'],
		['an unknown format', 'format=xml', 'format must be csv or json; got "xml".'],
		['a window on the portfolio', 'window=30', 'window applies to the expiries export only, not to portfolio.'],
	])('answers 400 for %s', async (_label, query, message) => {
		const reply = await client.request(`/v1/reader/exports/portfolio?${query}`);
		expect(reply.status).toBe(400);
		expect(reply.json()).toEqual({ error: { code: 'invalid_parameter', message } });
	});

	it('changeShare changes the company\'s portfolio row (the cached page too) and sends the matching alerts; a company that does not share is refused', async () => {
		const alerts = sandbox.control.changeShare('KE-1002', { tier: 'tier-3', decisionDue: true });
		try {
			expect(alerts.map((alert) => alert.eventType)).toEqual(['reader_tier_changed', 'reader_decision_due']);
			const pages = await client.allPages('/v1/reader/exports/portfolio?format=json&page_size=100');
			const rows = pages.flatMap((p) => p.json().data as Array<Record<string, unknown>>);
			expect(rows.find((row) => row.ke === 'KE-1002')).toEqual(expect.objectContaining({ tier: 'tier-3', decision_due: true }));
			expect(rows.map((row) => row.ke)).toHaveLength(10);
			// A change to what it already has sends nothing.
			expect(sandbox.control.changeShare('KE-1002', { tier: 'tier-3' })).toEqual([]);
		} finally {
			sandbox.control.changeShare('KE-1002', { tier: 'tier-2', decisionDue: false });
		}
		const first = await client.request('/v1/reader/exports/portfolio?format=csv&page_size=2');
		expect(dataRows(first.text, portfolioHeader)).toBe(portfolioRows.slice(0, 2).join(''));
		expect(() => sandbox.control.changeShare('KE-1011', { tier: 'tier-1' })).toThrow('KE-1011 is not shared with reader reader; nothing to change.');
	});

	it('refuses a cursor issued by another listing', async () => {
		const expiries = await client.request('/v1/reader/exports/expiries?page_size=1');
		const cursor = expiries.headers['x-service-next-cursor'] as string;
		const reply = await client.request(`/v1/reader/exports/portfolio?cursor=${cursor}`);
		expect(reply.status).toBe(400);
		expect(reply.json().error.message).toMatch(/^The cursor is not one the portfolio export issued/);
	});
});

describe('expiries export', () => {
	const header = 'kind,reference,ke,ends_on,window_days\r\n';
	const in30 = [
		'review,REV-0001,KE-1002,2026-03-06,30\r\n',
		'share,SHARE-KE-1001,KE-1001,2026-03-13,30\r\n',
		'share,SHARE-KE-1006,KE-1006,2026-03-13,30\r\n',
		'invitation,INV-0001,,2026-03-26,30\r\n',
	];
	const in60 = [
		'share,SHARE-KE-1002,KE-1002,2026-04-15,60\r\n',
		'share,SHARE-KE-1007,KE-1007,2026-04-15,60\r\n',
		'invitation,INV-0002,,2026-04-20,60\r\n',
	];
	const in90 = [
		'request,REQ-0001,KE-1001,2026-05-10,90\r\n',
		'share,SHARE-KE-1003,KE-1003,2026-05-20,90\r\n',
		'share,SHARE-KE-1008,KE-1008,2026-05-20,90\r\n',
	];

	it.each([
		['30', in30],
		['60', [...in30, ...in60]],
		['90', [...in30, ...in60, ...in90]],
	])('window=%s lists shares, invitations, requests and reviews ending within that many days', async (window, rows) => {
		const pages = await client.allPages(`/v1/reader/exports/expiries?format=csv&window=${window}`);
		expect(pages.map((p) => dataRows(p.text, header)).join('')).toBe(rows.join(''));
	});

	it('lists all three windows when window is omitted, and never items past 90 days or of revoked shares', async () => {
		const pages = await client.allPages('/v1/reader/exports/expiries?format=csv&page_size=100');
		expect(pages).toHaveLength(1);
		expect(pages[0].text).toBe(header + [...in30, ...in60, ...in90].join(''));
		expect(pages[0].text).not.toContain('REV-0002');
		expect(pages[0].text).not.toContain('REQ-0002');
	});

	it('refuses a window other than 30, 60 or 90', async () => {
		const reply = await client.request('/v1/reader/exports/expiries?window=45');
		expect(reply.status).toBe(400);
		expect(reply.json().error.message).toBe('window must be 30, 60 or 90 (days); got "45". Omit it for all windows.');
	});
});

describe('invitations, decisions and statements exports', () => {
	it('exports invitations as guarded CSV', async () => {
		const [page] = await client.allPages('/v1/reader/exports/invitations?format=csv&page_size=50');
		expect(page.text).toBe([
			'invitation_id,company_name,registration_number,work_email,reader_reference,status,updated_at\r\n',
			'INV-0001,Northwind Traders,GB10000001,procurement@northwind.example,SUP-001,sent,2026-03-01T12:00:00.000Z\r\n',
			'INV-0002,"\'=cmd|"" /C calc""!A0",GB10000002,ops@evil.example,\'+SUP-002,opened,2026-03-01T12:00:00.000Z\r\n',
			'INV-0003,"Globex, Inc.",US10000003,vendor@globex.example,SUP-003,accepted,2026-03-01T12:00:00.000Z\r\n',
			'INV-0004,Initech,US10000004,it@initech.example,SUP-004,declined,2026-03-01T12:00:00.000Z\r\n',
			'INV-0005,Hooli,US10000005,legal@hooli.example,SUP-005,bounced,2026-03-01T12:00:00.000Z\r\n',
		].join(''));
	});

	it('exports decisions for shared companies only (the revoked KE-1012 is left out)', async () => {
		const reply = await client.request('/v1/reader/exports/decisions');
		expect(reply.json().data.map((d: { id: string; ke: string }) => [d.id, d.ke])).toEqual([
			['DEC-0001', 'KE-1001'], ['DEC-0002', 'KE-1002'],
		]);
		const csv = await client.request('/v1/reader/exports/decisions?format=csv');
		expect(csv.text.split('\r\n')[2]).toBe(
			'DEC-0002,KE-1002,on_hold,"\'=1+1 check the invoices, then decide",reader.admin@buyer.example,2026-03-01T12:00:00.000Z,AP-1002-1',
		);
	});

	it('lists a policy run statement with findings', async () => {
		const run = await client.request('/v1/reader/policy-runs', { method: 'POST', body: { ke: 'KE-1009', policy: 'strict' } });
		const statements = (await client.request('/v1/reader/exports/statements')).json().data;
		expect(statements).toContainEqual({
			id: run.json().statement_id,
			run_id: run.json().id,
			ke: 'KE-1009',
			created_at: '2026-03-01T12:00:00.000Z',
			findings: [
				{ code: 'register_status', text: 'Company register status is in_liquidation.' },
				{ code: 'accounts_filed', text: 'Latest annual accounts were filed on time.' },
				{ code: 'register_change', text: 'The register shows the company as in_liquidation.' },
				{ code: 'policy_applied', text: 'Checked against the reader\'s policy "strict".' },
			],
		});
		const csv = await client.request('/v1/reader/exports/statements?format=csv');
		expect(csv.text.split('\r\n')[1]).toBe(`${run.json().statement_id},${run.json().id},KE-1009,"Company register status is in_liquidation.`
			+ ' | Latest annual accounts were filed on time. | The register shows the company as in_liquidation.'
			+ ` | Checked against the reader's policy ""strict"".",2026-03-01T12:00:00.000Z`);
	});
});

/** Reads the stored entries of a ZIP file, checking each CRC. */
function unzipStored(zip: Buffer): Record<string, Buffer> {
	const files: Record<string, Buffer> = {};
	let at = 0;
	while (zip.readUInt32LE(at) === 0x04034b50) {
		const size = zip.readUInt32LE(at + 18);
		const nameLength = zip.readUInt16LE(at + 26);
		const name = zip.toString('utf8', at + 30, at + 30 + nameLength);
		const content = zip.subarray(at + 30 + nameLength, at + 30 + nameLength + size);
		expect(crc32(content)).toBe(zip.readUInt32LE(at + 14));
		files[name] = content;
		at += 30 + nameLength + size;
	}
	return files;
}

describe('audit packs', () => {
	it('serves the pack as a ZIP holding the manifest, the decision and the signed record bytes', async () => {
		const reply = await client.request('/v1/reader/exports/audit-packs/KE-1001/AP-1001-1');
		expect(reply.status).toBe(200);
		expect(reply.headers['content-type']).toBe('application/zip');
		expect(reply.headers['content-disposition']).toBe('attachment; filename="AP-1001-1.zip"');
		const files = unzipStored(reply.body);
		expect(Object.keys(files)).toEqual(['manifest.json', 'decision.json', 'KS-1001-v1.json']);
		expect(JSON.parse(files['manifest.json'].toString())).toMatchObject({ pack_id: 'AP-1001-1', ke: 'KE-1001', decision_id: 'DEC-0001' });
		expect(files['KS-1001-v1.json'].equals(sandbox.control.record('KE-1001').bytes)).toBe(true);
	});

	it('answers 404 for an unknown pack and for a company that no longer shares', async () => {
		const unknown = await client.request('/v1/reader/exports/audit-packs/KE-1001/AP-NOPE');
		expect(unknown.status).toBe(404);
		expect(unknown.json().error.message).toBe('No audit pack AP-NOPE for company KE-1001: take pack_id from the decisions export.');
		const revoked = await client.request('/v1/reader/exports/audit-packs/KE-1012/AP-1012-1');
		expect(revoked.status).toBe(404);
		expect(revoked.json().error.code).toBe('not_shared');
	});
});

describe('page faults', () => {
	afterEach(() => sandbox.control.clearFaults());

	it('fails one page with 500, then serves it on retry with the same cursor', async () => {
		sandbox.control.failPage({ route: 'portfolio', page: 2, mode: '500' });
		const first = await client.request('/v1/reader/exports/portfolio?format=csv&page_size=4');
		const path = `/v1/reader/exports/portfolio?format=csv&page_size=4&cursor=${first.headers['x-service-next-cursor']}`;
		const failed = await client.request(path);
		expect(failed.status).toBe(500);
		expect(failed.json()).toEqual({
			error: { code: 'server_error', message: 'Page 2 of the portfolio export failed (sandbox fault): retry the same cursor.' },
		});
		const retried = await client.request(path);
		expect(retried.status).toBe(200);
		expect(dataRows(retried.text, portfolioHeader)).toBe(portfolioRows.slice(4, 8).join(''));
	});

	it('answers 429 with Retry-After as many times as asked', async () => {
		sandbox.control.failPage({ route: 'invitations', page: 1, mode: '429', retryAfterSeconds: 7, times: 2 });
		const statuses = [];
		for (let i = 0; i < 3; i++) {
			const reply = await client.request('/v1/reader/exports/invitations?format=csv');
			statuses.push([reply.status, reply.headers['retry-after']]);
		}
		expect(statuses).toEqual([[429, '7'], [429, '7'], [200, undefined]]);
		// Other listings are not affected.
		expect((await client.request('/v1/reader/exports/portfolio')).status).toBe(200);
	});

	it('drops the connection without an answer, then serves the page', async () => {
		sandbox.control.failPage({ route: 'expiries', page: 1, mode: 'drop' });
		sandbox.control.clearRequests();
		await expect(client.request('/v1/reader/exports/expiries?format=csv')).rejects.toMatchObject({ code: 'ECONNRESET' });
		const [dropped] = sandbox.control.requests();
		expect(dropped.path).toBe('/v1/reader/exports/expiries');
		expect(dropped.status).toBeUndefined();
		expect((await client.request('/v1/reader/exports/expiries?format=csv')).status).toBe(200);
	});

	it('refuses a fault with a bad page number', () => {
		expect(() => sandbox.control.failPage({ route: 'portfolio', page: 0, mode: '500' })).toThrow('failPage: page must be 1 or more, got 0.');
	});
});

describe('100,000-row portfolio', () => {
	let big: Sandbox;
	let bigClient: SandboxClient;

	beforeAll(async () => {
		big = await startSandbox({ seed: 'empty', portfolioRows: 100_000, pageSize: 25_000 });
		bigClient = new SandboxClient(big);
	});

	afterAll(async () => {
		bigClient.close();
		await big.close();
	});

	it('spans four pages of 25,000 rows, every KE exactly once, formula names guarded', async () => {
		const pages = await bigClient.allPages('/v1/reader/exports/portfolio?format=csv');
		expect(pages).toHaveLength(4);
		const lines = pages.flatMap((p) => dataRows(p.text, portfolioHeader).split('\r\n').filter((l) => l.startsWith('KE-')));
		expect(lines).toHaveLength(100_000);
		const kes = new Set(lines.map((l) => l.split(',')[0]));
		expect(kes.size).toBe(100_000);
		expect(lines[0]).toBe("KE-P0000001,'=SUM(1+1) Generated 1,tier-2,active,false");
		expect(lines[1]).toBe('KE-P0000002,"Comma, Quote ""and"" Co 2",tier-3,active,false');
		expect(lines[99_999]).toBe('KE-P0100000,Generated Supplier 100000,tier-2,active,false');
	});

	it('serves all 100,000 rows as one JSON page when page_size allows', async () => {
		const reply = await bigClient.request('/v1/reader/exports/portfolio?format=json&page_size=100000');
		expect(reply.headers['x-service-next-cursor']).toBeUndefined();
		const rows = reply.json().data;
		expect(rows).toHaveLength(100_000);
		expect(rows[99_999]).toEqual({ ke: 'KE-P0100000', company_name: 'Generated Supplier 100000', tier: 'tier-2', status: 'active', decision_due: false });
	});
});
