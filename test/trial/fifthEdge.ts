// The fifth Service's edge: OAuth2 client-credentials tokens, rate limits, idempotency keys, gateway faults.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import { Problem } from './fifthWire';

export type Role = 'reader' | 'admin';
export interface Client { id: string; secret: string; role: Role }
export interface OAuthError { status: number; body: { error: string; error_description: string }; headers: Record<string, string> }

const same = (a: string, b: string) => timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
export const SCOPES = ['reader.read', 'reader.write', 'reader.admin'];

export class TokenIssuer {
	private readonly tokens = new Map<string, { role: Role; clientId: string; expiresAt: number }>();
	constructor(private readonly clients: Client[], private readonly lifetimeSeconds: number, private readonly now: () => number) {}

	/** RFC 6749 4.4: form body, client by HTTP Basic or client_id/client_secret in the body. */
	issue(authorization: string | undefined, form: URLSearchParams): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
		const fail = (status: number, error: string, description: string): OAuthError =>
			({ status, body: { error, error_description: description }, headers: status === 401 ? { 'WWW-Authenticate': 'Basic realm="fifth-oauth"' } : {} });
		if (form.get('grant_type') !== 'client_credentials') return fail(400, 'unsupported_grant_type', 'Only grant_type=client_credentials is offered.');
		let id = form.get('client_id') ?? '';
		let secret = form.get('client_secret') ?? '';
		if (authorization?.startsWith('Basic ')) {
			const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
			const colon = decoded.indexOf(':');
			id = decodeURIComponent(decoded.slice(0, colon));
			secret = decodeURIComponent(decoded.slice(colon + 1));
		}
		const client = this.clients.find((c) => same(c.id, id) && same(c.secret, secret));
		if (!client) return fail(401, 'invalid_client', 'Unknown client or wrong secret.');
		const scope = form.get('scope');
		if (scope !== null && scope.split(' ').some((s) => !SCOPES.includes(s) || (s === 'reader.admin' && client.role !== 'admin'))) {
			return fail(400, 'invalid_scope', `Scopes offered: ${SCOPES.join(' ')} (reader.admin for the admin client only).`);
		}
		const token = `ft_${randomBytes(24).toString('base64url')}`;
		this.tokens.set(token, { role: client.role, clientId: client.id, expiresAt: this.now() + this.lifetimeSeconds * 1000 });
		return {
			status: 200, headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
			body: { access_token: token, token_type: 'Bearer', expires_in: this.lifetimeSeconds, ...(scope !== null ? { scope } : {}) },
		};
	}

	/** The caller's role and client, or a 401 with an RFC 6750 challenge. */
	check(req: IncomingMessage): { role: Role; clientId: string } {
		const header = req.headers.authorization;
		if (!header?.startsWith('Bearer ')) {
			throw new Problem(401, 'Unauthorized', 'Send an access token from POST /oauth/token as Authorization: Bearer <token>.', [], { 'WWW-Authenticate': 'Bearer realm="fifth"' });
		}
		const entry = this.tokens.get(header.slice(7));
		if (!entry || entry.expiresAt <= this.now()) {
			const why = entry ? 'The access token expired' : 'The access token is unknown';
			throw new Problem(401, 'Unauthorized', `${why}: ask /oauth/token for a new one.`, [], { 'WWW-Authenticate': `Bearer realm="fifth", error="invalid_token", error_description="${why}"` });
		}
		return { role: entry.role, clientId: entry.clientId };
	}
}

/** Fixed-window limit per client, told in IETF RateLimit-Policy / RateLimit headers (draft-ietf-httpapi-ratelimit-headers). */
export class RateLimiter {
	private readonly windows = new Map<string, { start: number; used: number }>();
	constructor(private quota: number, private windowSeconds: number, private readonly now: () => number) {}

	/** A new limit from now on, every client's window started afresh. */
	set(quota: number, windowSeconds: number): void {
		this.quota = quota;
		this.windowSeconds = windowSeconds;
		this.windows.clear();
	}

	take(clientId: string): Record<string, string> {
		const at = this.now();
		let w = this.windows.get(clientId);
		if (!w || at - w.start >= this.windowSeconds * 1000) {
			w = { start: at, used: 0 };
			this.windows.set(clientId, w);
		}
		const reset = Math.max(1, Math.ceil((w.start + this.windowSeconds * 1000 - at) / 1000));
		const policy = `"per-client";q=${this.quota};w=${this.windowSeconds}`;
		if (w.used >= this.quota) {
			throw new Problem(429, 'Too Many Requests', `At most ${this.quota} requests per ${this.windowSeconds} s per client.`, [], {
				'RateLimit-Policy': policy, RateLimit: `"per-client";r=0;t=${reset}`, 'Retry-After': String(reset),
			});
		}
		w.used++;
		return { 'RateLimit-Policy': policy, RateLimit: `"per-client";r=${this.quota - w.used};t=${reset}` };
	}
}

export interface StoredAnswer { status: number; headers: Record<string, string>; body: Buffer }
export const REPLAY_HEADER = 'Idempotent-Replayed';

/** Idempotency-Key per client and route: the same key and body replays the first answer; another body is 422. */
export class IdempotencyStore {
	private readonly answers = new Map<string, { bodyHash: string; answer: StoredAnswer }>();
	key(clientId: string, route: string, key: string): string {
		return `${clientId}\u0000${route}\u0000${key}`;
	}
	lookup(slot: string, body: Buffer): StoredAnswer | undefined {
		const found = this.answers.get(slot);
		if (!found) return undefined;
		if (found.bodyHash !== createHash('sha256').update(body).digest('hex')) {
			throw new Problem(422, 'Idempotency Key Reused', 'This Idempotency-Key was already used with a different request body.', [{ pointer: '#/idempotency-key', detail: 'was used for another body' }]);
		}
		return found.answer;
	}
	store(slot: string, body: Buffer, answer: StoredAnswer): void {
		this.answers.set(slot, { bodyHash: createHash('sha256').update(body).digest('hex'), answer });
	}
}

/** A fault the proxy will answer in place of the Service: before it (nothing happens) or after (the write is done). */
export interface GatewayFault {
	status: 401 | 502 | 503 | 504;
	/** true: the request reaches the Service and is carried out, then the proxy loses the answer (502/504 only). */
	afterHandling?: boolean;
	/** Only requests whose method and path start match (default: any). */
	method?: string;
	pathPrefix?: string;
	/** 503 only: Retry-After as an HTTP-date this many seconds ahead (default 2). */
	retryAfterSeconds?: number;
}

export const httpDate = (ms: number) => new Date(ms).toUTCString();
