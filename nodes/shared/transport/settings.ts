/**
 * Reads the Service API credential into the settings the nodes use, with the documented
 * defaults for what the spec leaves "not shown" (docs/service-choices.md). Pure: no n8n types.
 */
import { advancedSettings } from '../settings/advancedSettings';
import type { ImportUpload, RequestConcept } from './requestNames';
import { readRequestNames, requestNameProblem } from './requestNames';
import type { SignIn } from './signIn';
import { readSignIn } from './signIn';
import { tokenRedactors, type TokenRedactors } from '../redaction';
import { secretRedactors } from './credentialKind';

export { tokenRedactors };

export interface ServiceSettings extends TokenRedactors {
	/** Base URL without a trailing slash. */
	baseUrl: string;
	cursorParameter: string;
	/** Send Cursor As Header: the header carrying the cursor back (Cursor Header Name); undefined: the query, under cursorParameter. */
	cursorHeader?: string;
	/** Sent only when both name and size are set. */
	pageSize?: { parameter: string; size: number };
	/** `auto`: Detect (every reading of the secret; the one a delivery verifies under is learned). */
	signingKeyEncoding: 'auto' | 'base64' | 'hex' | 'raw';
	/** `auto`: told apart by length (64 hex characters against 43 or 44 base64 ones). */
	signatureEncoding: 'auto' | 'hex' | 'base64';
	/** The unit of `t` in Service-Signature; `auto`: told apart by size. */
	signatureTimestampUnit: 'auto' | 'seconds' | 'milliseconds';
	/** CSV Delimiter; `auto`: read off the first page's header row. */
	csvDelimiter: 'auto' | ',' | ';' | '\t' | '|';
	/** CSV Header Row on Later Pages; `auto`: a later page's first record equal to the header row is it. */
	csvHeaderRepeat: 'auto' | 'every' | 'first';
	/** The `format` value asking for JSON (the spec shows only `csv`). */
	jsonFormat: string;
	/** Request Names: the Service's name for each concept the user mapped; the documented name for the rest. */
	requestNames: ReadonlyMap<RequestConcept, string>;
	/** Import Upload (+ Import Form Field): how Invitation > Import sends its file. */
	importUpload: ImportUpload;
	/** Send Token As: how the credential's `authenticate` sends the token (signIn.ts); read here for the words of a 401. */
	signIn: SignIn;
	/** Signing secret of an endpoint created outside n8n; takes precedence over a stored one. */
	webhookSigningSecret?: string;
	/** Longest wait for a connection, an answer, or the next bytes of a body. */
	requestTimeoutMs: number;
	/** Job Wait: longest wait for a job accepted with 202, from its acceptance to its result (jobs.ts). */
	jobWaitMs: number;
	/** Idempotency Header: the header a write's key goes in (writeOutcome.ts); undefined: none sent. */
	idempotencyHeader?: string;
	/** Largest JSON or file answer read into memory. */
	maxResponseBytes: number;
	/** Largest file streamed into n8n's binary data, after decompression. */
	maxFileBytes: number;
	/** Most pages one list follows before failing the item. */
	maxPages: number;
	// redact, redactBytes, redactValue, redactFileName, redactError: the access token in every form (../redaction.ts).
}

// The credential stores names: a tab typed into a text field would not survive.
/** The header Stripe and most APIs read a write's idempotency key from (the spec names none). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

const CSV_DELIMITERS: Record<string, ServiceSettings['csvDelimiter']> = { comma: ',', semicolon: ';', tab: '\t', pipe: '|' };

export const DEFAULT_LIMITS = { requestTimeoutSeconds: 60, maxResponseMiB: 64, maxFileMiB: 10_240, maxPages: 100_000, jobWaitSeconds: 300 } as const;


/** The settings, or the problem with the credential in words. */
export type SettingsResult = { settings: ServiceSettings; problem?: undefined } | { problem: string };

export function readServiceSettings(credentials: Record<string, unknown>): SettingsResult {
	const rawBaseUrl = typeof credentials.baseUrl === 'string' ? credentials.baseUrl.trim() : '';
	if (!URL.canParse(rawBaseUrl)) {
		return {
			problem: `The Base URL "${rawBaseUrl}" in the Service API credential is not a valid URL. Enter your Service's address, e.g. https://service.example.com.`,
		};
	}
	if (new URL(rawBaseUrl).protocol !== 'https:') {
		return {
			problem: `The Base URL "${rawBaseUrl}" in the Service API credential must start with https://: the Service is reached over HTTPS only.`,
		};
	}
	const advanced = advancedSettings(credentials);
	const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
	const pageSizeParameter = text(advanced.pageSizeParameter);
	const positive = (value: unknown, fallback: number) => {
		const number = Number(value ?? fallback);
		return Number.isFinite(number) && number > 0 ? number : fallback;
	};
	const size = Number(advanced.pageSize ?? 100);
	const requestNames = readRequestNames(advanced.requestNames);
	if ('problem' in requestNames) return { problem: `${requestNames.problem} (Advanced Settings in the Service API credential)` };
	const formField = text(advanced.importFormField) || 'file';
	const formFieldProblem = requestNameProblem(formField);
	if (advanced.importUpload === 'multipart' && formFieldProblem) {
		return { problem: `Import Form Field ${formFieldProblem}: enter the form field's name exactly as the Service spells it (Advanced Settings in the Service API credential).` };
	}
	const cursorHeader = advanced.cursorPlacement === 'header' ? text(advanced.cursorHeaderName) || 'X-Service-Cursor' : undefined;
	if (cursorHeader !== undefined && !isHeaderName(cursorHeader)) {
		return { problem: `Cursor Header Name "${cursorHeader}" is not a header name (letters, digits and ! # $ % & ' * + - . ^ _ \` | ~ only): enter the header exactly as the Service names it (Advanced Settings in the Service API credential).` };
	}
	const signIn = readSignIn(advanced);
	if ('problem' in signIn) return { problem: signIn.problem };
	const idempotencyHeader = advanced.idempotencyHeader === undefined ? IDEMPOTENCY_HEADER : text(advanced.idempotencyHeader) || undefined;
	if (idempotencyHeader !== undefined && !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(idempotencyHeader)) {
		return { problem: `Idempotency Header "${idempotencyHeader}" is not a header name: letters, digits and - only, e.g. Idempotency-Key, or empty to send none (Advanced Settings in the Service API credential).` };
	}
	const settings: ServiceSettings = {
		baseUrl: withoutTrailingSlashes(rawBaseUrl),
		cursorParameter: text(advanced.cursorParameter) || 'cursor',
		cursorHeader,
		pageSize:
			pageSizeParameter && Number.isInteger(size) && size > 0
				? { parameter: pageSizeParameter, size }
				: undefined,
		signingKeyEncoding: (['auto', 'base64', 'hex', 'raw'] as const).find((e) => e === advanced.signingKeyEncoding) ?? 'auto',
		signatureEncoding: (['auto', 'hex', 'base64'] as const).find((e) => e === advanced.signatureEncoding) ?? 'auto',
		signatureTimestampUnit: (['auto', 'seconds', 'milliseconds'] as const).find((u) => u === advanced.signatureTimestampUnit) ?? 'auto',
		csvDelimiter: CSV_DELIMITERS[String(advanced.csvDelimiter)] ?? 'auto',
		csvHeaderRepeat: (['auto', 'every', 'first'] as const).find((r) => r === advanced.csvHeaderRepeat) ?? 'auto',
		jsonFormat: text(advanced.jsonFormat) || 'json',
		requestNames: requestNames.names,
		importUpload: advanced.importUpload === 'multipart' ? { form: 'multipart', field: formField } : { form: 'csv' },
		signIn: signIn.signIn,
		webhookSigningSecret: text(advanced.webhookSigningSecret) || undefined,
		requestTimeoutMs: Math.round(positive(advanced.requestTimeout, DEFAULT_LIMITS.requestTimeoutSeconds) * 1000),
		jobWaitMs: Math.round(positive(advanced.jobWait, DEFAULT_LIMITS.jobWaitSeconds) * 1000),
		idempotencyHeader,
		maxResponseBytes: Math.round(positive(advanced.maxResponseSize, DEFAULT_LIMITS.maxResponseMiB) * 1024 * 1024),
		maxFileBytes: Math.round(positive(advanced.maxFileSize, DEFAULT_LIMITS.maxFileMiB) * 1024 * 1024),
		maxPages: Math.floor(positive(advanced.maxPages, DEFAULT_LIMITS.maxPages)),
		...secretRedactors(credentials),
	};
	return { settings };
}

/** The URL without its trailing `/`s (a loop: `/\/+$/` costs the square of a long run of `/`). */
export function withoutTrailingSlashes(url: string): string {
	let end = url.length;
	while (end > 0 && url[end - 1] === '/') end--;
	return url.slice(0, end);
}

/** An HTTP header name (RFC 9110 token), checked character by character. */
export function isHeaderName(name: string): boolean {
	if (name === '' || name.length > 256) return false;
	for (const char of name) if (!/[A-Za-z0-9!#$%&'*+\-.^_`|~]/.test(char)) return false;
	return true;
}
