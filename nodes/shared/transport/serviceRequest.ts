import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import type { AnswerKind } from './answer';
import { headerValue, readAnswerBody, readErrorText, readFailure } from './answer';
import { discardBody } from './body';
import { envelopeHint, JSON_API_TYPE, jsonApiBody, readableEnvelope } from './envelopes';
import { describeServiceError, isTimeout, readErrorBody } from './errors';
import { awaitsResult, followJob, JobError, jobReference, type JobDeps } from './jobs';
import type { RequestScope, SentRequest } from './requestNames';
import { conceptLabel, CONCEPT_IDS, REQUEST_CONCEPTS, multipartBody, REQUEST_NAMES_SETTING, RequestNamesError, spokenRequest, unechoedConcepts } from './requestNames';
import { errorBodyWords, namesHint } from './refusalNames';
import { followDownload, isFollowedRedirect } from './redirects';
import { streamedRequest } from './requestOptions';
import { askedWait, isRetryableStatus, retryDelayMs } from './retry';
import type { ServiceSettings } from './settings';
import { readServiceSettings } from './settings';

// IWebhookFunctions: the trigger renews its endpoint from a delivery (ServiceTrigger/lifecycle/renewal.ts).
export type ServiceContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions | IPollFunctions | IWebhookFunctions;

export interface ServiceCall {
	method: IHttpRequestMethods;
	/** Path from the base URL, e.g. /v1/reader/exports/portfolio. */
	path: string;
	qs?: IDataObject;
	/** JSON body, or raw bytes/text sent with `contentType`. */
	body?: unknown;
	contentType?: string;
	/**
	 * Which request's settable names the body and query carry: written in the documented names,
	 * sent under the credential's Request Names (requestNames.ts).
	 */
	names?: RequestScope;
	/** A file to upload as Import Upload says: the body itself, or one field of a multipart form. */
	upload?: { bytes: Buffer; fileName: string; contentType: string };
	/** How to hand back the answer body: parsed JSON (default), exact bytes, or a stream. */
	response?: AnswerKind;
	/** A file (a GET of bytes or a stream): a redirect is followed without credentials (redirects.ts); any other call refuses one. */
	download?: boolean;
}

export interface ServiceAnswer<T = unknown> {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: T;
}

export interface ServiceCallOptions {
	itemIndex?: number;
	/** Statuses handed back to the caller instead of failing (e.g. 404 for "does not share"). */
	allowStatuses?: number[];
	/** Total attempts for 429, and for idempotent methods also 5xx and dropped connections. */
	maxAttempts?: number;
	/**
	 * The credential's settings when the caller has read them already: a paged export makes one
	 * call per page, and each reading decrypts the credential again.
	 */
	settings?: ServiceSettings;
}

const CREDENTIAL = 'serviceApi';
const DEFAULT_ATTEMPTS = 4;
/** All the waiting between attempts of one request, Retry-After included: 60 s. */
export const RETRY_WAIT_BUDGET_MS = 60_000;

/** Reads the credential's settings, failing with a clear NodeOperationError when unusable. */
export async function getServiceSettings(this: ServiceContext, itemIndex = 0): Promise<ServiceSettings> {
	const result = readServiceSettings(await this.getCredentials(CREDENTIAL));
	if (result.problem !== undefined) {
		throw new NodeOperationError(this.getNode(), result.problem, { itemIndex });
	}
	return result.settings;
}

/**
 * One call to the Service, authenticated by the credential's `authenticate` function, retried with
 * backoff (honouring Retry-After) on 429, and for GET/PUT/DELETE also on 5xx and dropped
 * connections. Redirects are refused, except a download's, followed without credentials
 * (redirects.ts); every wait is bounded by the Request Timeout and every body read into memory by
 * the Max Response Size; once the Service has answered, nothing is sent
 * again. Failures become NodeApiError in plain words; the access token never appears in them.
 */
export async function serviceRequest<T = unknown>(
	this: ServiceContext,
	call: ServiceCall,
	options: ServiceCallOptions = {},
): Promise<ServiceAnswer<T>> {
	const { itemIndex = 0, allowStatuses = [], maxAttempts = DEFAULT_ATTEMPTS } = options;
	const settings = options.settings ?? (await getServiceSettings.call(this, itemIndex));
	const idempotent = call.method === 'GET' || call.method === 'PUT' || call.method === 'DELETE';
	const fail = (message: string, description: string, extra: JsonObject = {}, httpCode?: number) =>
		new NodeApiError(this.getNode(), { ...extra, ...(httpCode ? { status: httpCode } : {}) } as JsonObject, {
			message: settings.redact(message),
			description: settings.redact(`${description} (${call.method} ${call.path})`),
			httpCode: httpCode === undefined ? undefined : String(httpCode),
			itemIndex,
		});

	// The request in the Service's names, worked out once: every attempt sends the same.
	let spoken: { call: ServiceCall; request: SentRequest; flat?: unknown; envelope: { typeConcept?: string; type?: string } };
	try {
		spoken = speak(call, settings);
	} catch (error) {
		const description = error instanceof RequestNamesError ? error.message : String(error);
		throw new NodeOperationError(this.getNode(), 'Request Names would send two fields under one name', { description, itemIndex });
	}

	// Every wait between attempts, Retry-After included, comes out of one budget per call.
	let waitedMs = 0;
	for (let attempt = 0; ; attempt++) {
		const isLastAttempt = attempt + 1 >= maxAttempts;
		let answer: ServiceAnswer<unknown>;
		// From connect to the last byte of an answer read into memory (streamed files: per pause).
		const deadline = { at: Date.now() + settings.requestTimeoutMs, ms: settings.requestTimeoutMs };
		try {
			answer = await send.call(this, settings, spoken.call);
		} catch (error) {
			// A Service that does not answer in time is not asked again: that would multiply the wait.
			if (isTimeout(error)) {
				throw fail(
					`The Service did not answer within ${seconds(settings.requestTimeoutMs)}`,
					'Nothing was received in time, so the request was given up. Check that the Service is reachable; if it is just slow, raise Request Timeout under Advanced Settings in the Service API credential.',
					// Not under `code`: n8n would swap the message for its generic "connection timed out".
					{ timeout: true },
				);
			}
			const delay = retryDelayMs(attempt, undefined, Date.now());
			if (idempotent && !isLastAttempt && waitedMs + delay <= RETRY_WAIT_BUDGET_MS) {
				waitedMs += delay;
				await sleep(delay);
				continue;
			}
			throw connectionError.call(this, error, call, attempt + 1, itemIndex);
		}

		// Where the file came from when the Service redirected a download: named in a failed read.
		let fileHost: string | undefined;
		if (answer.statusCode >= 300 && answer.statusCode < 400) {
			if (!(spoken.call.download && call.method === 'GET' && isFollowedRedirect(answer.statusCode))) {
				discardBody(answer.body);
				throw fail(
					`The Service answered with a redirect (${answer.statusCode}${redirectTarget(answer.headers, settings.baseUrl)}), which is not followed`,
					'The access token is sent to the Base URL only, so a redirect is refused and nothing was sent on. If the Service has moved, put its new https address in the Base URL of the Service API credential.',
					{},
					answer.statusCode,
				);
			}
			const hops = { from: `${settings.baseUrl}${call.path}`, accept: '*/*', deadline, holdsToken: (text: string) => settings.redact(text) !== text };
			const followed = await followDownload.call(this, answer, hops);
			if ('problem' in followed) {
				const { message, description, status, timeout } = followed.problem;
				throw fail(message, description, timeout ? { timeout: true } : {}, status);
			}
			({ answer, host: fileHost } = followed);
		}
		const { statusCode } = answer;
		const ok = statusCode >= 200 && statusCode < 300;
		if (ok || allowStatuses.includes(statusCode)) {
			const read = ok
				? await readAnswerBody(answer.body, call.response, settings, headerValue(answer.headers, 'content-type'), deadline)
				: await readErrorText(answer.body, settings, deadline).then((body) => ({ body }), readFailure);
			const from = fileHost === undefined ? '' : ` The file was being downloaded from ${fileHost}, where the Service redirected it.`;
			if ('problem' in read) throw fail(read.problem.message, `${read.problem.description}${from}`, {}, statusCode);
			// A 202 names a job: followed with GETs to its result (jobs.ts); the request is not sent again.
			const final = statusCode === 202 ? await acceptedAnswer.call(this, settings, call, { ...answer, body: read.body }, fail) : { ...answer, body: read.body };
			// A Service that ignores a field it does not know answers it empty: said, never passed for success.
			// A JSON:API answer: its resource's id, type and attributes beside it (envelopes.ts).
			if (ok && (call.response === undefined || call.response === 'json')) final.body = readableEnvelope(final.body);
			const ignored = ok ? unechoedConcepts(spoken.flat ?? spoken.call.body, spoken.request.sent, final.body) : [];
			if (ignored.length > 0) {
				const list = ignored.map((s) => `${conceptLabel(s.concept)} (sent as \`${s.name}\`)`).join(', ');
				throw fail(
					`The Service answered ${statusCode} but gives back ${list} empty, although the node sent ${ignored.length > 1 ? 'them' : 'it'}`,
					`It probably does not know the name and ignored the field, so what it stored is not what you sent. Map ${ignored.length > 1 ? 'each' : 'it'} to the Service's name in ${REQUEST_NAMES_SETTING}. What was created stays at the Service: check it there.`,
					{},
					statusCode,
				);
			}
			return final as ServiceAnswer<T>;
		}
		// A 5xx answer to a POST may come after the Service acted on it: sending it again could create a
		// second invitation, import or endpoint. A 429 was refused before any work, so it is safe to repeat.
		const retryable = idempotent ? isRetryableStatus(statusCode) : statusCode === 429;
		if (retryable && !isLastAttempt) {
			// Retry-After, else RateLimit-Reset / X-RateLimit-Reset (seconds, or a Unix time from 10^9 on).
			const asked = askedWait((name) => headerValue(answer.headers, name), Date.now());
			const askedMs = asked?.ms;
			const delay = askedMs === undefined ? retryDelayMs(attempt, undefined, Date.now()) : Math.min(askedMs, 60_000);
			// What the Service asked for counts, not the capped delay: retrying sooner than asked is pointless.
			if (waitedMs + (askedMs ?? delay) <= RETRY_WAIT_BUDGET_MS) {
				discardBody(answer.body);
				waitedMs += delay;
				await sleep(delay);
				continue;
			}
			if (askedMs !== undefined) {
				discardBody(answer.body);
				throw fail(
					`The Service asked to wait ${seconds(askedMs)} before trying again (${statusCode}, ${asked!.header})`,
					`That is more than the ${seconds(RETRY_WAIT_BUDGET_MS - waitedMs)} left of the ${seconds(RETRY_WAIT_BUDGET_MS)} this node waits in all for one request, so it was not sent again. Run the node again after that time.`,
					{ retryAfterSeconds: Math.ceil(askedMs / 1000) },
					statusCode,
				);
			}
		}
		const errorBody = await readErrorText(answer.body, settings, deadline).catch(() => Buffer.alloc(0));
		const words = describeServiceError(statusCode, errorBody, attempt + 1, settings.redact(headerValue(answer.headers, 'www-authenticate') ?? ''), settings.signIn);
		// A refusal naming a field or a media type: which setting maps it leads, the Service's words follow.
		const said = readErrorBody(errorBody);
		const scanned = errorBodyWords(errorBody.toString('utf8'), said.message, said.code);
		const hints = [envelopeHint(statusCode, `${scanned} ${said.message ?? ''}`, spoken.envelope, REQUEST_NAMES_SETTING), namesHint(statusCode, scanned, spoken.request)];
		const hint = hints.filter((h) => h !== undefined).join(' ') || undefined;
		throw new NodeApiError(this.getNode(), { status: statusCode, code: words.code === undefined ? null : settings.redact(words.code) } as JsonObject, {
			// The words are decoded from the body: redacted here, whatever escapes the body used.
			message: settings.redact(hint ?? words.message),
			description: settings.redact(`${hint ? `${words.message.replace(/\.$/, '')}. ` : ''}${words.description} (${call.method} ${call.path})`),
			httpCode: String(statusCode),
			itemIndex,
		});
	}
}

/** The call as the Service is to get it (Request Names, Import Upload), and what it carries for the words of a refusal. */
function speak(call: ServiceCall, settings: ServiceSettings): { call: ServiceCall; request: SentRequest; flat?: unknown; envelope: { typeConcept?: string; type?: string } } {
	const { body, qs, sent } = spokenRequest(call.names, call.body, call.qs, { names: settings.requestNames, jsonFormat: settings.jsonFormat });
	const spoken: ServiceCall = { ...call, body, qs: qs as IDataObject | undefined };
	// JSON:API: a body whose names lead into data.attributes, or whose JSON:API Type is set (envelopes.ts).
	const typeConcept = CONCEPT_IDS.find((id) => REQUEST_CONCEPTS[id].scope === call.names && REQUEST_CONCEPTS[id].where === 'type');
	const envelope: { typeConcept?: string; type?: string } = { typeConcept: typeConcept === undefined ? undefined : conceptLabel(typeConcept) };
	if (typeConcept !== undefined && call.contentType === undefined && !call.upload) {
		const enveloped = jsonApiBody(body, settings.requestNames.get(typeConcept), call.path);
		if (enveloped.type !== undefined) {
			Object.assign(spoken, { body: enveloped.body, contentType: JSON_API_TYPE });
			envelope.type = enveloped.type;
			return { call: spoken, request: { scope: call.names, sent }, flat: body, envelope };
		}
	}
	if (!call.upload) return { call: spoken, request: { scope: call.names, sent }, envelope };
	const upload = settings.importUpload;
	if (upload.form === 'multipart') {
		const form = multipartBody(upload.field, call.upload.fileName, call.upload.contentType, call.upload.bytes);
		Object.assign(spoken, { body: form.body, contentType: form.contentType });
	} else {
		Object.assign(spoken, { body: call.upload.bytes, contentType: call.upload.contentType });
	}
	return { call: spoken, request: { scope: call.names, sent, upload }, envelope };
}

/**
 * The answer to a 202: its job followed to the result (jobs.ts, inside Job Wait), or with no job named,
 * the 202 itself when it carries an answer (or is a DELETE's), else refused: nothing to wait for is said.
 */
async function acceptedAnswer(
	this: ServiceContext,
	settings: ServiceSettings,
	call: ServiceCall,
	accepted: ServiceAnswer<unknown>,
	fail: (message: string, description: string, extra?: JsonObject, httpCode?: number) => NodeApiError,
): Promise<ServiceAnswer<unknown>> {
	const reference = jobReference(accepted.headers, accepted.body);
	if (reference === undefined) {
		if (call.method === 'DELETE' || !awaitsResult(accepted.body)) return accepted;
		throw fail(
			'The Service accepted the request (202) but named no job to wait for',
			'Its answer has no Location header and no status URL in its body, so its result cannot be awaited and nothing was passed on. The request is not sent again: check at the Service whether it was done before sending it once more.',
			{},
			202,
		);
	}
	const deps: JobDeps = {
		baseUrl: settings.baseUrl,
		waitMs: settings.jobWaitMs,
		get: async (url) => await send.call(this, settings, { method: 'GET', path: '' }, url),
		read: async (raw, asResult) => {
			const deadline = { at: Date.now() + settings.requestTimeoutMs, ms: settings.requestTimeoutMs };
			const read = await readAnswerBody(raw.body, asResult ? call.response : 'json', settings, headerValue(raw.headers, 'content-type'), deadline);
			if ('problem' in read) throw new JobError(read.problem.message, read.problem.description, raw.statusCode);
			return read.body;
		},
		said: async (raw) => readErrorBody(await readErrorText(raw.body, settings).catch(() => Buffer.alloc(0))).message,
		discard: (raw) => discardBody(raw.body),
		sleep,
		now: Date.now,
	};
	// A 202 asked for as a stream (a file) is not the file: released before the polls.
	discardBody(accepted.body);
	try {
		const { raw, body } = await followJob(reference, accepted, deps);
		return { statusCode: raw.statusCode, headers: raw.headers, body };
	} catch (error) {
		if (error instanceof JobError) throw fail(error.message, error.description, { job: true }, error.statusCode);
		const code = (error as { code?: string }).code ?? 'network error';
		throw fail(
			`Could not get an answer about the Service's job (${isTimeout(error) ? 'no answer within the Request Timeout' : code})`,
			'The request was accepted and is not sent again: check its result at the Service before sending it once more.',
			{ job: true },
		);
	}
}

async function send(
	this: ServiceContext,
	settings: ServiceSettings,
	call: ServiceCall,
	/** An absolute URL on the Base URL's origin (a job's), instead of the Base URL and `call.path`. */
	url = `${settings.baseUrl}${call.path}`,
): Promise<ServiceAnswer<unknown>> {
	const accept = call.response === 'json' || !call.response ? (call.contentType === JSON_API_TYPE ? `${JSON_API_TYPE}, application/json` : 'application/json') : '*/*';
	// The query in the URL, not `qs`: the HTTP client's merges drop a parameter named `__proto__`.
	const request = streamedRequest(call.method, `${url}${queryString(call.qs)}`, accept, settings.requestTimeoutMs);
	if (call.body !== undefined) {
		const isRaw = typeof call.body === 'string' || Buffer.isBuffer(call.body);
		request.body = isRaw ? call.body : JSON.stringify(call.body);
		request.headers!['Content-Type'] = call.contentType ?? 'application/json';
	}
	const full = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL, request)) as {
		statusCode: number;
		headers: Record<string, string | string[] | undefined>;
		body: unknown;
	};
	return { statusCode: full.statusCode, headers: full.headers ?? {}, body: full.body };
}

/** `?a=1&b=2` of a query's own fields (undefined and null left out, a list as the name repeated), or ''. */
function queryString(qs: IDataObject | undefined): string {
	if (qs === undefined) return '';
	const params = new URLSearchParams();
	for (const [name, value] of Object.entries(qs)) {
		for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined && one !== null) params.append(name, String(one));
	}
	const text = params.toString();
	return text === '' ? '' : `?${text}`;
}

/** " to <host>" of a redirect's Location (never its path or query, which may carry secrets). */
function redirectTarget(headers: Record<string, string | string[] | undefined>, baseUrl: string): string {
	const location = headerValue(headers, 'location');
	if (!location || !URL.canParse(location, baseUrl)) return '';
	const target = new URL(location, baseUrl);
	const base = new URL(baseUrl);
	const where = target.protocol === base.protocol ? target.host : `${target.protocol}//${target.host}`;
	return ` to ${where}`;
}

function seconds(ms: number): string {
	// A Retry-After of hundreds of digits is past what a number holds: said in words, not "Infinity".
	if (!Number.isFinite(ms)) return 'more seconds than a number holds';
	const value = +(ms / 1000).toFixed(1);
	return `${value} second${value === 1 ? '' : 's'}`;
}

function connectionError(
	this: ServiceContext,
	error: unknown,
	call: ServiceCall,
	attempts: number,
	itemIndex: number,
): NodeApiError {
	const cause = error as { code?: string; cause?: { code?: string }; message?: string };
	const code = cause.cause?.code ?? cause.code ?? 'network error';
	return new NodeApiError(this.getNode(), { code } as JsonObject, {
		message: `Could not get an answer from the Service (${code} after ${attempts} attempt${attempts === 1 ? '' : 's'})`,
		description: `The connection failed or was dropped during ${call.method} ${call.path}. Check the Base URL and that the Service is reachable, then try again.`,
		itemIndex,
	});
}
