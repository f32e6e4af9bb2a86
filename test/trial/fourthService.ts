// The fourth Service: an independent HTTPS implementation of the reader API spec, its "not shown" chosen
// as listed in test/trial/CHOICES.md. Routes live under /api (Base URL https://host:port/api).
import { createHash, generateKeyPairSync, randomBytes, sign, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { certificates } from '../tls/certificates';
import { listenHttps, type LocalHttpsServer } from '../tls/httpsServer';
import { DAY_MS, seed, type Company } from './fourthData';
import { deliver, eventBody } from './fourthDeliver';
import {
	checkQuery, Fault, NDJSON_TYPE, NEXT_CURSOR_HEADER, ndjsonPage, PageTokens, perPage, sendFault, sendJson, TSV_TYPE, tsvPage,
} from './fourthWire';
import {
	createInvitation, createPolicyRun, createWebhook, EVENT_TYPES, importInvitations, invitationJson, putSso, type WriteState,
} from './fourthWrites';

export const PREFIX = '/api';
export const TOKEN_HEADER = 'X-Auth-Token';
export const PASSKEY_HEADER = 'X-Passkey-Proof';

export interface FourthServiceOptions {
	port?: number;
	/** The clock the seed and windows count from (default: now). */
	now?: () => Date;
	readerToken?: string;
	adminToken?: string;
	/** A CA to trust, besides the system's, when delivering webhooks (a test receiver's). */
	deliveryCa?: string;
}

export interface FourthService {
	/** https://127.0.0.1:<port>/api */
	baseUrl: string;
	origin: string;
	/** PEM of the CA that signed the Service's certificate: trust it, switch nothing off. */
	ca: string;
	readerToken: string;
	adminToken: string;
	/** What a recent passkey ceremony would hand a reader admin (header X-Passkey-Proof), for PUT /v1/reader/sso. */
	passkeyProof: string;
	/** Every export answered, in order: the reader's access log. */
	accessLog: Array<{ at: string; route: string; ke?: string }>;
	/** Record exports, per company: what each company's own log would show. */
	companyLogs: Map<string, string[]>;
	/** Sends one signed event to every endpoint subscribed to its type; each endpoint's HTTP status (0: unreachable). */
	deliver(eventType: string, ids: Record<string, string>, severity?: string): Promise<Array<{ endpoint_id: string; status: number }>>;
	close(): Promise<void>;
}

type Role = 'reader' | 'reader_admin';
type Handler = (req: IncomingMessage, res: ServerResponse, query: URLSearchParams, params: string[], role: Role | null) => Promise<void> | void;
interface Route { method: string; pattern: string[]; handler: Handler; public?: boolean; admin?: boolean }

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** JSON with its keys sorted at every depth and no whitespace: the bytes a record signature covers. */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value);
}

export async function startFourthService(options: FourthServiceOptions = {}): Promise<FourthService> {
	const now = options.now ?? (() => new Date());
	const data = seed(now());
	const readerToken = options.readerToken ?? `rdr_${randomBytes(24).toString('base64url')}`;
	const adminToken = options.adminToken ?? `adm_${randomBytes(24).toString('base64url')}`;
	const passkeyProof = `pkp_${randomBytes(18).toString('base64url')}`;
	const signingKeys = generateKeyPairSync('ed25519');
	const publicKeyPem = signingKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
	const keyId = 'fourth-record-key-1';
	const pages = new PageTokens();
	const state: WriteState = { seed: data, now, endpoints: [], sso: null, serial: 0 };
	const accessLog: FourthService['accessLog'] = [];
	const companyLogs = new Map<string, string[]>();

	const sharedCompany = (ke: string): Company => {
		const company = data.companies.find((candidate) => candidate.ke === ke);
		if (!company?.shared) throw new Fault(404, 'not_shared', `No company ${ke} shares its record with you (never shared, or the share ended).`, { ke });
		return company;
	};
	const logExport = (route: string, ke?: string) => {
		const at = iso(now().getTime());
		accessLog.push({ at, route, ke });
		if (ke) companyLogs.set(ke, [...(companyLogs.get(ke) ?? []), `${at} record exported by reader`]);
	};

	function recordPayload(company: Company) {
		const report = company.reports[company.reports.length - 1];
		return {
			ke: company.ke, ks: report.ks, version: report.version, issued_at: report.issuedAt, shared_in_full: true,
			company: { name: company.name, registration_number: company.registrationNumber, country: company.country, register_status: company.registerStatus },
			findings: company.findings,
		};
	}

	/** A paged export: tab-separated (header on every page) or NDJSON, the next page named in X-Service-Next-Cursor. */
	function sendExport(res: ServerResponse, query: URLSearchParams, name: string, scope: string, columns: string[], rows: Array<Record<string, string | number | boolean | null>>) {
		const format = query.get('format');
		if (format !== 'csv' && format !== 'ndjson') {
			throw new Fault(400, 'invalid_parameter', format === null ? 'format is required: csv (tab-separated) or ndjson.' : `format "${format}" is not offered: use csv (tab-separated) or ndjson.`, { parameter: 'format' });
		}
		const size = perPage(query);
		const token = query.get('page_token');
		const offset = token === null ? 0 : pages.read(token, scope);
		const page = rows.slice(offset, offset + size);
		const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
		if (offset + size < rows.length) headers[NEXT_CURSOR_HEADER] = pages.issue(scope, offset + size);
		logExport(name);
		const body = Buffer.from(format === 'csv' ? tsvPage(columns, page) : ndjsonPage(page));
		res.writeHead(200, {
			...headers,
			'Content-Type': format === 'csv' ? TSV_TYPE : NDJSON_TYPE,
			'Content-Length': String(body.length),
			...(format === 'csv' ? { 'Content-Disposition': `attachment; filename="${name}.tsv"` } : {}),
		});
		res.end(body);
	}

	/** A paged JSON list: { results, has_more }, the next page named in X-Service-Next-Cursor. */
	function sendList(res: ServerResponse, query: URLSearchParams, scope: string, rows: unknown[]) {
		const size = perPage(query);
		const token = query.get('page_token');
		const offset = token === null ? 0 : pages.read(token, scope);
		const more = offset + size < rows.length;
		logExport(scope);
		sendJson(res, 200, { results: rows.slice(offset, offset + size), has_more: more }, more ? { [NEXT_CURSOR_HEADER]: pages.issue(scope, offset + size) } : {});
	}

	const routes: Route[] = [
		{
			method: 'GET', pattern: ['v1', 'reader', 'webhooks', 'catalogue'],
			handler: (_req, res, query) => {
				checkQuery(query, []);
				const results = EVENT_TYPES.map((eventType, i) => ({
					event_type: eventType,
					family: eventType.startsWith('ledger_') ? 'ledger' : null,
					sample: {
						event_type: eventType, alert_id: `alr_${String(9100 + i).padStart(8, '0')}`,
						ids: eventType === 'reader_invitation_status' ? { invitation: 'inv_005301' } : { organisation: data.companies[0].ke, report: data.companies[0].reports[0].ks },
						severity: eventType === 'ledger_high' ? 'high' : eventType.startsWith('ledger_') || eventType === 'finding_new' ? 'medium' : 'info',
						occurred_at: '2026-01-15T09:30:00Z',
					},
				}));
				sendJson(res, 200, { results, has_more: false });
			},
		},
		{
			method: 'POST', pattern: ['v1', 'reader', 'webhooks'], admin: true,
			handler: async (req, res, query) => {
				checkQuery(query, []);
				const created = await createWebhook(state, req);
				sendJson(res, 201, created, { Location: `${PREFIX}/v1/reader/webhooks/${created.endpoint.endpoint_id}`, 'Cache-Control': 'no-store' });
			},
		},
		{
			method: 'GET', pattern: ['v1', 'reader', 'exports', 'records', ':ke'],
			handler: (_req, res, query, [ke]) => {
				checkQuery(query, []);
				const company = sharedCompany(ke);
				const payload = recordPayload(company);
				const value = sign(null, Buffer.from(canonicalJson(payload)), signingKeys.privateKey).toString('base64');
				logExport('records', ke);
				sendJson(res, 200, { payload, signature: { algorithm: 'Ed25519', key_id: keyId, canonicalization: 'sorted-keys-compact-json', value } }, {
					'Content-Disposition': `attachment; filename="${company.ke}_${payload.ks}.json"`,
				});
			},
		},
		{
			method: 'GET', pattern: ['v1', 'public', 'reports', ':ks', 'verify'], public: true,
			handler: (_req, res, query, [ks]) => {
				checkQuery(query, []);
				const company = data.companies.find((candidate) => candidate.reports.some((report) => report.ks === ks));
				if (!company) throw new Fault(404, 'unknown_report', `No signed report ${ks} was ever issued.`, { ks });
				const at = company.reports.findIndex((report) => report.ks === ks);
				const latest = company.reports[company.reports.length - 1];
				const payloadSha = at === company.reports.length - 1 ? createHash('sha256').update(canonicalJson(recordPayload(company))).digest('hex') : null;
				sendJson(res, 200, {
					ks, ke: company.ke, authentic: true, current: latest.ks === ks, superseded_by: latest.ks === ks ? null : latest.ks,
					issued_at: company.reports[at].issuedAt, algorithm: 'Ed25519', key_id: keyId, public_key_pem: publicKeyPem,
					canonicalization: 'sorted-keys-compact-json', payload_sha256: payloadSha,
				});
			},
		},
		{
			method: 'GET', pattern: ['v1', 'reader', 'exports', 'portfolio'],
			handler: (_req, res, query) => {
				checkQuery(query, ['format', 'per_page', 'page_token']);
				const rows = data.companies.filter((company) => company.shared).map((company) => ({
					ke: company.ke, company_name: company.name, registration_number: company.registrationNumber, tier: company.tier,
					register_status: company.registerStatus, decision_due: company.decisionDue ? 'yes' : 'no', shared_since: company.sharedSince,
				}));
				sendExport(res, query, 'portfolio', 'portfolio', ['ke', 'company_name', 'registration_number', 'tier', 'register_status', 'decision_due', 'shared_since'], rows);
			},
		},
		{
			method: 'GET', pattern: ['v1', 'reader', 'exports', 'expiries'],
			handler: (_req, res, query) => {
				checkQuery(query, ['format', 'horizon_days', 'per_page', 'page_token']);
				const horizonRaw = query.get('horizon_days') ?? '30';
				if (!['30', '60', '90'].includes(horizonRaw)) throw new Fault(400, 'invalid_parameter', 'horizon_days must be 30, 60 or 90.', { parameter: 'horizon_days' });
				const horizon = Number(horizonRaw);
				const today = now().toISOString().slice(0, 10);
				const rows = data.expiries.flatMap((expiry) => {
					const daysLeft = Math.round((Date.parse(`${expiry.endsOn}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS);
					const visible = daysLeft >= 0 && daysLeft <= horizon && (expiry.ke === '' || data.companies.some((c) => c.ke === expiry.ke && c.shared));
					return visible ? [{ kind: expiry.kind, ke: expiry.ke || null, subject: expiry.subject, ends_on: expiry.endsOn, days_left: daysLeft }] : [];
				});
				sendExport(res, query, 'expiries', `expiries:${horizon}`, ['kind', 'ke', 'subject', 'ends_on', 'days_left'], rows);
			},
		},
		{
			method: 'GET', pattern: ['v1', 'reader', 'exports', 'invitations'],
			handler: (_req, res, query) => {
				checkQuery(query, ['format', 'per_page', 'page_token']);
				const rows = data.invitations.map(invitationJson);
				sendExport(res, query, 'invitations', 'invitations', Object.keys(rows[0]), rows);
			},
		},
		{
			method: 'GET', pattern: ['v1', 'reader', 'exports', 'decisions'],
			handler: (_req, res, query) => {
				checkQuery(query, ['per_page', 'page_token']);
				sendList(res, query, 'decisions', data.decisions.map((decision) => ({
					decision_id: decision.decisionId, ke: decision.ke, outcome: decision.outcome, decided_at: decision.decidedAt,
					decided_by: decision.decidedBy, note: decision.note, pack_id: decision.packId,
				})));
			},
		},
		{
			method: 'GET', pattern: ['v1', 'reader', 'exports', 'statements'],
			handler: (_req, res, query) => {
				checkQuery(query, ['per_page', 'page_token']);
				sendList(res, query, 'statements', data.statements.map((statement) => ({
					statement_id: statement.statementId, run_id: statement.runId, ke: statement.ke, ks: statement.ks,
					policy: statement.policy, created_at: statement.createdAt, observations: statement.observations,
				})));
			},
		},
		{
			method: 'GET', pattern: ['v1', 'reader', 'exports', 'audit-packs', ':ke', ':pack'],
			handler: (_req, res, query, [ke, packId]) => {
				checkQuery(query, []);
				const company = sharedCompany(ke);
				const pack = data.packs.find((candidate) => candidate.ke === ke && candidate.packId === packId);
				if (!pack) throw new Fault(404, 'unknown_pack', `No audit pack ${packId} exists for ${ke}.`, { ke, pack_id: packId });
				const decision = data.decisions.find((candidate) => candidate.decisionId === pack.decisionId);
				const report = company.reports[company.reports.length - 1];
				logExport('audit-packs', ke);
				sendJson(res, 200, {
					pack_id: pack.packId, ke, created_at: pack.createdAt,
					decision: decision ? { decision_id: decision.decisionId, outcome: decision.outcome, decided_at: decision.decidedAt, decided_by: decision.decidedBy } : null,
					evidence: [
						{ kind: 'record', ks: report.ks, sha256: createHash('sha256').update(canonicalJson(recordPayload(company))).digest('hex') },
						...data.statements.filter((statement) => statement.ke === ke).map((statement) => ({ kind: 'statement', statement_id: statement.statementId })),
						{ kind: 'note', text: decision?.note ?? '' },
					],
				});
			},
		},
		{
			method: 'POST', pattern: ['v1', 'reader', 'invitations', 'imports'],
			handler: async (req, res, query) => {
				checkQuery(query, []);
				sendJson(res, 200, await importInvitations(state, req));
			},
		},
		{
			method: 'POST', pattern: ['v1', 'reader', 'invitations'],
			handler: async (req, res, query) => {
				checkQuery(query, []);
				sendJson(res, 201, await createInvitation(state, req));
			},
		},
		{
			method: 'POST', pattern: ['v1', 'reader', 'policy-runs'],
			handler: async (req, res, query) => {
				checkQuery(query, []);
				sendJson(res, 201, await createPolicyRun(state, req, sharedCompany));
			},
		},
		{
			method: 'PUT', pattern: ['v1', 'reader', 'sso'], admin: true,
			handler: async (req, res, query) => {
				checkQuery(query, []);
				const proof = req.headers[PASSKEY_HEADER.toLowerCase()];
				if (typeof proof !== 'string' || !sameSecret(proof, passkeyProof)) {
					throw new Fault(403, 'recent_passkey_required', `Setting SSO needs a recent passkey: confirm with your passkey and send the proof in the ${PASSKEY_HEADER} header.`);
				}
				sendJson(res, 200, await putSso(state, req));
			},
		},
	];

	function authenticate(req: IncomingMessage): Role {
		const challenge = { 'WWW-Authenticate': `${TOKEN_HEADER} realm="reader-api"` };
		const sent = req.headers[TOKEN_HEADER.toLowerCase()];
		if (typeof sent !== 'string' || sent === '') {
			const elsewhere = req.headers.authorization !== undefined ? ' This Service does not read the Authorization header.' : '';
			throw new Fault(401, 'token_missing', `Send your access token in the ${TOKEN_HEADER} header.${elsewhere}`, {}, challenge);
		}
		if (sameSecret(sent, adminToken)) return 'reader_admin';
		if (sameSecret(sent, readerToken)) return 'reader';
		throw new Fault(401, 'token_invalid', `The token in ${TOKEN_HEADER} is not valid (revoked, mistyped or for another Service).`, {}, challenge);
	}

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'https://fourth.invalid');
		if (url.pathname !== PREFIX && !url.pathname.startsWith(`${PREFIX}/`)) {
			throw new Fault(404, 'no_such_route', `No route ${url.pathname}. Every route lives under ${PREFIX} (Base URL https://<host>${PREFIX}).`);
		}
		const segments = url.pathname.slice(PREFIX.length).split('/').filter((segment) => segment !== '').map((segment) => {
			try {
				return decodeURIComponent(segment);
			} catch {
				throw new Fault(400, 'malformed_path', 'The path is not valid percent-encoding.');
			}
		});
		const matches = routes.filter((route) => route.pattern.length === segments.length && route.pattern.every((part, i) => part.startsWith(':') || part === segments[i]));
		if (matches.length === 0) throw new Fault(404, 'no_such_route', `No route ${url.pathname}.`);
		const route = matches.find((candidate) => candidate.method === req.method);
		if (!route) throw new Fault(405, 'method_not_allowed', `${req.method} is not offered on ${url.pathname}.`, {}, { Allow: matches.map((m) => m.method).join(', ') });
		const role = route.public ? null : authenticate(req);
		if (route.admin && role !== 'reader_admin') throw new Fault(403, 'reader_admin_required', 'This action needs a reader admin token.');
		const params = route.pattern.flatMap((part, i) => (part.startsWith(':') ? [segments[i]] : []));
		await route.handler(req, res, url.searchParams, params, role);
	}

	const tls = await certificates('Fourth Service test CA', { service: 'fourth-service' });
	const server: LocalHttpsServer = await listenHttps(tls.leaves.service, (req, res) => {
		handle(req, res).catch((error: unknown) => {
			if (res.headersSent) return void res.destroy();
			if (error instanceof Fault) return sendFault(res, error);
			sendFault(res, new Fault(500, 'internal', 'The Service failed to answer; try again.'));
		});
	}, options.port ?? 0);

	return {
		baseUrl: `${server.origin}${PREFIX}`, origin: server.origin, ca: tls.ca, readerToken, adminToken, passkeyProof, accessLog, companyLogs,
		deliver: (eventType, ids, severity = 'info') => deliver(state.endpoints, eventBody(eventType, ids, severity, now()), now(), options.deliveryCa),
		close: () => server.close(),
	};
}

function sameSecret(sent: string, expected: string): boolean {
	const a = createHash('sha256').update(sent).digest();
	const b = createHash('sha256').update(expected).digest();
	return timingSafeEqual(a, b);
}
