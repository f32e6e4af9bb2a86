import { randomBytes } from 'node:crypto';

import { defaultAnswerShapes, type AnswerShapes } from './answerShapes';
import { defaultCsvFormat, type CsvFormat } from './csv';
import { eventCatalogue } from './events';
import { defaultRequestDialect, nameFor, type RequestDialect } from './requestDialect';
import { immediateJobs, type JobAnswers } from './jobs';

/**
 * Where the spec says "not shown", the sandbox has to choose; a dialect is one set of choices.
 * `default` is what docs/service-choices.md describes; `alt` chooses differently in every
 * such place, as an independently written Service might, so tests can tell a node that reads what
 * the Service said from one that only matches the sandbox's own guesses.
 */
export type DialectName = 'default' | 'alt';

export interface Dialect {
	name: DialectName;
	/** Query parameter names the Service reads for the cursor and the page size. */
	cursorParameter: string;
	/**
	 * Where it reads the cursor sent back: the query (under cursorParameter), or only a request header;
	 * then a cursor in the query is ignored (the first page again), and each cursor it hands out is new.
	 */
	cursorIn: CursorIn;
	pageSizeParameter: string;
	/** The `format` value that asks for JSON. */
	jsonFormat: string;
	/** A new signing secret, and the HMAC key bytes of one. */
	newSecret(): string;
	signatureEncoding: 'hex' | 'base64';
	/** The unit of `t` in Service-Signature, and what separates its parts. */
	timestampUnit: 'seconds' | 'milliseconds';
	signatureSeparator: string;
	/** How CSV exports are written: delimiter, header row per page, line ends, byte order mark, quoting. */
	csv: CsvFormat;
	/** The order of a CSV export's columns (the node keys rows by the header row, whatever the order). */
	csvColumns(columns: readonly string[]): readonly string[];
	/** The name of the portfolio export's KE column: the spec shows KE as the row's identifier, not its column's name. */
	portfolioKeColumn: string;
	/** Whether the code of a 404 for a company that does not share says so (the spec names no codes). */
	saysNotShared: boolean;
	/** The status of a company route when the company does not share (the spec: 404; `410 Gone` is as common). */
	notSharedStatus: 404 | 410;
	/** How it reads the access token, and the WWW-Authenticate (and words) of its 401 when the token is not there. */
	signIn: SandboxSignIn;
	/** How answers are shaped beyond their names (answerShapes.ts). */
	answers: AnswerShapes;
	/** What it reads in requests: field and parameter names, unknown names refused or ignored, the import's upload form (requestDialect.ts). */
	request: RequestDialect;
	/** The code and words of an error, as this dialect puts them. */
	errorWords(code: string, message: string): { code: string; message: string };
	/** The body of an error answer. */
	errorBody(status: number, code: string, message: string): unknown;
	/** A successful JSON answer of `method path`, as this dialect words it. */
	answer(method: string, path: string, body: unknown): unknown;
	/** The JSON types of event body values, and whether bodies carry more than the spec's five fields. */
	eventValues: EventValues;
	/** How the record and the audit pack are handed over: by their route, or by a redirect to the object store (objectStore.ts). */
	downloads: Downloads;
	/** Entries per page of the JSON lists that are not exports (the catalogue, the endpoint listing), paged by X-Service-Next-Cursor as any list may be; 0: all in one answer. */
	listPageSize: number;
	/** Work done later: the import as a job (202), a policy run's statement listed later (jobs.ts). */
	jobs: JobAnswers;
	/** Plain JSON, or JSON:API (jsonApi.ts): bodies under data.attributes with the types of its `<scope>.type` names, resources, errors[]. */
	envelope: 'none' | 'jsonapi';
}

export type CursorIn = { in: 'query' } | { in: 'header'; header: string };

/** A file served by its route, or by a redirect (`status`) to a pre-signed URL that redirects `hops` more times inside the store. */
export type Downloads = { via: 'direct' } | { via: 'objectStore'; status: 301 | 302 | 303 | 307 | 308; hops: number };

export interface EventValues {
	alertId: 'text' | 'integer';
	severity: 'text' | 'number';
	/** ISO 8601 text, or Unix seconds. */
	occurredAt: 'iso' | 'unix';
	/** Fields beyond the spec's five; `colliding` adds `ke` and `company` too, the names the trigger adds. */
	extraFields: 'none' | 'extra' | 'colliding';
}

/** The token as Bearer, in a header of its own, or after another word in Authorization; `challenge` says which on a 401. */
export type SandboxSignIn =
	| { form: 'bearer'; challenge: string; words: string }
	| { form: 'header'; header: string; challenge: string; words: string }
	| { form: 'scheme'; scheme: string; challenge: string; words: string };

export const bearerSignIn: SandboxSignIn = { form: 'bearer', challenge: 'Bearer', words: 'Send the service access token as "Authorization: Bearer <token>".' };

export const defaultEventValues: EventValues = { alertId: 'text', severity: 'text', occurredAt: 'iso', extraFields: 'none' };

export const defaultDialect: Dialect = {
	name: 'default',
	cursorParameter: 'cursor',
	cursorIn: { in: 'query' },
	pageSizeParameter: 'page_size',
	jsonFormat: 'json',
	newSecret: () => `whsec_${randomBytes(32).toString('base64')}`,
	signatureEncoding: 'hex',
	timestampUnit: 'seconds',
	signatureSeparator: ',',
	csv: defaultCsvFormat,
	answers: defaultAnswerShapes,
	request: defaultRequestDialect,
	csvColumns: (columns) => columns,
	portfolioKeColumn: 'ke',
	saysNotShared: true,
	notSharedStatus: 404,
	signIn: bearerSignIn,
	errorWords: (code, message) => ({ code, message }),
	errorBody: (_status, code, message) => ({ error: { code, message } }),
	answer: (_method, _path, body) => body,
	eventValues: defaultEventValues,
	downloads: { via: 'direct' },
	listPageSize: 0,
	jobs: immediateJobs,
	envelope: 'none',
};

type Fields = Record<string, unknown>;
const isFields = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value);

export const altDialect: Dialect = {
	name: 'alt',
	cursorParameter: 'after',
	cursorIn: { in: 'query' },
	pageSizeParameter: 'limit',
	jsonFormat: 'application/json',
	// 32 key bytes as 64 hex characters, no prefix: also valid base64, so only the credential can say which.
	newSecret: () => randomBytes(32).toString('hex'),
	signatureEncoding: 'base64',
	timestampUnit: 'milliseconds',
	signatureSeparator: '; ',
	// Semicolons, as spreadsheets write them where the decimal mark is a comma; the header row once.
	csv: { delimiter: ';', headerEveryPage: false, lineEnd: '\r\n', bom: true, quoteAll: false },
	// The catalogue keyed by event type, the created endpoint one level deeper, a passkey asked with 401.
	answers: {
		catalogue: 'keyed',
		endpointNesting: 1,
		importAs: 'json',
		passkeyStatus: 401,
		// JSON lines, 204 for an empty export, RFC 9457 errors, RateLimit-Reset, the secret in an object,
		// import answers by file line, a JWK key with nested digest and signature, gzip.
		jsonListsAs: 'jsonLines',
		emptyListAs: 204,
		errorsAs: 'problem',
		rateLimitHeader: 'RateLimit-Reset',
		secretInObject: true,
		importNumbering: 'line',
		// SHA-512 and ECDSA P-256 signatures as raw r‖s (ES256, as JWS writes them).
		verification: { publicKey: 'jwk', digest: 'nested', signature: 'nested', digestSuite: 'sha512', signatureSuite: 'ES256', ecdsaEncoding: 'p1363', namesAlgorithm: true, keyPlace: 'verification.key' },
		compressed: true,
	},
	// Integer alert ids and more fields than the spec's five (numeric severities and Unix times are drawn by
	// the dialect property only: the examples' chat messages, checked end to end, word severity as text).
	eventValues: { alertId: 'integer', severity: 'text', occurredAt: 'iso', extraFields: 'extra' },
	// Files from an object store on another origin, through a 307 and one more redirect there.
	downloads: { via: 'objectStore', status: 307, hops: 1 },
	// The catalogue and the endpoint listing in pages of 5.
	listPageSize: 5,
	jobs: immediateJobs,
	envelope: 'none',
	// camelCase fields, its own words for the target, the company and the window, the import as a form; unknown names ignored.
	request: {
		names: {
			'invitation.company_name': 'companyName',
			'invitation.registration_number': 'registrationNumber',
			'invitation.work_email': 'workEmail',
			'invitation.reader_reference': 'readerReference',
			'webhook.url': 'target',
			'policyRun.ke': 'company',
			'sso.provider_type': 'providerType',
			'sso.email_domains': 'emailDomains',
			'sso.group_role_mapping': 'groupRoles',
			'export.window': 'within_days',
			'export.json_format': 'output',
		},
		unknownNames: 'ignore',
		importUpload: { form: 'multipart', field: 'upload' },
	},
	csvColumns: (columns) => [...columns].reverse(),
	portfolioKeColumn: 'ke',
	saysNotShared: false,
	// An ended share is 410 Gone, in words that never say "share" (errorWords).
	notSharedStatus: 410,
	signIn: bearerSignIn,
	errorWords(code, message) {
		// A share that ended is "gone" here, in words that never say "share".
		if (code === 'not_shared') {
			const ke = /Company (\S+)/.exec(message)?.[1] ?? 'this company';
			return { code: 'gone', message: `Access to company ${ke} has been withdrawn by the company.` };
		}
		return { code: code === 'not_found' ? 'resource_missing' : code, message };
	},
	errorBody(_status, code, message) {
		return { errors: [this.errorWords(code, message)] };
	},
	answer(method, path, body) {
		if (!isFields(body)) return body;
		if (path === '/v1/reader/webhooks/catalogue') {
			const entries = (body.data as Fields[]).map((entry) => ({ type: entry.event_type, summary: entry.description, example: entry.sample }));
			// One event the spec does not name, as the catalogue route may list (spec section 6), on the last page.
			if (entries.some((entry) => entry.type === eventCatalogue[eventCatalogue.length - 1].event_type)) {
				entries.push({ type: 'ledger_low', summary: 'A minor change on the company register', example: {} });
			}
			return { event_catalogue: entries };
		}
		if (path === '/v1/reader/webhooks' && method === 'POST') {
			return { webhook: { uuid: body.id, target: body.url, secret_key: body.secret, createdAt: body.created_at } };
		}
		if (path === '/v1/reader/webhooks' && method === 'GET') {
			return { results: (body.data as Fields[]).map((entry) => ({ uuid: entry.id, target: entry.url, createdAt: entry.created_at })) };
		}
		if (path === '/v1/reader/invitations/imports') {
			return {
				results: (body.rows as Fields[]).map((row) => ({
					line: row.row,
					status: row.ok ? 'accepted' : 'rejected',
					reason: row.check,
					...(row.invitation_id ? { invitationId: row.invitation_id } : {}),
					submitted: row.data,
				})),
				summary: { accepted: body.accepted, rejected: body.refused },
			};
		}
		if (Array.isArray(body.data) && Object.keys(body).length === 1) return { results: body.data };
		return body;
	},
};

export function dialectNamed(name: DialectName | undefined): Dialect {
	return name === 'alt' ? altDialect : defaultDialect;
}

/** SANDBOX_DIALECT, as the alt test project and `SANDBOX_DIALECT=alt npm run test:e2e` set it. */
export function dialectFromEnvironment(): DialectName | undefined {
	const name = process.env.SANDBOX_DIALECT;
	if (name === undefined || name === '') return undefined;
	if (name !== 'default' && name !== 'alt') throw new Error(`SANDBOX_DIALECT must be default or alt; got ${name}.`);
	return name;
}

/** Marks a query parameter this dialect does not read, for the route to refuse or ignore (`unknownNames`). */
export const UNKNOWN_PARAMETER = '__unknown';

/** The query as the default-dialect routes read it: this dialect's parameter names mapped back. */
export function canonicalQuery(dialect: Dialect, url: URL, headers: Record<string, string | string[] | undefined> = {}): URL {
	const canonical = new URL(url.toString());
	canonical.searchParams.delete(UNKNOWN_PARAMETER);
	const cursorIn = dialect.cursorIn;
	if (cursorIn.in === 'header') {
		// The cursor from its header only: one in the query is ignored, as a Service ignores what it does not read.
		canonical.searchParams.delete(dialect.cursorParameter);
		canonical.searchParams.delete('cursor');
		const sent = headers[cursorIn.header.toLowerCase()];
		const value = Array.isArray(sent) ? sent[0] : sent;
		url = new URL(canonical.toString());
		if (value !== undefined) {
			url.searchParams.set(dialect.cursorParameter, value);
			canonical.searchParams.set('cursor', value);
		}
	}
	if (dialect.cursorParameter !== 'cursor' || dialect.pageSizeParameter !== 'page_size') {
		// A parameter this dialect does not read is ignored, as a Service ignores unknown parameters.
		canonical.searchParams.delete('cursor');
		canonical.searchParams.delete('page_size');
		const cursor = url.searchParams.get(dialect.cursorParameter);
		const size = url.searchParams.get(dialect.pageSizeParameter);
		canonical.searchParams.delete(dialect.cursorParameter);
		canonical.searchParams.delete(dialect.pageSizeParameter);
		if (cursor !== null) canonical.searchParams.set('cursor', cursor);
		if (size !== null) canonical.searchParams.set('page_size', size);
	}
	const windowName = nameFor(dialect.request, 'export.window');
	if (windowName !== 'window') {
		const window = url.searchParams.get(windowName);
		if (url.searchParams.has('window')) canonical.searchParams.append(UNKNOWN_PARAMETER, 'window');
		canonical.searchParams.delete('window');
		canonical.searchParams.delete(windowName);
		if (window !== null) canonical.searchParams.set('window', window);
	}
	// JSON is asked for with the JSON format parameter and value; `format` itself knows csv only then.
	const formatName = nameFor(dialect.request, 'export.json_format');
	const format = url.searchParams.get('format');
	const jsonAsked = url.searchParams.get(formatName);
	if (formatName !== 'format') canonical.searchParams.delete(formatName);
	if (jsonAsked !== null && jsonAsked === dialect.jsonFormat) canonical.searchParams.set('format', 'json');
	else if (format !== null && format !== 'csv') canonical.searchParams.set('format', `unknown:${format}`);
	else if (jsonAsked !== null && formatName !== 'format') canonical.searchParams.set('format', `unknown:${jsonAsked}`);
	return canonical;
}

/** Query values written in the default dialect's names (cursor, page_size, format=json), as this dialect names them. */
export function spokenQuery<T>(dialect: Dialect, query: Record<string, T>): Record<string, T | string> {
	const spoken: Array<[string, T | string]> = [];
	for (const [name, value] of Object.entries(query)) {
		if (name === 'cursor') spoken.push([dialect.cursorParameter, value]);
		else if (name === 'page_size') spoken.push([dialect.pageSizeParameter, value]);
		else if (name === 'format' && value === 'json') spoken.push([nameFor(dialect.request, 'export.json_format'), dialect.jsonFormat]);
		else if (name === 'window') spoken.push([nameFor(dialect.request, 'export.window'), value]);
		else spoken.push([name, value]);
	}
	// Own properties: a Service may well call a parameter `__proto__`.
	return Object.fromEntries(spoken);
}

/** A path written with the default dialect's query names, as a client of this dialect sends it. */
export function spokenPath(dialect: Dialect, path: string): string {
	const url = new URL(path, 'https://sandbox');
	if (url.search === '') return path;
	const spoken = new URLSearchParams(spokenQuery(dialect, Object.fromEntries(url.searchParams)));
	return `${url.pathname}?${spoken.toString()}`;
}
