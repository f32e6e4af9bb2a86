// The fifth Service against its FIFTH-CHOICES.md, over real HTTPS trusting its test CA only.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { gunzipSync } from 'node:zlib';

import { certificates } from '../tls/certificates';
import { listenHttps } from '../tls/httpsServer';
import { startFifthService, type FifthService } from './fifthService';

interface Reply { status: number; headers: IncomingMessage['headers']; raw: Buffer; text: string }

let clock = Date.parse('2026-03-10T12:00:00Z');
let service: FifthService;

beforeAll(async () => {
	const { ca } = await certificates('Fifth Service test CA', { service: 'fifth-service' });
	service = await startFifthService({ now: () => new Date(clock), tokenLifetimeSeconds: 3, statementDelayMs: 300, deliveryCa: ca, retryDelaysMs: [50, 100] });
});
afterAll(async () => {
	await service?.close();
});

function call(method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer, target = service): Promise<Reply> {
	return new Promise((resolve, reject) => {
		const req = request(new URL(path, target.baseUrl), { method, headers, ca: target.ca }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => {
				const raw = Buffer.concat(chunks);
				resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, text: raw.toString('utf8') });
			});
		});
		req.on('error', reject);
		req.end(body);
	});
}

async function token(client = service.reader, target = service, via: 'basic' | 'body' = 'basic', scope?: string): Promise<string> {
	const form = new URLSearchParams({ grant_type: 'client_credentials', ...(via === 'body' ? { client_id: client.clientId, client_secret: client.clientSecret } : {}), ...(scope ? { scope } : {}) });
	const basic: Record<string, string> = via === 'basic' ? { Authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}` } : {};
	const reply = await call('POST', '/oauth/token', { 'Content-Type': 'application/x-www-form-urlencoded', ...basic }, form.toString(), target);
	expect(reply.status).toBe(200);
	return JSON.parse(reply.text).access_token;
}
const bearer = (t: string, extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${t}`, ...extra });
const postJson = async (path: string, body: unknown, extra: Record<string, string> = {}, client = service.reader) =>
	await call('POST', path, bearer(await token(client), { 'Content-Type': 'application/json', ...extra }), JSON.stringify(body));

describe('sign-in: OAuth2 client credentials', () => {
	test('Basic or body credentials give a Bearer token with expires_in; scope echoed; wrong secret is invalid_client', async () => {
		const form = 'grant_type=client_credentials&scope=reader.read';
		const byBody = await call('POST', '/oauth/token', { 'Content-Type': 'application/x-www-form-urlencoded' }, `${form}&client_id=${service.reader.clientId}&client_secret=${service.reader.clientSecret}`);
		expect(JSON.parse(byBody.text)).toEqual({ access_token: expect.stringMatching(/^ft_/), token_type: 'Bearer', expires_in: 3, scope: 'reader.read' });
		expect(await token(service.reader, service, 'basic')).toMatch(/^ft_/);
		const wrong = await call('POST', '/oauth/token', { 'Content-Type': 'application/x-www-form-urlencoded' }, `grant_type=client_credentials&client_id=${service.reader.clientId}&client_secret=nope`);
		expect(wrong.status).toBe(401);
		expect(JSON.parse(wrong.text).error).toBe('invalid_client');
	});
	test('an expired token gets 401 with Bearer error="invalid_token"', async () => {
		const t = await token();
		expect((await call('GET', '/v1/reader/exports/decisions', bearer(t))).status).toBe(200);
		clock += 3001;
		const late = await call('GET', '/v1/reader/exports/decisions', bearer(t));
		expect(late.status).toBe(401);
		expect(late.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
		expect(late.headers['content-type']).toBe('application/problem+json');
	});
	test('admin-only writes refuse the reader client with 403', async () => {
		const reply = await postJson('/v1/reader/webhooks', { endpoint_url: 'https://example.test/hook' });
		expect(reply.status).toBe(403);
	});
});

describe('numbers and paging', () => {
	test('decision ids and registry numbers are JSON numbers of 19-20 digits; cursor only from the Service-Cursor header', async () => {
		const t = await token();
		const first = await call('GET', '/v1/reader/exports/decisions?limit=15', bearer(t));
		expect(first.text).toMatch(/"id":18446744073709\d{6},/);
		expect(first.text).toMatch(/"registry_number":90071992547409\d\d,/);
		const cursor = first.headers['x-service-next-cursor'] as string;
		expect(cursor).toBeTruthy();
		const viaQuery = await call('GET', `/v1/reader/exports/decisions?limit=15&cursor=${cursor}`, bearer(t));
		expect(viaQuery.text).toBe(first.text);
		expect(viaQuery.headers['x-service-next-cursor']).not.toBe(cursor);
		let ids = 0;
		let next: string | undefined;
		do {
			const reply = await call('GET', '/v1/reader/exports/decisions?limit=15', bearer(t, next ? { 'Service-Cursor': next } : {}));
			ids += (reply.text.match(/"outcome"/g) ?? []).length;
			next = reply.headers['x-service-next-cursor'] as string | undefined;
		} while (next);
		expect(ids).toBe(40);
	});
});

describe('CSV as Excel-minded teams ship it', () => {
	test('expiries: UTF-16LE with BOM, windows of 30/60/90 days', async () => {
		const reply = await call('GET', '/v1/reader/exports/expiries?format=csv&limit=50', bearer(await token()));
		expect(reply.headers['content-type']).toBe('text/csv; charset=utf-16le');
		expect([...reply.raw.subarray(0, 2)]).toEqual([0xff, 0xfe]);
		const text = reply.raw.subarray(2).toString('utf16le');
		expect(text.split('\r\n')[0]).toBe('kind,ke,subject,ends_on,window_days');
		expect(new Set(text.trim().split('\r\n').slice(1).map((l) => l.split(',').pop()))).toEqual(new Set(['30', '60', '90']));
	});
	test('invitations: sep=; first line, ; delimiters, formula cells quoted', async () => {
		const reply = await call('GET', '/v1/reader/exports/invitations?format=csv&limit=50', bearer(await token()));
		const lines = reply.text.split('\r\n');
		expect(lines[0]).toBe('sep=;');
		expect(lines[1]).toBe('id;name;registration_no;email;ref;status;sent_at');
		expect(reply.text).toContain(";'@SUM(A1);");
		expect(reply.text).toContain('"Invited Co 1; Ltd"');
	});
	test('portfolio: windows-1252, non-ASCII names, paged over several pages', async () => {
		const t = await token();
		const pages: string[] = [];
		let next: string | undefined;
		do {
			const reply = await call('GET', '/v1/reader/exports/portfolio?format=csv&limit=10', bearer(t, next ? { 'Service-Cursor': next } : {}));
			expect(reply.headers['content-type']).toBe('text/csv; charset=windows-1252');
			pages.push(new TextDecoder('windows-1252').decode(reply.raw));
			next = reply.headers['x-service-next-cursor'] as string | undefined;
		} while (next);
		expect(pages.length).toBe(3);
		const all = pages.join('');
		expect(all).toContain('Müller Stahlbau GmbH');
		expect(all).toContain('Œuvre Façades S.A.');
		expect(all).toContain("'=Formula Holdings Ltd");
		expect(all).toMatch(/,18446744073709\d{6},/);
		expect(all).toMatch(/,90071992547409\d\d,/);
	});
});

describe('the proxy in front', () => {
	test('502 after a write: an HTML page, yet the invitation was created', async () => {
		const before = service.writes.length;
		service.injectGatewayFault({ status: 502, afterHandling: true, method: 'POST', pathPrefix: '/v1/reader/invitations' });
		const reply = await postJson('/v1/reader/invitations', { name: 'Lost Answer Ltd', registration_no: 'HRB 1', email: 'a@lost.example' });
		expect(reply.status).toBe(502);
		expect(reply.headers['content-type']).toBe('text/html');
		expect(reply.text).toMatch(/<title>502 Bad Gateway<\/title>[\s\S]*<h1>502 Bad Gateway<\/h1>/);
		expect(service.writes.length).toBe(before + 1);
	});
	test('503 with Retry-After as an HTTP-date; 401 at the edge as HTML', async () => {
		service.injectGatewayFault({ status: 503, retryAfterSeconds: 5 });
		const busy = await call('GET', '/v1/reader/exports/decisions');
		expect(busy.status).toBe(503);
		expect(busy.headers['retry-after']).toBe(new Date(clock + 5000).toUTCString());
		const t = await token();
		service.injectGatewayFault({ status: 401 });
		const edge = await call('GET', '/v1/reader/exports/decisions', bearer(t));
		expect(edge.status).toBe(401);
		expect(edge.text).toContain('<h1>401 Authorization Required</h1>');
		service.injectGatewayFault({ status: 504, pathPrefix: '/v1/reader/exports' });
		const slow = await call('GET', '/v1/reader/exports/decisions', bearer(t));
		expect([slow.status, slow.headers['content-type']]).toEqual([504, 'text/html']);
		expect(slow.text).toContain('<title>504 Gateway Time-out</title>');
		expect((await call('GET', '/v1/reader/exports/decisions', bearer(t))).status).toBe(200);
	});
	test('rate limits: RateLimit-Policy and RateLimit headers, then 429', async () => {
		const small = await startFifthService({ rateLimit: { quota: 2, windowSeconds: 60 } });
		try {
			const t = await token(small.reader, small);
			const first = await call('GET', '/v1/reader/exports/decisions', bearer(t), undefined, small);
			expect(first.headers['ratelimit-policy']).toBe('"per-client";q=2;w=60');
			expect(first.headers.ratelimit).toMatch(/^"per-client";r=1;t=\d+$/);
			await call('GET', '/v1/reader/exports/decisions', bearer(t), undefined, small);
			const third = await call('GET', '/v1/reader/exports/decisions', bearer(t), undefined, small);
			expect(third.status).toBe(429);
			expect(third.headers.ratelimit).toMatch(/r=0/);
			expect(third.headers['retry-after']).toMatch(/^\d+$/);
			expect(third.headers['content-type']).toBe('application/problem+json');
		} finally {
			await small.close();
		}
	});
});

describe('writes', () => {
	test('RFC 9457 problems name each field', async () => {
		const reply = await postJson('/v1/reader/invitations', { name: 'X', email: 'not-an-email' });
		expect(reply.status).toBe(422);
		expect(reply.headers['content-type']).toBe('application/problem+json');
		expect(JSON.parse(reply.text)).toEqual(expect.objectContaining({
			type: expect.stringMatching(/^https:/), title: 'Validation Failed', status: 422,
			errors: [{ pointer: '/registration_no', detail: 'is required' }, { pointer: '/email', detail: 'is not a work email address' }],
		}));
	});
	test('Idempotency-Key replays the first answer with Idempotent-Replayed; another body is 422', async () => {
		const body = { name: 'Once Ltd', registration_no: 'HRB 2', email: 'x@once.example', ref: 'R1' };
		const first = await postJson('/v1/reader/invitations', body, { 'Idempotency-Key': 'k-1' });
		const again = await postJson('/v1/reader/invitations', body, { 'Idempotency-Key': 'k-1' });
		expect(first.status).toBe(201);
		expect(again.text).toBe(first.text);
		expect(again.headers['idempotent-replayed']).toBe('true');
		const other = await postJson('/v1/reader/invitations', { ...body, ref: 'R2' }, { 'Idempotency-Key': 'k-1' });
		expect(other.status).toBe(422);
	});
	test('import answers 207 with one result per row', async () => {
		const csv = 'name,registration_no,email,ref\r\nGood Co,HRB 3,a@good.example,G1\r\nBad Co,,b@bad.example,B1\r\n';
		const reply = await call('POST', '/v1/reader/invitations/imports', bearer(await token(), { 'Content-Type': 'text/csv' }), csv);
		expect(reply.status).toBe(207);
		expect(JSON.parse(reply.text)).toEqual({ rows: [
			{ row: 2, status: 201, id: expect.stringMatching(/^inv_/) },
			{ row: 3, status: 422, errors: [{ pointer: '/registration_no', detail: 'is required' }] },
		] });
	});
	test('policy run: 202 with a Location that 404s; the statement appears later', async () => {
		const t = await token();
		const count = async () => (JSON.parse((await call('GET', '/v1/reader/exports/statements?limit=50', bearer(t))).text).statements as unknown[]).length;
		const before = await count();
		const reply = await call('POST', '/v1/reader/policy-runs', bearer(t, { 'Content-Type': 'application/json' }), JSON.stringify({ ke: 'KE700102', policy: 'p1' }));
		expect(reply.status).toBe(202);
		expect((await call('GET', reply.headers.location as string, bearer(t))).status).toBe(404);
		expect(await count()).toBe(before);
		await new Promise((r) => setTimeout(r, 500));
		expect(await count()).toBe(before + 1);
	});
	test('verify route names the key verification_key_spki_pem', async () => {
		const reply = await call('GET', '/v1/public/reports/KS-2026000/verify');
		expect(JSON.parse(reply.text).signer.verification_key_spki_pem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
	});
});

describe('webhooks', () => {
	test('secret nested as 64 hex; deliveries signed t=<ms>, v1=<base64url>, every second one gzip, failures retried', async () => {
		const { leaves } = await certificates('Fifth Service test CA', { service: 'fifth-service' });
		const seen: Array<{ headers: IncomingMessage['headers']; body: Buffer }> = [];
		let refuse = 1;
		const receiver = await listenHttps(leaves.service, (req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				seen.push({ headers: req.headers, body: Buffer.concat(chunks) });
				res.writeHead(refuse-- > 0 ? 500 : 204).end();
			});
		});
		try {
			const created = await postJson('/v1/reader/webhooks', { endpoint_url: `${receiver.origin}/hook`, events: ['ledger_high'] }, {}, service.admin);
			expect(created.status).toBe(201);
			expect(created.text).toMatch(/"endpoint":\{"id":1844674407370955\d{4},/);
			const secret = JSON.parse(created.text).endpoint.signing.secret as string;
			expect(secret).toMatch(/^[0-9a-f]{64}$/);
			const [first] = await service.deliver('ledger_high', 'KE700101', 'high');
			expect(first.attempts.map((a) => a.status)).toEqual([500, 204]);
			await service.deliver('ledger_high', 'KE700101', 'high');
			expect(seen[2].headers['content-encoding']).toBe('gzip');
			for (const delivery of seen) {
				const raw = delivery.headers['content-encoding'] === 'gzip' ? gunzipSync(delivery.body) : delivery.body;
				const match = /^t=(\d{13}), v1=([A-Za-z0-9_-]{43})$/.exec(delivery.headers['service-signature'] as string);
				expect(match).not.toBeNull();
				const mac = createHmac('sha256', Buffer.from(secret, 'hex')).update(`${match![1]}.`).update(raw).digest();
				expect(timingSafeEqual(mac, Buffer.from(match![2], 'base64url'))).toBe(true);
				expect(raw.toString()).toMatch(/"ids":\{"organisation":"KE700101","registry_number":18446744073709550084\}/);
			}
		} finally {
			await receiver.close();
		}
	});
});
