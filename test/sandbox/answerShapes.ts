import { csvLine, defaultCsvFormat } from './csv';

/**
 * Shapes a Service may give its answers where the spec says "not shown", beyond the names a dialect
 * uses: each a parameter of the sandbox, independent of the others.
 */
export interface AnswerShapes {
	/** The catalogue as a list, or as an object keyed by event type. */
	catalogue: 'list' | 'keyed';
	/** How many wrapper objects stand around a created endpoint (0: the endpoint itself). */
	endpointNesting: number;
	/**
	 * The invitation import's per-row answer as JSON, as CSV (text/csv), or as `207 Multi-Status` with each row's
	 * own HTTP status (201 or 422), its `id`, and a refused row's words in `errors: [{pointer, detail}]`.
	 */
	importAs: 'json' | 'csv' | 'multiStatus';
	/** Setting SSO without a recent passkey: 403 with a code, 401 with `WWW-Authenticate: Passkey`, or 428 Precondition Required with a code. */
	passkeyStatus: 401 | 403 | 428;
	/** A JSON export page as `{"data": [...]}`, or as JSON lines (`application/x-ndjson`, one row a line). */
	jsonListsAs: 'object' | 'jsonLines';
	/** An export page with no rows: 200 with an empty list, or 204 No Content. */
	emptyListAs: 200 | 204;
	/** Error bodies as `application/json`, or as RFC 9457 `application/problem+json` ({type, title, status, detail}). */
	errorsAs: 'json' | 'problem';
	/** How a 429 says when to retry: `Retry-After` (seconds), `RateLimit-Reset` (seconds) or `X-RateLimit-Reset` (Unix time). */
	/**
	 * How a 429 says how long to wait: Retry-After in seconds or as an HTTP-date, RateLimit-Reset (with
	 * RateLimit-Remaining: 0), X-RateLimit-Reset as a Unix time, RateLimit as draft-ietf-httpapi-ratelimit-headers
	 * writes it (`"default";r=0;t=30`, with its RateLimit-Policy), or RateLimit-Policy's window alone.
	 */
	rateLimitHeader: RateLimitForm;
	/** A created endpoint's secret as text, or in an object (`{"value": ...}`) under its secret-named key. */
	secretInObject: boolean;
	/** The import answer numbers rows 1..n, or by line of the uploaded file (the header is line 1). */
	importNumbering: 'row' | 'line';
	/** The verify route's public key, digest and signature forms. */
	verification: VerificationForms;
	/** JSON answers and export pages gzip-compressed (`Content-Encoding: gzip`) when the client accepts it. */
	compressed: boolean;
	/** An OpenAPI document at /openapi.json in the dialect's own request names (routes/apiDocument.ts); off (no route) unless set. */
	apiDocument?: boolean;
}

export interface VerificationForms {
	/** `raw-*`: Ed25519's 32 bytes, an EC key's point, an RSA key's PKCS#1 DER; `pkcs1-pem` an RSA key's `RSA PUBLIC KEY` (SPKI PEM for others). */
	publicKey: 'spki-base64' | 'pem' | 'jwk' | 'raw-hex' | 'raw-base64url' | 'spki-hex' | 'pkcs1-pem' | 'jwk-text';
	/**
	 * `hex`/`base64` under a field named for the algorithm (`sha256`, `sha512`), `nested` `{"digest": {"alg", "value"}}`,
	 * `bare` a `digest` with no algorithm (its size says it), `prefixed` `SHA-512=<base64>` (RFC 3230), `structured`
	 * `content_digest: "sha-512=:<base64>:"` (RFC 9530), `colon` `sha512:<hex>`, `sibling` a `digest_algorithm` field beside it.
	 */
	digest: 'hex' | 'base64' | 'nested' | 'bare' | 'prefixed' | 'structured' | 'colon' | 'sibling';
	signature: 'base64' | 'hex' | 'base64url' | 'nested';
	/** The record's digest: SHA-256 as documented, or another. */
	digestSuite: DigestSuite;
	/** The record's signature: Ed25519 as documented, or ECDSA, RSA-PSS, RSA PKCS#1 v1.5 (records.ts). */
	signatureSuite: SignatureSuiteName;
	/** ECDSA signatures as DER or raw r‖s (IEEE P1363, as JWS writes them). */
	ecdsaEncoding: 'der' | 'p1363';
	/** Whether `algorithm` names the suite; where not, the key says it (an RSA key its JWK `alg`; else `algorithm` after all). */
	namesAlgorithm: boolean;
	/** Where the key is: `public_key` (default), `public_key_pem`, `{"verification": {"key"}}`, or a list `{"keys": [key]}`. */
	keyPlace?: 'public_key' | 'public_key_pem' | 'verification.key' | 'keys';
}

export type DigestSuite = 'sha256' | 'sha384' | 'sha512';
export type SignatureSuiteName = 'Ed25519' | 'ES256' | 'ES384' | 'PS256' | 'PS384' | 'PS512' | 'RS256' | 'RS384' | 'RS512';
export const documentedVerification: VerificationForms = {
	publicKey: 'spki-base64',
	digest: 'hex',
	signature: 'base64',
	digestSuite: 'sha256',
	signatureSuite: 'Ed25519',
	ecdsaEncoding: 'der',
	namesAlgorithm: true,
};

export const defaultAnswerShapes: AnswerShapes = {
	catalogue: 'list',
	endpointNesting: 0,
	importAs: 'json',
	passkeyStatus: 403,
	jsonListsAs: 'object',
	emptyListAs: 200,
	errorsAs: 'json',
	rateLimitHeader: 'Retry-After',
	secretInObject: false,
	importNumbering: 'row',
	verification: documentedVerification,
	compressed: false,
};

export type RateLimitForm = 'Retry-After' | 'Retry-After-Date' | 'RateLimit-Reset' | 'X-RateLimit-Reset' | 'RateLimit' | 'RateLimit-Policy';
export const RATE_LIMIT_FORMS: readonly RateLimitForm[] = ['Retry-After', 'Retry-After-Date', 'RateLimit-Reset', 'X-RateLimit-Reset', 'RateLimit', 'RateLimit-Policy'];

/** The 429 headers asking to wait `seconds`, as `form` (by default the dialect's) says them. */
export function rateLimitHeaders(shapes: AnswerShapes, seconds: number, nowMs = Date.now(), form: RateLimitForm = shapes.rateLimitHeader): Record<string, string> {
	switch (form) {
		case 'X-RateLimit-Reset':
			return { 'X-RateLimit-Reset': String(Math.ceil(nowMs / 1000) + seconds) };
		case 'Retry-After-Date':
			// Whole seconds, rounded up: never earlier than the wait asked.
			return { 'Retry-After': new Date((Math.ceil(nowMs / 1000) + seconds) * 1000).toUTCString() };
		case 'RateLimit':
			return { RateLimit: `"default";r=0;t=${seconds}`, 'RateLimit-Policy': '"default";q=100;w=3600' };
		case 'RateLimit-Policy':
			return { 'RateLimit-Policy': `"burst";q=1;w=${seconds}` };
		case 'RateLimit-Reset':
			return { 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(seconds) };
		default:
			return { 'Retry-After': String(seconds) };
	}
}

const SECRET_KEYS = ['secret', 'secret_key', 'signing_secret', 'signingSecret'];

/** The secret in an object under its own key, at any depth: `{"secret": {"value": ...}}`. */
function secretWrapped(body: unknown): unknown {
	if (!isFields(body)) return body;
	const out: Fields = {};
	for (const [key, value] of Object.entries(body)) {
		out[key] = SECRET_KEYS.includes(key) && typeof value === 'string' ? { type: 'hmac-sha256', value } : secretWrapped(value);
	}
	return out;
}

type Fields = Record<string, unknown>;
const isFields = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value);
const WRAPPERS = ['result', 'webhook', 'endpoint', 'payload'];

/** An import row (in whichever dialect's words) as a 207 Multi-Status row: its own status, `id`, `errors`. */
function multiStatusRow(row: Fields): Fields {
	const { ok, check, reason, invitation_id: snake, invitationId: camel, status: worded, ...rest } = row;
	const accepted = ok === true || worded === 'accepted';
	const id = snake ?? camel;
	return { ...rest, status: accepted ? 201 : 422, ...(id !== undefined ? { id } : {}), ...(accepted ? {} : { errors: [{ pointer: '/work_email', detail: check ?? reason }] }) };
}

/** The list in a worded answer, and how to put another value in its place. */
function listIn(body: unknown): { list: Fields[]; put: (value: unknown) => unknown } | undefined {
	if (Array.isArray(body)) return { list: body as Fields[], put: (value) => value };
	if (!isFields(body)) return undefined;
	const key = Object.keys(body).find((name) => Array.isArray(body[name]));
	return key === undefined ? undefined : { list: body[key] as Fields[], put: (value) => ({ ...body, [key]: value }) };
}

/** A JSON answer of `method path` shaped as `shapes` says: the body to send, or CSV text. */
export function shapeAnswer(shapes: AnswerShapes, method: string, path: string, body: unknown): { json: unknown; status?: number } | { csv: string } {
	if (path === '/v1/reader/webhooks/catalogue' && shapes.catalogue === 'keyed') {
		const found = listIn(body);
		if (found) {
			const keyed: Record<string, unknown> = {};
			for (const entry of found.list) {
				const typeKey = ['event_type', 'type'].find((name) => typeof entry[name] === 'string')!;
				const { [typeKey]: type, ...rest } = entry;
				keyed[type as string] = rest;
			}
			return { json: found.put(keyed) };
		}
	}
	if (path === '/v1/reader/webhooks' && method === 'POST' && (shapes.endpointNesting > 0 || shapes.secretInObject)) {
		let wrapped = shapes.secretInObject ? secretWrapped(body) : body;
		for (let depth = shapes.endpointNesting - 1; depth >= 0; depth--) wrapped = { [WRAPPERS[depth % WRAPPERS.length]]: wrapped };
		return { json: wrapped };
	}
	if (path === '/v1/reader/invitations/imports' && shapes.importNumbering === 'line') {
		const found = listIn(body);
		// Numbered by line of the uploaded file: the header is line 1, the first row line 2.
		if (found) body = found.put(found.list.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, (key === 'row' || key === 'line') && typeof value === 'number' ? value + 1 : value]))));
	}
	if (path === '/v1/reader/invitations/imports' && shapes.importAs === 'multiStatus') {
		const found = listIn(body);
		if (found) return { json: found.put(found.list.map(multiStatusRow)), status: 207 };
	}
	if (path === '/v1/reader/invitations/imports' && shapes.importAs === 'csv') {
		const found = listIn(body);
		if (found) {
			// CSV cannot nest: the row's own data stays out.
			const columns = [...new Set(found.list.flatMap((row) => Object.keys(row).filter((key) => !isFields(row[key]))))];
			const lines = found.list.map((row) => csvLine(columns.map((column) => row[column] as string | number | boolean | undefined)));
			return { csv: csvLine(columns, defaultCsvFormat) + lines.join('') };
		}
	}
	return { json: body };
}
