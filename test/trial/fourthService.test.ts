// The fourth Service against the spec and against its own CHOICES.md, over real HTTPS trusting its CA only.
import { createPublicKey, verify } from 'node:crypto';
import { request } from 'node:https';

import { createHmac, timingSafeEqual } from 'node:crypto';

import { certificates } from '../tls/certificates';
import { listenHttps } from '../tls/httpsServer';
import { canonicalJson, startFourthService, type FourthService } from './fourthService';
import { parseDelimited } from './fourthWrites';

interface Answer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
	json: () => any;
}

let service: FourthService;
const NOW = new Date('2026-03-10T12:00:00Z');

beforeAll(async () => {
	// Webhook receivers in these tests present a leaf of the same test CA as the Service.
	const { ca } = await certificates('Fourth Service test CA', { service: 'fourth-service' });
	service = await startFourthService({ now: () => NOW, deliveryCa: ca });
});
afterAll(async () => {
	await service?.close();
});

function call(method: string, path: string, options: { token?: string | null; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
	const token = options.token === undefined ? service.readerToken : options.token;
	const url = new URL(`${service.baseUrl}${path}`);
	const headers: Record<string, string> = { ...(token ? { 'X-Auth-Token': token } : {}), ...options.headers };
	return new Promise((resolve, reject) => {
		const req = request(url, { method, headers, ca: service.ca }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
			});
		});
		req.on('error', reject);
		req.end(options.body);
	});
}

const postJson = (path: string, body: unknown, token?: string, headers: Record<string, string> = {}) =>
	call(path === '/v1/reader/sso' ? 'PUT' : 'POST', path, { token, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...headers } });

/** Follows X-Service-Next-Cursor through page_token; every page's body. */
async function allPages(path: string): Promise<Answer[]> {
	const pages: Answer[] = [];
	let next: string | undefined;
	do {
		const answer = await call('GET', next === undefined ? path : `${path}&page_token=${encodeURIComponent(next)}`);
		expect(answer.status).toBe(200);
		pages.push(answer);
		next = answer.headers['x-service-next-cursor'] as string | undefined;
		expect(pages.length).toBeLessThan(50);
	} while (next !== undefined);
	return pages;
}

const tsvRows = (text: string) => parseDelimited(text, '\t');

describe('routes and authentication', () => {
	const reads = [
		'/v1/reader/webhooks/catalogue',
		'/v1/reader/exports/records/KE-40001000',
		'/v1/reader/exports/portfolio?format=csv',
		'/v1/reader/exports/expiries?format=csv',
		'/v1/reader/exports/invitations?format=csv',
		'/v1/reader/exports/decisions',
		'/v1/reader/exports/statements',
		'/v1/reader/exports/audit-packs/KE-40001000/pk_3a7f00',
	];

	test.each(reads)('GET %s answers 200 with the token in X-Auth-Token, 401 naming the header without it', async (path) => {
		expect((await call('GET', path)).status).toBe(200);
		const missing = await call('GET', path, { token: null });
		expect(missing.status).toBe(401);
		expect(missing.headers['www-authenticate']).toBe('X-Auth-Token realm="reader-api"');
		expect(missing.json().fault).toMatchObject({ code: 'token_missing', message: expect.stringContaining('X-Auth-Token') });
	});

	test('a token sent as Authorization: Bearer is not read, and the refusal says where it belongs', async () => {
		const answer = await call('GET', '/v1/reader/exports/portfolio?format=csv', { token: null, headers: { Authorization: `Bearer ${service.readerToken}` } });
		expect(answer.status).toBe(401);
		expect(answer.json().fault.message).toBe('Send your access token in the X-Auth-Token header. This Service does not read the Authorization header.');
		expect((await call('GET', '/v1/reader/exports/decisions', { token: 'rdr_wrong' })).json().fault.code).toBe('token_invalid');
	});

	test('the public verify route needs no token; routes outside /api answer 404 saying where they live', async () => {
		expect((await call('GET', '/v1/public/reports/KS-70500000-v1/verify', { token: null })).status).toBe(200);
		const outside = await new Promise<number>((resolve, reject) => {
			request(`${service.origin}/v1/reader/exports/decisions`, { ca: service.ca, headers: { 'X-Auth-Token': service.readerToken } }, (res) => {
				res.resume();
				resolve(res.statusCode ?? 0);
			}).on('error', reject).end();
		});
		expect(outside).toBe(404);
	});

	test('an unknown method answers 405 with Allow; unknown query parameters are refused by name', async () => {
		const answer = await call('GET', '/v1/reader/webhooks');
		expect(answer.status).toBe(405);
		expect(answer.headers.allow).toBe('POST');
		const refused = await call('GET', '/v1/reader/exports/portfolio?format=csv&cursor=x&limit=5');
		expect(refused.status).toBe(400);
		expect(refused.json().fault).toMatchObject({ code: 'unknown_parameter', parameters: ['cursor', 'limit'] });
	});
});

describe('paged exports', () => {
	test('the portfolio pages by page_token and per_page, tab-separated with the header on every page, 25 companies once each', async () => {
		const pages = await allPages('/v1/reader/exports/portfolio?format=csv&per_page=10');
		expect(pages).toHaveLength(3);
		const header = ['ke', 'company_name', 'registration_number', 'tier', 'register_status', 'decision_due', 'shared_since'];
		const kes: string[] = [];
		for (const page of pages) {
			expect(page.headers['content-type']).toBe('text/tab-separated-values; charset=utf-8');
			expect(page.text.endsWith('\r\n')).toBe(true);
			const [first, ...rows] = tsvRows(page.text);
			expect(first).toEqual(header);
			rows.forEach((row) => expect(row).toHaveLength(header.length));
			kes.push(...rows.map((row) => row[0]));
		}
		expect(pages.map((page) => tsvRows(page.text).length - 1)).toEqual([10, 10, 5]);
		expect(new Set(kes).size).toBe(25);
		// Ended shares are not in the portfolio.
		expect(kes).not.toContain('KE-40001175');
	});

	test('per_page defaults to 10 and is bounded; a page token from another export or a forged one is refused', async () => {
		expect(tsvRows((await call('GET', '/v1/reader/exports/portfolio?format=csv')).text)).toHaveLength(11);
		expect((await call('GET', '/v1/reader/exports/portfolio?format=csv&per_page=101')).json().fault.parameter).toBe('per_page');
		const first = await call('GET', '/v1/reader/exports/portfolio?format=csv&per_page=5');
		const token = first.headers['x-service-next-cursor'] as string;
		const elsewhere = await call('GET', `/v1/reader/exports/invitations?format=csv&page_token=${token}`);
		expect(elsewhere.json().fault).toMatchObject({ code: 'page_token_mismatch', parameter: 'page_token' });
		expect((await call('GET', `/v1/reader/exports/portfolio?format=csv&page_token=${token}x`)).json().fault.code).toBe('invalid_page_token');
	});

	test('format is required; ndjson gives one JSON object a line and pages the same way', async () => {
		expect((await call('GET', '/v1/reader/exports/portfolio')).json().fault).toMatchObject({ parameter: 'format', message: 'format is required: csv (tab-separated) or ndjson.' });
		expect((await call('GET', '/v1/reader/exports/portfolio?format=json')).status).toBe(400);
		const pages = await allPages('/v1/reader/exports/portfolio?format=ndjson&per_page=7');
		expect(pages).toHaveLength(4);
		expect(pages[0].headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
		const rows = pages.flatMap((page) => page.text.trimEnd().split('\n').map((line) => JSON.parse(line)));
		expect(rows).toHaveLength(25);
		expect(rows.find((row) => row.ke === 'KE-40001021')).toMatchObject({ company_name: '=Equals Partners LLP', decision_due: 'yes' });
	});

	test('text cells that read as formulas start with a quote; tabs and quotes inside cells are quoted', async () => {
		const text = (await allPages('/v1/reader/exports/portfolio?format=csv&per_page=100'))[0].text;
		const names = tsvRows(text).slice(1).map((row) => row[1]);
		expect(names).toEqual(expect.arrayContaining(["'=Equals Partners LLP", "'+Plus Components", "'@Home Supplies Ltd", "'-Minus Tools Ltd", 'Rowan "Quoted" Co', 'Tay\tTab Traders']));
		expect(text).toContain('"Rowan ""Quoted"" Co"');
		const invitations = (await call('GET', '/v1/reader/exports/invitations?format=csv&per_page=100')).text;
		expect(invitations).toContain("'=cmd|calc Supplies");
	});

	test('expiries: horizon_days 30, 60, 90 give nested, different rows; 30 when not sent; other values refused', async () => {
		const rows = async (horizon: string) => {
			const pages = await allPages(`/v1/reader/exports/expiries?format=csv&per_page=10${horizon}`);
			return pages.flatMap((page) => tsvRows(page.text).slice(1));
		};
		const [d30, d60, d90, none] = [await rows('&horizon_days=30'), await rows('&horizon_days=60'), await rows('&horizon_days=90'), await rows('')];
		expect(d30.length).toBeGreaterThan(10);
		expect(d60.length).toBeGreaterThan(d30.length);
		expect(d90.length).toBeGreaterThan(d60.length);
		expect(none).toEqual(d30);
		expect(d60.slice(0, d30.length)).toEqual(d30);
		for (const [list, limit] of [[d30, 30], [d60, 60], [d90, 90]] as const) {
			list.forEach((row) => expect(Number(row[4])).toBeGreaterThanOrEqual(0));
			list.forEach((row) => expect(Number(row[4])).toBeLessThanOrEqual(limit));
		}
		expect(new Set(d90.map((row) => row[0]))).toEqual(new Set(['review', 'share', 'request', 'invitation']));
		expect((await call('GET', '/v1/reader/exports/expiries?format=csv&horizon_days=45')).json().fault.parameter).toBe('horizon_days');
		expect((await call('GET', '/v1/reader/exports/expiries?format=csv&window=30')).json().fault.parameters).toEqual(['window']);
		// A token issued for one window does not page another.
		const token = (await call('GET', '/v1/reader/exports/expiries?format=csv&horizon_days=90&per_page=5')).headers['x-service-next-cursor'];
		expect((await call('GET', `/v1/reader/exports/expiries?format=csv&horizon_days=30&page_token=${token}`)).json().fault.code).toBe('page_token_mismatch');
	});

	test('decisions and statements page as JSON lists by page_token', async () => {
		const pages = await allPages('/v1/reader/exports/decisions?per_page=5');
		const results = pages.flatMap((page) => page.json().results);
		expect(results).toHaveLength(14);
		expect(pages.at(-1)?.json().has_more).toBe(false);
		expect(results[0]).toEqual(expect.objectContaining({ decision_id: 'dec_00880', ke: 'KE-40001000', outcome: 'approved', pack_id: 'pk_3a7f00' }));
		expect((await call('GET', '/v1/reader/exports/statements')).json().results).toHaveLength(3);
	});
});

describe('records, verification, shares that ended', () => {
	test('a record is signed JSON whose signature verifies with the key the public verify route gives for its KS', async () => {
		const answer = await call('GET', '/v1/reader/exports/records/KE-40001007');
		const record = answer.json();
		expect(answer.headers['content-disposition']).toBe('attachment; filename="KE-40001007_KS-70500013-v2.json"');
		expect(record.payload).toMatchObject({ ke: 'KE-40001007', ks: 'KS-70500013-v2', shared_in_full: true });
		const check = (await call('GET', `/v1/public/reports/${record.payload.ks}/verify`, { token: null })).json();
		expect(check).toMatchObject({ ks: 'KS-70500013-v2', ke: 'KE-40001007', authentic: true, current: true, superseded_by: null });
		const key = createPublicKey(check.public_key_pem);
		expect(verify(null, Buffer.from(canonicalJson(record.payload)), key, Buffer.from(record.signature.value, 'base64'))).toBe(true);
		expect(verify(null, Buffer.from(canonicalJson({ ...record.payload, version: 3 })), key, Buffer.from(record.signature.value, 'base64'))).toBe(false);
		expect((await call('GET', '/v1/public/reports/KS-70500013-v1/verify')).json()).toMatchObject({ current: false, superseded_by: 'KS-70500013-v2' });
		expect((await call('GET', '/v1/public/reports/KS-00000000-v1/verify')).status).toBe(404);
	});

	test('a company whose share ended answers 404 on records, audit packs and policy runs; the export is logged for both sides', async () => {
		for (const path of ['/v1/reader/exports/records/KE-40001175', '/v1/reader/exports/audit-packs/KE-40001182/pk_3a9aba', '/v1/reader/exports/records/KE-99999999']) {
			const answer = await call('GET', path);
			expect(answer.status).toBe(404);
			expect(answer.json().fault.code).toBe('not_shared');
		}
		expect((await postJson('/v1/reader/policy-runs', { ke: 'KE-40001175' })).status).toBe(404);
		expect((await call('GET', '/v1/reader/exports/audit-packs/KE-40001000/pk_nope')).json().fault.code).toBe('unknown_pack');
		await call('GET', '/v1/reader/exports/records/KE-40001014');
		expect(service.companyLogs.get('KE-40001014')?.length).toBeGreaterThan(0);
		expect(service.accessLog.some((entry) => entry.route === 'records' && entry.ke === 'KE-40001014')).toBe(true);
	});

	test('the catalogue lists every named event type with a sample body of identifiers only', async () => {
		const { results } = (await call('GET', '/v1/reader/webhooks/catalogue')).json();
		const types = results.map((entry: { event_type: string }) => entry.event_type);
		expect(types).toEqual(expect.arrayContaining(['share_granted', 'share_revoked', 'report_superseded', 'finding_new', 'ledger_high', 'ledger_medium', 'reader_tier_changed', 'reader_decision_due', 'reader_invitation_status', 'questionnaire_answered']));
		for (const entry of results) expect(Object.keys(entry.sample).sort()).toEqual(['alert_id', 'event_type', 'ids', 'occurred_at', 'severity']);
	});
});

describe('writes', () => {
	test('a webhook endpoint: https only, reader admin only, the signing secret answered once', async () => {
		// Port 1 on loopback: refused at once when a later test delivers to every endpoint.
		const created = await postJson('/v1/reader/webhooks', { endpoint_url: 'https://127.0.0.1:1/service' }, service.adminToken);
		expect(created.status).toBe(201);
		expect(created.json().endpoint).toMatchObject({ endpoint_url: 'https://127.0.0.1:1/service', signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
		expect((await postJson('/v1/reader/webhooks', { endpoint_url: 'http://hooks.reader.example/' }, service.adminToken)).json().fault.code).toBe('https_required');
		expect((await postJson('/v1/reader/webhooks', { endpoint_url: 'https://hooks.reader.example/' })).status).toBe(403);
		expect((await postJson('/v1/reader/webhooks', { url: 'https://hooks.reader.example/' }, service.adminToken)).json().fault).toMatchObject({ code: 'unknown_field', fields: ['url'] });
	});

	test('an invitation is created pending and appears in the invitations export; a bad one is refused in words', async () => {
		const created = await postJson('/v1/reader/invitations', { company_name: 'Newco Ltd', registration_number: 'GB12345678', contact_email: 'ops@newco.example', reference: 'R-1' });
		expect(created.status).toBe(201);
		const id = created.json().invitation.invitation_id;
		expect(created.json().invitation.status).toBe('pending');
		const pages = await allPages('/v1/reader/exports/invitations?format=csv&per_page=10');
		expect(pages.flatMap((page) => tsvRows(page.text).slice(1)).map((row) => row[0])).toContain(id);
		const refused = await postJson('/v1/reader/invitations', { company_name: 'X', registration_number: '123', contact_email: 'someone@gmail.com' });
		expect(refused.status).toBe(422);
		expect(refused.json().fault.problems).toEqual([
			'The registration number "123" is not a two-letter country code followed by 6 to 10 digits.',
			'"someone@gmail.com" is a personal mailbox; give a work email at the company\'s own domain.',
		]);
	});

	test('an import checks each CSV row and answers in plain words', async () => {
		const csv = 'company_name,registration_number,contact_email,reference\r\nGood Co,GB22223333,a@good.example,REF-1\r\n,GB1,,REF-2\r\n"Acme, again",GB01200000,b@acme.example,REF-3\r\n';
		const answer = await call('POST', '/v1/reader/invitations/imports', { body: csv, headers: { 'Content-Type': 'text/csv' } });
		expect(answer.status).toBe(200);
		const result = answer.json();
		expect(result).toMatchObject({ invited: 1, refused: 2 });
		expect(result.rows[0]).toMatchObject({ line: 2, outcome: 'invited', invitation_id: expect.stringMatching(/^inv_/) });
		expect(result.rows[1].problems).toEqual(['The company name is missing.', 'The registration number "GB1" is not a two-letter country code followed by 6 to 10 digits.', "The contact's work email is missing."]);
		expect(result.rows[2]).toMatchObject({ company_name: 'Acme, again', problems: ['This company already shares its record with you; no invitation is needed.'] });
		expect((await call('POST', '/v1/reader/invitations/imports', { body: csv, headers: { 'Content-Type': 'application/json' } })).status).toBe(415);
	});

	test('a policy run answers the run and its statement is listed at the statements export', async () => {
		const run = await postJson('/v1/reader/policy-runs', { ke: 'KE-40001021', policy: 'annual-review' });
		expect(run.status).toBe(201);
		expect(run.json().run).toMatchObject({ ke: 'KE-40001021', policy: 'annual-review', state: 'completed' });
		const statements = (await allPages('/v1/reader/exports/statements?per_page=2')).flatMap((page) => page.json().results);
		const statement = statements.find((candidate: { statement_id: string }) => candidate.statement_id === run.json().run.statement_id);
		expect(statement.observations).toContainEqual({ rule: 'register_status_not_active', observed: true, finding_codes: ['register.struck_off'] });
	});

	test('SSO needs a reader admin and a recent passkey', async () => {
		const config = { provider: 'oidc', email_domains: ['reader.example'], group_roles: { 'procurement-leads': 'reader_admin' } };
		expect((await postJson('/v1/reader/sso', config, service.adminToken)).json().fault.code).toBe('recent_passkey_required');
		expect((await postJson('/v1/reader/sso', config, undefined, { 'X-Passkey-Proof': service.passkeyProof })).status).toBe(403);
		const stored = await postJson('/v1/reader/sso', config, service.adminToken, { 'X-Passkey-Proof': service.passkeyProof });
		expect(stored.status).toBe(200);
		expect(stored.json().sso).toMatchObject({ ...config, unmapped_groups_grant: 'nothing' });
	});

	test('a delivery is signed as CHOICES.md says and verifies by section 5.4 with the secret answered at creation', async () => {
		const tls = await certificates('Fourth Service test CA', { service: 'fourth-service' });
		const received: Array<{ signature: string; raw: Buffer }> = [];
		const receiver = await listenHttps(tls.leaves.service, (req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				received.push({ signature: String(req.headers['service-signature']), raw: Buffer.concat(chunks) });
				res.writeHead(204).end();
			});
		});
		try {
			const created = await postJson('/v1/reader/webhooks', { endpoint_url: `${receiver.origin}/hooks`, event_types: ['share_granted'] }, service.adminToken);
			const secret: string = created.json().endpoint.signing_secret;
			const id = created.json().endpoint.endpoint_id;
			// Subscribed to share_granted only; the endpoint of the test above takes every type and refuses connections.
			expect(await service.deliver('share_revoked', { organisation: 'KE-40001000' })).not.toContainEqual(expect.objectContaining({ endpoint_id: id }));
			const outcome = await service.deliver('share_granted', { organisation: 'KE-40001000' });
			expect(outcome).toContainEqual({ endpoint_id: id, status: 204 });
			expect(outcome.filter((entry) => entry.endpoint_id !== id).every((entry) => entry.status === 0)).toBe(true);
			expect(received).toHaveLength(1);
			const { signature, raw } = received[0];
			const parts = new Map(signature.split(',').map((part) => part.trim().split('=', 2) as [string, string]));
			const t = Number(parts.get('t'));
			expect(Math.abs(t - NOW.getTime() / 1000)).toBeLessThanOrEqual(300);
			const mac = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${t}.`).update(raw).digest();
			const v1 = signature.slice(signature.indexOf('v1=') + 3);
			expect(v1).toBe(mac.toString('base64'));
			expect(timingSafeEqual(Buffer.from(v1, 'base64'), mac)).toBe(true);
			expect(Object.keys(JSON.parse(raw.toString('utf8'))).sort()).toEqual(['alert_id', 'event_type', 'ids', 'occurred_at', 'severity']);
		} finally {
			await receiver.close();
		}
	});
});
