/**
 * Check Settings' probe from a node (Service > Check Settings): one GET through n8n's
 * `httpRequestWithAuthentication`, so the credential's own `authenticate` (https, the Base URL's
 * origin, Send Token As) applies; no redirect followed, any status an answer, the body read up to
 * PROBE_LIMITS.bodyBytes. What both probes share (the URL, the credential with a request's fields,
 * the clock, the answer) is here too; credentialTestProbe.ts is the credential test's.
 */
import type { ICredentialDataDecryptedObject, IExecuteFunctions } from 'n8n-workflow';

import { PROBE_LIMITS, type FieldOverrides, type Probe, type ProbeAnswer, type ProbeRequest } from '../settingsCheck/types';
import { sendAuthenticated } from './authenticatedRequest';
import { readPrefix } from './body';
import { isTimeout } from './errors';
import { streamedRequest } from './requestOptions';
import { withoutTrailingSlashes } from './settings';
import { maskCutToken, redactJsonStrings, tokenRedactors } from '../redaction';

/** The credential's own fields; every other one lives behind the Advanced Settings switch. */
const MAIN_FIELDS = new Set(['baseUrl', 'accessToken']);

/** A copy of the credential with `fields` changed for one request (an Advanced Settings field switches them on, the others as they apply now). */
export function credentialWithFields(credentials: ICredentialDataDecryptedObject, fields: FieldOverrides | undefined): ICredentialDataDecryptedObject {
	if (fields === undefined || Object.keys(fields).length === 0) return credentials;
	const advanced = Object.keys(fields).some((name) => !MAIN_FIELDS.has(name));
	const kept: ICredentialDataDecryptedObject = credentials.advancedSettings === true ? { ...credentials } : { baseUrl: credentials.baseUrl, accessToken: credentials.accessToken };
	return { ...kept, ...(advanced ? { advancedSettings: true } : {}), ...fields };
}

/** The URL of a probe: a path under the Base URL, or an absolute URL on its origin; the query percent-encoded once. */
export function probeUrl(baseUrl: string, request: ProbeRequest): string {
	const base = withoutTrailingSlashes(String(baseUrl).trim());
	const absolute = request.path.startsWith('https://') || request.path.startsWith('http://');
	const target = absolute ? request.path : `${base}${request.path}`;
	if (absolute && (!URL.canParse(base) || new URL(target).origin !== new URL(base).origin)) {
		throw new Error('A probe goes to the Base URL\'s origin only');
	}
	const query = (request.query ?? []).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
	return query === '' ? target : `${target}${target.includes('?') ? '&' : '?'}${query}`;
}

/** Per-request timeouts inside one overall deadline (PROBE_LIMITS), from the first probe's creation. */
export function probeClock(now: () => number = Date.now): () => number {
	const deadline = now() + PROBE_LIMITS.totalMs;
	return () => {
		const left = Math.min(PROBE_LIMITS.requestMs, deadline - now());
		if (left <= 0) throw new Error(`Check Settings stopped: its ${PROBE_LIMITS.totalMs / 1000} s were used`);
		return left;
	};
}

/**
 * An answer as the checks read it: header names in lower case (a repeated one joined), at most
 * PROBE_LIMITS.bodyBytes of the body; every form of the token taken out before the checks see it, so
 * no later shortening can leave a part of it (a start of it at the body's cut too).
 */
export async function probeAnswer(status: number, headers: Record<string, unknown> | undefined, body: unknown, timeoutMs: number, startedAt: number, token = ''): Promise<ProbeAnswer> {
	const { redact, redactBytes } = tokenRedactors(token);
	const map = new Map<string, string>();
	for (const [name, value] of Object.entries(headers ?? {})) {
		if (value === undefined || value === null) continue;
		map.set(redact(name.toLowerCase()), redact(Array.isArray(value) ? value.map(String).join(', ') : String(value)));
	}
	const read = await readPrefix(body, timeoutMs, PROBE_LIMITS.bodyBytes, { at: startedAt + timeoutMs, ms: timeoutMs });
	// A JSON string's escapes first: a token behind an escape of an escape shows only once parsed, and
	// masking bytes inside a literal could leave half an escape (`\\***`) that no longer parses.
	let bytes = read.bytes.includes(0x5c) ? Buffer.from(redactJsonStrings(read.bytes.toString('latin1'), token), 'latin1') : read.bytes;
	bytes = redactBytes(bytes);
	if (read.truncated) bytes = Buffer.from(maskCutToken(bytes.toString('latin1'), token), 'latin1');
	return { status, headers: map, body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), truncated: read.truncated };
}

/** A failure without an answer, in words that carry no request (its headers hold the token). */
export function probeFailure(error: unknown, path: string, timeoutMs: number): Error {
	if (isTimeout(error)) return new Error(`No answer to GET ${path} within ${timeoutMs / 1000} s`);
	const cause = error as { code?: string; cause?: { code?: string }; message?: string };
	return new Error(`No answer to GET ${path} (${cause.cause?.code ?? cause.code ?? cause.message ?? 'network error'})`);
}

/** What a transport does for one probe: send the GET for `data` (the credential with the request's fields) to `url`, bounded by `timeoutMs`. */
export type ProbeSend = (data: ICredentialDataDecryptedObject, url: string, timeoutMs: number, headers: Readonly<Record<string, string>>) => Promise<{ statusCode: number; headers?: Record<string, unknown>; body: unknown }>;

/** A Probe over one transport: the request's fields, the clock, failures in words without the request, the answer bounded. */
export function probeOver(credentials: ICredentialDataDecryptedObject, send: ProbeSend, now: () => number = Date.now): Probe {
	const timeout = probeClock(now);
	const token = typeof credentials.accessToken === 'string' ? credentials.accessToken : '';
	return async (request) => {
		const data = credentialWithFields(credentials, request.fields);
		// The engine's own bound for this request, never past the transport's deadline.
		const timeoutMs = Math.min(timeout(), request.timeoutMs ?? Infinity);
		const startedAt = now();
		const url = probeUrl(String(data.baseUrl ?? ''), request);
		let full: Awaited<ReturnType<ProbeSend>>;
		try {
			full = await send(data, url, timeoutMs, request.headers ?? {});
		} catch (error) {
			const failure = probeFailure(error, request.path, timeoutMs);
			failure.message = tokenRedactors(token).redact(failure.message);
			throw failure;
		}
		return await probeAnswer(full.statusCode, full.headers, full.body, timeoutMs, startedAt, token);
	};
}

/** The probe of a node run: the credential read once by the caller, applied by n8n with its own `authenticate`. */
export function nodeProbe(context: IExecuteFunctions, credentials: ICredentialDataDecryptedObject, now: () => number = Date.now): Probe {
	return probeOver(
		credentials,
		async (data, url, timeoutMs, headers) => {
			const options = streamedRequest('GET', url, '*/*', timeoutMs);
			Object.assign(options.headers!, headers);
			return (await sendAuthenticated(context, options, data)) as Awaited<ReturnType<ProbeSend>>;
		},
		now,
	);
}
