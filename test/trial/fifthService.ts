// The fifth Service: an independent HTTPS implementation of the reader API spec, its "not shown" chosen as listed
// in test/trial/FIFTH-CHOICES.md (OAuth2 client credentials, big-number JSON, Excel CSV, a proxy with HTML faults).
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { certificates } from '../tls/certificates';
import { listenHttps, type LocalHttpsServer } from '../tls/httpsServer';
import { BIG_BASE, seed } from './fifthData';
import { deliverAlert, type AlertBody, type DeliveryOutcome } from './fifthDeliver';
import { type GatewayFault, httpDate, IdempotencyStore, RateLimiter, REPLAY_HEADER, type Role, TokenIssuer } from './fifthEdge';
import {
	bigJson, CURSOR_REQUEST_HEADER, csvText, NEXT_CURSOR_HEADER, parseCsv, Problem, sendGatewayPage, sendProblem, utf16leWithBom, windows1252, type FieldProblem,
} from './fifthWire';

export interface FifthServiceOptions {
	port?: number;
	now?: () => Date;
	/** expires_in of issued tokens, seconds (default 120). */
	tokenLifetimeSeconds?: number;
	/** Requests per window per client before 429 (default 1000 per 60 s). */
	rateLimit?: { quota: number; windowSeconds: number };
	/** How long after a policy run its statement appears in the statements export, ms (default 3000). */
	statementDelayMs?: number;
	deliveryCa?: string;
	retryDelaysMs?: number[];
}

export interface FifthService {
	/** https://127.0.0.1:<port> (routes /oauth/token and /v1/...). */
	baseUrl: string;
	ca: string;
	tokenUrl: string;
	reader: { clientId: string; clientSecret: string };
	admin: { clientId: string; clientSecret: string };
	/** Queues a proxy fault for the next matching request. */
	injectGatewayFault(fault: GatewayFault): void;
	/** Requests per window per client from now on (every window starts afresh). */
	limitRate(quota: number, windowSeconds: number): void;
	/** Every answer sent, in order: method, path and status (the proxy's faults included). */
	answers: Array<{ method: string; path: string; status: number }>;
	/** Writes carried out, in order (what the Service did, whatever the proxy answered). */
	writes: Array<{ route: string; body: unknown }>;
	/** Sends a signed alert to every registered endpoint; every second delivery per endpoint is gzip-encoded. */
	deliver(eventType: string, ke: string, severity?: string): Promise<DeliveryOutcome[]>;
	close(): Promise<void>;
}

interface Ctx { req: IncomingMessage; res: ServerResponse; query: URLSearchParams; params: string[]; role: Role | null; body: Buffer; clientId: string }
interface Answer { status: number; headers?: Record<string, string>; body: Buffer | unknown }
interface Route { method: string; path: string[]; public?: boolean; admin?: boolean; write?: boolean; run: (ctx: Ctx) => Answer | Promise<Answer> }

const EVENT_TYPES = ['share_granted', 'share_revoked', 'report_superseded', 'finding_new', 'ledger_high', 'ledger_medium', 'ledger_low',
	'reader_tier_changed', 'reader_decision_due', 'reader_invitation_status', 'questionnaire_answered'];
const EMAIL = /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i;

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > 1_000_000) reject(new Problem(413, 'Payload Too Large', 'Bodies are limited to 1 MB.'));
			else chunks.push(chunk);
		});
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

function jsonBody(body: Buffer): Record<string, unknown> {
	try {
		const value = JSON.parse(body.toString('utf8')) as unknown;
		if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
	} catch { /* answered below */ }
	throw new Problem(400, 'Malformed Body', 'The body must be one JSON object.');
}

/** Field checks of one invitation, in the Service's own field names. */
export function invitationProblems(input: Record<string, unknown>): FieldProblem[] {
	const problems: FieldProblem[] = [];
	for (const field of ['name', 'registration_no', 'email']) {
		const value = input[field];
		if (typeof value !== 'string' || value.trim() === '') problems.push({ pointer: `/${field}`, detail: 'is required' });
	}
	if (typeof input.email === 'string' && input.email !== '' && !EMAIL.test(input.email)) problems.push({ pointer: '/email', detail: 'is not a work email address' });
	if (input.ref !== undefined && typeof input.ref !== 'string') problems.push({ pointer: '/ref', detail: 'must be text' });
	return problems;
}

export async function startFifthService(options: FifthServiceOptions = {}): Promise<FifthService> {
	const now = options.now ?? (() => new Date());
	const nowMs = () => now().getTime();
	const data = seed(now());
	const reader = { clientId: 'reader-app', clientSecret: randomBytes(18).toString('hex') };
	const admin = { clientId: 'reader-admin', clientSecret: randomBytes(18).toString('hex') };
	const issuer = new TokenIssuer([{ id: reader.clientId, secret: reader.clientSecret, role: 'reader' }, { id: admin.clientId, secret: admin.clientSecret, role: 'admin' }],
		options.tokenLifetimeSeconds ?? 120, nowMs);
	const limiter = new RateLimiter(options.rateLimit?.quota ?? 1000, options.rateLimit?.windowSeconds ?? 60, nowMs);
	const idempotency = new IdempotencyStore();
	const faults: GatewayFault[] = [];
	const writes: FifthService['writes'] = [];
	const answers: FifthService['answers'] = [];
	const endpoints: Array<{ id: bigint; url: string; secret: string; events: string[]; sent: number }> = [];
	const cursors = new Map<string, { scope: string; offset: number }>();
	const keys = generateKeyPairSync('ed25519');
	const publicPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
	let serial = 0n;
	const timers = new Set<NodeJS.Timeout>();

	const company = (ke: string) => {
		const found = data.companies.find((c) => c.ke === ke);
		if (!found?.shared) throw new Problem(404, 'Not Found', `No company ${ke} shares its record with you.`);
		return found;
	};

	/** One page: the cursor only from the Service-Cursor header (a query cursor is ignored); size from ?limit. */
	function page<T>(ctx: Ctx, scope: string, rows: T[]): { rows: T[]; headers: Record<string, string> } {
		const limitRaw = ctx.query.get('limit') ?? '10';
		const limit = Number(limitRaw);
		if (!Number.isInteger(limit) || limit < 1 || limit > 50) throw new Problem(400, 'Invalid Parameter', 'limit must be 1 to 50.', [{ pointer: '#/query/limit', detail: 'must be 1 to 50' }]);
		const sent = ctx.req.headers[CURSOR_REQUEST_HEADER.toLowerCase()];
		let offset = 0;
		if (typeof sent === 'string') {
			const found = cursors.get(sent);
			if (!found || found.scope !== scope) throw new Problem(400, 'Invalid Cursor', `The ${CURSOR_REQUEST_HEADER} header holds no cursor of this export.`);
			offset = found.offset;
		}
		const headers: Record<string, string> = {};
		if (offset + limit < rows.length) {
			const next = `c_${randomBytes(12).toString('base64url')}`;
			cursors.set(next, { scope, offset: offset + limit });
			headers[NEXT_CURSOR_HEADER] = next;
		}
		return { rows: rows.slice(offset, offset + limit), headers };
	}
	const needCsv = (ctx: Ctx) => {
		if (ctx.query.get('format') !== 'csv') throw new Problem(400, 'Invalid Parameter', 'format must be csv.', [{ pointer: '#/query/format', detail: 'must be csv' }]);
	};
	const alertBody = (eventType: string, ke: string, severity: string): AlertBody => {
		const target = data.companies.find((c) => c.ke === ke);
		return { event_type: eventType, alert_id: BIG_BASE - 900000n - (serial += 1n), ids: { organisation: ke, ...(target ? { registry_number: target.registryNumber } : {}) }, severity, occurred_at: now().toISOString() };
	};

	const routes: Route[] = [
		{ method: 'GET', path: ['v1', 'reader', 'webhooks', 'catalogue'], run: () => ({ status: 200, body: { event_types: EVENT_TYPES.map((t) => ({ event_type: t, sample: alertBody(t, data.companies[0].ke, t === 'ledger_high' ? 'high' : 'info') })) } }) },
		{
			method: 'POST', path: ['v1', 'reader', 'webhooks'], admin: true, write: true,
			run: ({ body }) => {
				const input = jsonBody(body);
				const url = input.endpoint_url;
				const errors: FieldProblem[] = [];
				if (typeof url !== 'string' || url === '') errors.push({ pointer: '/endpoint_url', detail: 'is required' });
				else if (!url.startsWith('https://')) errors.push({ pointer: '/endpoint_url', detail: 'must be an https URL' });
				const events = input.events === undefined ? EVENT_TYPES : input.events;
				if (!Array.isArray(events) || events.some((e) => !EVENT_TYPES.includes(e as string))) errors.push({ pointer: '/events', detail: 'must list known event types' });
				if (errors.length) throw new Problem(422, 'Validation Failed', 'The endpoint was not created.', errors);
				const endpoint = { id: BIG_BASE - 700n - BigInt(endpoints.length), url: url as string, secret: randomBytes(32).toString('hex'), events: events as string[], sent: 0 };
				endpoints.push(endpoint);
				return { status: 201, body: { endpoint: { id: endpoint.id, endpoint_url: endpoint.url, events: endpoint.events, signing: { algorithm: 'hmac-sha256', secret: endpoint.secret } } } };
			},
		},
		{
			method: 'GET', path: ['v1', 'reader', 'exports', 'records', ':ke'],
			run: ({ params }) => {
				const c = company(params[0]);
				const record = { ke: c.ke, ks: c.ks, registry_number: c.registryNumber, name: c.name, status: c.status, shared_in_full: true };
				const signature = sign(null, Buffer.from(bigJson(record)), keys.privateKey).toString('base64');
				return { status: 200, body: { record, signature: { alg: 'Ed25519', over: 'record as sent (compact JSON)', value: signature } } };
			},
		},
		{
			method: 'GET', path: ['v1', 'public', 'reports', ':ks', 'verify'], public: true,
			run: ({ params }) => {
				const c = data.companies.find((x) => x.ks === params[0]);
				if (!c) throw new Problem(404, 'Not Found', `No report ${params[0]}.`);
				return { status: 200, body: { ks: c.ks, ke: c.ke, genuine: true, signer: { alg: 'Ed25519', verification_key_spki_pem: publicPem } } };
			},
		},
		{
			method: 'GET', path: ['v1', 'reader', 'exports', 'portfolio'],
			run: (ctx) => {
				needCsv(ctx);
				const { rows, headers } = page(ctx, 'portfolio', data.companies.filter((c) => c.shared));
				const text = csvText(['ke', 'company_name', 'registry_number', 'tier', 'status', 'decision_due'], rows.map((c) => ({
					ke: c.ke, company_name: c.name, registry_number: c.registryNumber, tier: c.tier, status: c.status, decision_due: c.decisionDue ? 'yes' : 'no',
				})), ',');
				return { status: 200, headers: { ...headers, 'Content-Type': 'text/csv; charset=windows-1252' }, body: windows1252(text) };
			},
		},
		{
			method: 'GET', path: ['v1', 'reader', 'exports', 'expiries'],
			run: (ctx) => {
				needCsv(ctx);
				const { rows, headers } = page(ctx, 'expiries', data.expiries);
				const text = csvText(['kind', 'ke', 'subject', 'ends_on', 'window_days'], rows.map((e) => ({ kind: e.kind, ke: e.ke, subject: e.subject, ends_on: e.endsOn, window_days: e.window })), ',');
				return { status: 200, headers: { ...headers, 'Content-Type': 'text/csv; charset=utf-16le' }, body: utf16leWithBom(text) };
			},
		},
		{
			method: 'GET', path: ['v1', 'reader', 'exports', 'invitations'],
			run: (ctx) => {
				needCsv(ctx);
				const { rows, headers } = page(ctx, 'invitations', data.invitations);
				const text = csvText(['id', 'name', 'registration_no', 'email', 'ref', 'status', 'sent_at'], rows.map((i) => ({
					id: i.id, name: i.name, registration_no: i.registrationNo, email: i.email, ref: i.ref, status: i.status, sent_at: i.sentAt,
				})), ';');
				return { status: 200, headers: { ...headers, 'Content-Type': 'text/csv; charset=utf-8' }, body: Buffer.from(`sep=;\r\n${text}`) };
			},
		},
		{
			method: 'GET', path: ['v1', 'reader', 'exports', 'decisions'],
			run: (ctx) => {
				const { rows, headers } = page(ctx, 'decisions', data.decisions);
				return { status: 200, headers, body: { decisions: rows.map((d) => ({ id: d.id, ke: d.ke, registry_number: d.registryNumber, outcome: d.outcome, decided_at: d.decidedAt, pack_id: d.packId })) } };
			},
		},
		{
			method: 'GET', path: ['v1', 'reader', 'exports', 'statements'],
			run: (ctx) => {
				const { rows, headers } = page(ctx, 'statements', data.statements);
				return { status: 200, headers, body: { statements: rows.map((s) => ({ id: s.id, ke: s.ke, registry_number: s.registryNumber, policy: s.policy, created_at: s.createdAt, observations: s.observations })) } };
			},
		},
		{
			method: 'GET', path: ['v1', 'reader', 'exports', 'audit-packs', ':ke', ':pack'],
			run: ({ params }) => {
				company(params[0]);
				const d = data.decisions.find((x) => x.ke === params[0] && x.packId === params[1]);
				if (!d) throw new Problem(404, 'Not Found', `No audit pack ${params[1]} for ${params[0]}.`);
				return { status: 200, body: { pack_id: d.packId, ke: d.ke, decision_id: d.id, evidence: [{ kind: 'decision', outcome: d.outcome }] } };
			},
		},
		{
			method: 'POST', path: ['v1', 'reader', 'invitations'], write: true,
			run: ({ body }) => {
				const input = jsonBody(body);
				const errors = invitationProblems(input);
				if (errors.length) throw new Problem(422, 'Validation Failed', 'The invitation was not sent.', errors);
				const inv = { id: `inv_${8800 + data.invitations.length}`, name: input.name as string, registrationNo: input.registration_no as string, email: input.email as string, ref: (input.ref as string) ?? '', status: 'opened', sentAt: now().toISOString().slice(0, 10) };
				data.invitations.push(inv);
				writes.push({ route: 'invitations', body: input });
				return { status: 201, body: { id: inv.id, name: inv.name, registration_no: inv.registrationNo, email: inv.email, ref: inv.ref, status: 'sent' } };
			},
		},
		{
			method: 'POST', path: ['v1', 'reader', 'invitations', 'imports'], write: true,
			run: ({ body }) => {
				const [header, ...lines] = parseCsv(body.toString('utf8'));
				if (!header) throw new Problem(400, 'Malformed Body', 'Send one CSV with a header line: name,registration_no,email,ref.');
				const results = lines.map((cells, i) => {
					const input: Record<string, unknown> = Object.fromEntries(header.map((h, j) => [h.trim(), cells[j] ?? '']));
					const errors = invitationProblems(input);
					if (errors.length) return { row: i + 2, status: 422, errors };
					const id = `inv_${8800 + data.invitations.length}`;
					data.invitations.push({ id, name: input.name as string, registrationNo: input.registration_no as string, email: input.email as string, ref: String(input.ref ?? ''), status: 'opened', sentAt: now().toISOString().slice(0, 10) });
					return { row: i + 2, status: 201, id };
				});
				writes.push({ route: 'imports', body: results.length });
				return { status: 207, body: { rows: results } };
			},
		},
		{
			method: 'POST', path: ['v1', 'reader', 'policy-runs'], write: true,
			run: ({ body }) => {
				const input = jsonBody(body);
				if (typeof input.ke !== 'string') throw new Problem(422, 'Validation Failed', 'The run was not started.', [{ pointer: '/ke', detail: 'is required' }]);
				const c = company(input.ke);
				const runRef = `run_${randomBytes(6).toString('hex')}`;
				writes.push({ route: 'policy-runs', body: input });
				const timer = setTimeout(() => {
					timers.delete(timer);
					data.statements.push({ id: 9007199254740993n + 100n + BigInt(data.statements.length), ke: c.ke, registryNumber: c.registryNumber, policy: String(input.policy ?? 'default'), createdAt: now().toISOString(), observations: [`run ${runRef}`] });
				}, options.statementDelayMs ?? 3000);
				timers.add(timer);
				return { status: 202, headers: { Location: `/v1/reader/policy-runs/jobs/${runRef}` }, body: { run_ref: runRef, state: 'queued' } };
			},
		},
		{
			method: 'PUT', path: ['v1', 'reader', 'sso'], admin: true, write: true,
			run: ({ body, req }) => {
				if (req.headers['service-passkey-assertion'] === undefined) throw new Problem(403, 'Recent Passkey Required', 'Confirm with a passkey and send Service-Passkey-Assertion.');
				const input = jsonBody(body);
				return { status: 200, body: { provider_type: input.provider_type, email_domains: input.email_domains, group_roles: input.group_roles } };
			},
		},
	];

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'https://fifth.invalid');
		const fault = faults.findIndex((f) => (!f.method || f.method === req.method) && (!f.pathPrefix || url.pathname.startsWith(f.pathPrefix)));
		const pending = fault >= 0 ? faults.splice(fault, 1)[0] : undefined;
		if (pending && !pending.afterHandling) {
			return sendGatewayPage(res, pending.status, pending.status === 503 ? { 'Retry-After': httpDate(nowMs() + (pending.retryAfterSeconds ?? 2) * 1000) } : {});
		}
		const body = await readBody(req);
		if (url.pathname === '/oauth/token' && req.method === 'POST') {
			const answer = issuer.issue(req.headers.authorization, new URLSearchParams(body.toString('utf8')));
			res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
			return void res.end(JSON.stringify(answer.body));
		}
		const segments = url.pathname.split('/').filter((s) => s !== '');
		const matching = routes.filter((r) => r.path.length === segments.length && r.path.every((p, i) => p.startsWith(':') || p === segments[i]));
		const route = matching.find((r) => r.method === req.method);
		if (!route) throw new Problem(matching.length ? 405 : 404, matching.length ? 'Method Not Allowed' : 'Not Found', `No ${req.method} ${url.pathname}.`);
		const who = route.public ? null : issuer.check(req);
		const limitHeaders = who ? limiter.take(who.clientId) : {};
		if (route.admin && who?.role !== 'admin') throw new Problem(403, 'Forbidden', 'This write needs the admin client.', [], limitHeaders);
		const params = route.path.flatMap((p, i) => (p.startsWith(':') ? [segments[i]] : []));
		const key = req.headers['idempotency-key'];
		const slot = route.write && typeof key === 'string' && who ? idempotency.key(who.clientId, url.pathname, key) : undefined;
		const replay = slot ? idempotency.lookup(slot, body) : undefined;
		if (replay) {
			res.writeHead(replay.status, { ...replay.headers, ...limitHeaders, [REPLAY_HEADER]: 'true' });
			return void res.end(replay.body);
		}
		const out = await route.run({ req, res, query: url.searchParams, params, role: who?.role ?? null, body, clientId: who?.clientId ?? '' });
		const bytes = Buffer.isBuffer(out.body) ? out.body : Buffer.from(bigJson(out.body));
		const answer = { status: out.status, headers: { 'Content-Type': 'application/json', ...out.headers }, body: bytes };
		if (slot) idempotency.store(slot, body, answer);
		if (pending?.afterHandling) return sendGatewayPage(res, pending.status);
		res.writeHead(answer.status, { ...answer.headers, ...limitHeaders, 'Content-Length': String(answer.body.length) });
		res.end(answer.body);
	}

	const tls = await certificates('Fifth Service test CA', { service: 'fifth-service' });
	const server: LocalHttpsServer = await listenHttps(tls.leaves.service, (req, res) => {
		res.on('finish', () => answers.push({ method: req.method ?? '', path: new URL(req.url ?? '/', 'https://fifth.invalid').pathname, status: res.statusCode }));
		handle(req, res).catch((error: unknown) => {
			if (res.headersSent) return void res.destroy();
			sendProblem(res, error instanceof Problem ? error : new Problem(500, 'Internal Server Error', 'The Service failed; try again.'));
		});
	}, options.port ?? 0);

	return {
		baseUrl: server.origin, ca: tls.ca, tokenUrl: `${server.origin}/oauth/token`, reader, admin, writes,
		injectGatewayFault: (fault) => void faults.push(fault),
		limitRate: (quota, windowSeconds) => limiter.set(quota, windowSeconds),
		answers,
		deliver: async (eventType, ke, severity = 'info') => await Promise.all(endpoints.filter((e) => e.events.includes(eventType)).map((e) =>
			deliverAlert(e.url, e.secret, alertBody(eventType, ke, severity), { gzip: e.sent++ % 2 === 1, ca: options.deliveryCa, retryDelaysMs: options.retryDelaysMs, now: nowMs }))),
		close: async () => {
			for (const t of timers) clearTimeout(t);
			await server.close();
		},
	};
}
