import fc from 'fast-check';

import { RATE_LIMIT_FORMS, type AnswerShapes, type VerificationForms } from '../sandbox/answerShapes';
import type { CsvFormat } from '../sandbox/csv';
import { ENCODINGS, type Encoding } from '../sandbox/csvEncoding';
import { altDialect, bearerSignIn, defaultDialect, type Dialect, type Downloads, type EventValues, type SandboxSignIn } from '../sandbox/dialect';
import { requestSettings } from '../sandbox/credential';
import type { RequestDialect } from '../sandbox/requestDialect';
import type { JobAnswers } from '../sandbox/jobs';
import type { RequestConcept } from '../../nodes/shared/transport/requestNames';
import type { IDataObject } from 'n8n-workflow';

/**
 * Sandbox dialects drawn at random for the property tests: each choice where the spec says "not
 * shown" independent of the others (`default` and `alt` are two fixed points among them).
 */

export const csvFormat: fc.Arbitrary<CsvFormat> = fc.record({
	delimiter: fc.constantFrom<CsvFormat['delimiter']>(',', ';', '\t', '|'),
	headerEveryPage: fc.boolean(),
	lineEnd: fc.constantFrom<CsvFormat['lineEnd']>('\r\n', '\n'),
	bom: fc.boolean(),
	quoteAll: fc.boolean(),
	encoding: fc.constantFrom<Encoding>(...ENCODINGS),
	sep: fc.boolean(),
});

const answerShapes: fc.Arbitrary<AnswerShapes> = fc.record({
	catalogue: fc.constantFrom<AnswerShapes['catalogue']>('list', 'keyed'),
	endpointNesting: fc.integer({ min: 0, max: 3 }),
	importAs: fc.constantFrom<AnswerShapes['importAs']>('json', 'csv', 'multiStatus'),
	passkeyStatus: fc.constantFrom<AnswerShapes['passkeyStatus']>(401, 403, 428),
	jsonListsAs: fc.constantFrom<AnswerShapes['jsonListsAs']>('object', 'jsonLines'),
	emptyListAs: fc.constantFrom<AnswerShapes['emptyListAs']>(200, 204),
	errorsAs: fc.constantFrom<AnswerShapes['errorsAs']>('json', 'problem'),
	rateLimitHeader: fc.constantFrom<AnswerShapes['rateLimitHeader']>(...RATE_LIMIT_FORMS),
	secretInObject: fc.boolean(),
	importNumbering: fc.constantFrom<AnswerShapes['importNumbering']>('row', 'line'),
	verification: fc.record({
		publicKey: fc.constantFrom<VerificationForms['publicKey']>('spki-base64', 'spki-hex', 'pem', 'jwk', 'raw-hex', 'raw-base64url', 'pkcs1-pem', 'jwk-text'),
		digest: fc.constantFrom<VerificationForms['digest']>('hex', 'base64', 'nested', 'bare', 'prefixed', 'structured', 'colon', 'sibling'),
		signature: fc.constantFrom<VerificationForms['signature']>('base64', 'hex', 'base64url', 'nested'),
		digestSuite: fc.constantFrom<VerificationForms['digestSuite']>('sha256', 'sha384', 'sha512'),
		signatureSuite: fc.constantFrom<VerificationForms['signatureSuite']>('Ed25519', 'ES256', 'ES384', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'),
		ecdsaEncoding: fc.constantFrom<VerificationForms['ecdsaEncoding']>('der', 'p1363'),
		namesAlgorithm: fc.boolean(),
		keyPlace: fc.constantFrom<NonNullable<VerificationForms['keyPlace']>>('public_key', 'public_key_pem', 'verification.key', 'keys'),
	}),
	compressed: fc.boolean(),
});

export const eventValues: fc.Arbitrary<EventValues> = fc.record({
	alertId: fc.constantFrom<EventValues['alertId']>('text', 'integer'),
	severity: fc.constantFrom<EventValues['severity']>('text', 'number'),
	occurredAt: fc.constantFrom<EventValues['occurredAt']>('iso', 'unix'),
	extraFields: fc.constantFrom<EventValues['extraFields']>('none', 'extra', 'colliding'),
});

/**
 * Names a Service written from the spec might read for what the nodes send (the documented one
 * among them); SSO's are left to test/nodes/reader/requestNames.test.ts (the drawn runs have no passkey).
 */
const NAME_CHOICES: Partial<Record<RequestConcept, readonly string[]>> = {
	'invitation.company_name': ['companyName', 'name', 'company'],
	'invitation.registration_number': ['registrationNumber', 'company_number', 'regNo'],
	'invitation.work_email': ['workEmail', 'email', 'contact_email'],
	'invitation.reader_reference': ['readerReference', 'reference', 'external_id', '__proto__'],
	'webhook.url': ['target', 'target_url', 'endpoint', 'constructor'],
	'policyRun.ke': ['company', 'company_ke'],
	'export.window': ['within_days', 'days', 'lookahead', '__proto__', 'constructor'],
	'export.json_format': ['output', 'response_format'],
};

export const requestDialect: fc.Arbitrary<RequestDialect> = fc.record({
	names: fc.record(
		Object.fromEntries(Object.entries(NAME_CHOICES).map(([concept, names]) => [concept, fc.option(fc.constantFrom(...names!), { nil: undefined })])),
	).map((drawn) => Object.fromEntries(Object.entries(drawn).filter(([, name]) => name !== undefined)) as RequestDialect['names']),
	unknownNames: fc.constantFrom<RequestDialect['unknownNames']>('refuse', 'ignore'),
	refusalWords: fc.constantFrom<NonNullable<RequestDialect['refusalWords']>>('unknown', 'missing'),
	importUpload: fc.oneof(
		fc.constant<RequestDialect['importUpload']>({ form: 'csv' }),
		fc.constantFrom('file', 'upload', 'csv').map((field): RequestDialect['importUpload'] => ({ form: 'multipart', field })),
	),
});

/** Files by their route, or by a redirect (any of the five) to the object store, with up to 4 more redirects there. */
export const downloads: fc.Arbitrary<Downloads> = fc.oneof(
	fc.constant<Downloads>({ via: 'direct' }),
	fc.record({
		via: fc.constant<'objectStore'>('objectStore'),
		status: fc.constantFrom<301 | 302 | 303 | 307 | 308>(301, 302, 303, 307, 308),
		hops: fc.integer({ min: 0, max: 4 }),
	}),
);
/** Work done later: the import at once or as a job (each way of naming it), ready after some polls, with or without Retry-After; a policy run's statement listed later. */
export const jobAnswers: fc.Arbitrary<JobAnswers> = fc.record({
	import: fc.constantFrom<JobAnswers['import']>('immediate', 'location', 'statusUrl', 'inline', 'seeOther'),
	pollsBeforeEnd: fc.integer({ min: 0, max: 2 }),
	retryAfterSeconds: fc.constantFrom(undefined, 0, 1),
	ending: fc.constant<JobAnswers['ending']>('result'),
	origin: fc.constant<JobAnswers['origin']>('same'),
	policyRun: fc.constantFrom<JobAnswers['policyRun']>('completed', 'running'),
	statementAfterReads: fc.integer({ min: 0, max: 2 }),
});
/**
 * How a Service (or its gateway) reads the token, and how its 401 says so: a challenge naming the header,
 * words naming it, or another scheme.
 */
export const signIn: fc.Arbitrary<SandboxSignIn> = fc.constantFrom<SandboxSignIn>(
	bearerSignIn,
	{ form: 'header', header: 'X-Api-Key', challenge: 'ApiKey header="X-Api-Key"', words: 'Send the API key in a header.' },
	{ form: 'header', header: 'X-Service-Key', challenge: 'Key realm="service"', words: 'Missing X-Service-Key header.' },
	{ form: 'scheme', scheme: 'Token', challenge: 'Token realm="service"', words: 'Unauthorized.' },
	{ form: 'scheme', scheme: 'ApiKey', challenge: 'ApiKey', words: 'No key.' },
);
/** Plain JSON, or JSON:API with the types it expects (the routes' last segments, or its own words). */
const jsonApi: fc.Arbitrary<Partial<Record<RequestConcept, string>> | undefined> = fc.option(
	fc.record({
		'invitation.type': fc.constantFrom('invitations', 'invitation'),
		'webhook.type': fc.constantFrom('webhooks', 'webhook-endpoints'),
		'policyRun.type': fc.constantFrom('policy-runs', 'policy_run'),
		'sso.type': fc.constantFrom('sso', 'sso-configurations'),
	}),
	{ nil: undefined, freq: 2 },
);

/** Where the Service reads the cursor sent back: the query, or only a header of its own (issue 44 item 5). */
const cursorIn: fc.Arbitrary<Dialect['cursorIn']> = fc.constantFrom<Dialect['cursorIn']>(
	{ in: 'query' },
	{ in: 'query' },
	{ in: 'header', header: 'Service-Cursor' },
	{ in: 'header', header: 'X-Service-Cursor' },
	{ in: 'header', header: 'X-Page-Token' },
);

export const dialect: fc.Arbitrary<Dialect> = fc
	.record({
		base: fc.constantFrom(defaultDialect, altDialect),
		csv: csvFormat,
		answers: answerShapes,
		request: requestDialect,
		reversedColumns: fc.boolean(),
		timestampUnit: fc.constantFrom<Dialect['timestampUnit']>('seconds', 'milliseconds'),
		signatureSeparator: fc.constantFrom(',', ';', ', ', ' '),
		values: eventValues,
		downloads,
		listPageSize: fc.constantFrom(0, 1, 4, 7),
		jobs: jobAnswers,
		signIn,
		notSharedStatus: fc.constantFrom<Dialect['notSharedStatus']>(404, 410),
		envelope: jsonApi,
		cursorIn,
	})
	.map(({ base, csv, answers, request, reversedColumns, timestampUnit, signatureSeparator, values, downloads, listPageSize, jobs, signIn, notSharedStatus, envelope, cursorIn }) => ({
		...base,
		cursorIn,
		csv,
		answers,
		// JSON:API: the types it expects are Request Names rows, as its users set them.
		request: envelope === undefined ? request : { ...request, names: { ...request.names, ...envelope } },
		envelope: envelope === undefined ? ('none' as const) : ('jsonapi' as const),
		csvColumns: (columns: readonly string[]) => (reversedColumns ? [...columns].reverse() : columns),
		timestampUnit,
		signatureSeparator,
		eventValues: values,
		downloads,
		listPageSize,
		jobs,
		signIn,
		notSharedStatus,
	}));

/** The setting an error names, as the credential stores it, for a Service writing `csv`. */
export function settingNamed(message: string, csv: CsvFormat): Record<string, string> {
	const names: Record<CsvFormat['delimiter'], string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };
	if (/CSV Delimiter/.test(message)) return { csvDelimiter: names[csv.delimiter] };
	if (/CSV Header Row/.test(message)) return { csvHeaderRepeat: csv.headerEveryPage ? 'every' : 'first' };
	if (/Send Token As/.test(message)) return signInSettingNamed(message);
	throw new Error(`The error names no setting: ${message}`);
}

/** Send Cursor As, as a user sets it from the error that names it and the Service's documentation (the header's name). */
export function cursorSettingNamed(message: string, dialect: Dialect): Record<string, string> {
	if (!/Send Cursor As/.test(message)) throw new Error(`The error names no cursor setting: ${message}`);
	return dialect.cursorIn.in === 'header' ? { cursorPlacement: 'header', cursorHeaderName: dialect.cursorIn.header } : { cursorPlacement: 'query' };
}

/** Send Token As and its value, as a user copies them from the 401 that names them. */
export function signInSettingNamed(message: string): Record<string, string> {
	const after = (words: string) => {
		const start = message.indexOf(words);
		if (start < 0) return undefined;
		const rest = message.slice(start + words.length);
		const end = [...rest].findIndex((c) => c === ' ' || c === '.' || c === ',');
		return end < 0 ? rest : rest.slice(0, end);
	};
	if (!/Send Token As/.test(message)) throw new Error(`The error names no sign-in setting: ${message}`);
	const header = after('Token Header Name to ');
	if (header) return { tokenPlacement: 'header', authHeaderName: header };
	const scheme = after('Token Scheme to ');
	if (scheme) return { tokenPlacement: 'scheme', authScheme: scheme };
	return { tokenPlacement: 'bearer' };
}

/** The request settings an error names (Request Names, Import Upload), as a user of `dialect` then fills them in. */
export function requestSettingNamed(message: string, dialect: Dialect): IDataObject {
	if (/Request Names|Import Upload|Import Form Field/.test(message)) return requestSettings(dialect);
	throw new Error(`The error names no request setting: ${message}`);
}
