import type { IDataObject, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { headerValue, readAnswerBody, readErrorText, readFailure } from './answer';
import { sendAuthenticated, TokenFetchError } from './authenticatedRequest';
import { discardBody } from './body';
import { envelopeHint, JSON_API_TYPE, readableEnvelope } from './envelopes';
import { describeServiceError, isTimeout, readErrorBody, serviceSaid } from './errors';
import { awaitsResult, followJob, JobError, jobReference, type JobDeps } from './jobs';
import type { SentRequest } from './requestNames';
import { conceptLabel, REQUEST_NAMES_SETTING, RequestNamesError, unechoedConcepts } from './requestNames';
import { errorBodyWords, refusalHint } from './refusalNames';
import { followDownload, isFollowedRedirect } from './redirects';
import { streamedRequest } from './requestOptions';
import { ABSURD_WAIT_MS, askedWait, isRetryableStatus, retryDelayMs, waitWords } from './retry';
import type { ServiceSettings } from './settings';
import { idempotencyKey, surelyNotSent, unknownOutcome, withJobNote } from './writeOutcome';
import { credentialName } from './credentialKind';
import { readServiceSettings } from './settings';
import { speak } from './speak';
import type { ServiceAnswer, ServiceCall, ServiceCallOptions, ServiceContext } from './types';

export type { ServiceAnswer, ServiceCall, ServiceCallOptions, ServiceContext } from './types';

const DEFAULT_ATTEMPTS = 4;
/** All the waiting between attempts of one request, Retry-After included: 60 s. */
export const RETRY_WAIT_BUDGET_MS = 60_000;

/** Reads the credential's settings, failing with a clear NodeOperationError when unusable. */
export async function getServiceSettings(this: ServiceContext, itemIndex = 0): Promise<ServiceSettings> {
	const result = readServiceSettings(await this.getCredentials(credentialName(this)));
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

	// A write carries a key the same for its repeats within one execution and item (writeOutcome.ts).
	const origin = idempotent || settings.idempotencyHeader === undefined ? undefined : writeOrigin(this, spoken.call, itemIndex);
	const writeKey = origin === undefined ? undefined : { header: settings.idempotencyHeader!, value: idempotencyKey(origin) };
	if (writeKey !== undefined) spoken.call.headers = { ...spoken.call.headers, [writeKey.header]: writeKey.value };
	// What a write's lost answer is said as: it may have been done, never sent again.
	const lost = (what: string, extra: JsonObject, httpCode?: number, said = '') => {
		const words = unknownOutcome(what, writeKey);
		return fail(words.message, `${words.description}${said}`, { ...extra, outcome: 'unknown' }, httpCode);
	};

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
			if (error instanceof TokenFetchError) throw fail(error.message, error.description);
			// A Service that does not answer in time is not asked again: that would multiply the wait.
			if (isTimeout(error)) {
				if (!idempotent) throw lost(`no answer within ${seconds(settings.requestTimeoutMs)}, the Request Timeout`, { timeout: true });
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
			const code = connectionCode(error);
			// The code goes in the description: n8n swaps a message naming one for its generic words.
			if (!idempotent && !surelyNotSent(code)) throw lost('the connection was dropped before an answer', { connection: code }, undefined, ` The connection ended with ${code}.`);
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
			// Retry-After, else RateLimit-Reset / X-RateLimit-Reset / RateLimit / RateLimit-Policy (retry.ts).
			const asked = askedWait((name) => headerValue(answer.headers, name), Date.now(), statusCode);
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
				// Said in words however large (a 400-digit Retry-After is "more than a year", never Infinity).
				throw fail(
					`The Service asked to wait ${waitWords(askedMs)} (${statusCode}, ${asked!.header}), beyond the ${seconds(RETRY_WAIT_BUDGET_MS)} the node waits; try later`,
					`That is more than the ${seconds(RETRY_WAIT_BUDGET_MS - waitedMs)} left of the ${seconds(RETRY_WAIT_BUDGET_MS)} this node waits in all for one request, so it was not sent again. Run the node again after that time.`,
					{ retryAfterSeconds: askedMs > ABSURD_WAIT_MS ? null : Math.ceil(askedMs / 1000) },
					statusCode,
				);
			}
		}
		const errorBody = await readErrorText(answer.body, settings, deadline).catch(() => Buffer.alloc(0));
		// A write answered 5xx (a gateway's page, often) may have been done: said as unknown, with the key it carried.
		if (!idempotent && statusCode >= 500) throw lost(`the Service answered ${statusCode}`, {}, statusCode, settings.redact(serviceSaid(readErrorBody(errorBody))));
		const words = describeServiceError(statusCode, errorBody, attempt + 1, settings.redact(headerValue(answer.headers, 'www-authenticate') ?? ''), settings.signIn);
		// A refusal naming a field or a media type: which setting maps it leads, the Service's words follow.
		const said = readErrorBody(errorBody);
		const scanned = errorBodyWords(errorBody.toString('utf8'), said.message, said.code);
		const envelope = envelopeHint(statusCode, `${scanned} ${said.message ?? ''}`, spoken.envelope, REQUEST_NAMES_SETTING);
		const names = refusalHint(statusCode, scanned, spoken.request);
		const hint = [envelope, names?.text].filter((h) => h !== undefined).join(' ') || undefined;
		// Only fields sent under their mapped names: the Service's words on the value lead, the setting follows.
		const leads = hint !== undefined && (envelope !== undefined || names?.leads === true);
		throw new NodeApiError(this.getNode(), { status: statusCode, code: words.code === undefined ? null : settings.redact(words.code) } as JsonObject, {
			// The words are decoded from the body: redacted here, whatever escapes the body used.
			message: settings.redact(leads ? hint : words.message),
			description: settings.redact(`${leads ? `${words.message.replace(/\.$/, '')}. ` : hint ? `${hint} ` : ''}${words.description} (${call.method} ${call.path})`),
			httpCode: String(statusCode),
			itemIndex,
		});
	}
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
	// One deadline per answer, from its request's start (not from its headers): a poll's or a result's body included.
	const deadlines = new WeakMap<object, { at: number; ms: number }>();
	const deadlineOf = (raw: object) => deadlines.get(raw) ?? { at: Date.now() + settings.requestTimeoutMs, ms: settings.requestTimeoutMs };
	const deps: JobDeps = {
		baseUrl: settings.baseUrl,
		waitMs: settings.jobWaitMs,
		get: async (url) => {
			const deadline = { at: Date.now() + settings.requestTimeoutMs, ms: settings.requestTimeoutMs };
			const raw = await send.call(this, settings, { method: 'GET', path: '' }, url);
			deadlines.set(raw, deadline);
			return raw;
		},
		read: async (raw, asResult) => {
			const read = await readAnswerBody(raw.body, asResult ? call.response : 'json', settings, headerValue(raw.headers, 'content-type'), deadlineOf(raw));
			if ('problem' in read) throw new JobError(read.problem.message, read.problem.description, raw.statusCode);
			return read.body;
		},
		said: async (raw) => readErrorBody(await readErrorText(raw.body, settings, deadlineOf(raw)).catch(() => Buffer.alloc(0))).message,
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
		// A write the Service accepted is never reported failed for want of a job to follow: its 202 is passed on, saying so.
		if (error instanceof JobError && error.unfollowable !== undefined && call.method !== 'GET' && (call.response ?? 'json') === 'json') {
			return { ...accepted, body: withJobNote(accepted.body, error.unfollowable) as IDataObject };
		}
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
	if (call.headers) Object.assign(request.headers!, call.headers);
	if (call.body !== undefined) {
		const isRaw = typeof call.body === 'string' || Buffer.isBuffer(call.body);
		request.body = isRaw ? call.body : JSON.stringify(call.body);
		request.headers!['Content-Type'] = call.contentType ?? 'application/json';
	}
	const full = await sendAuthenticated(this, request);
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
	const code = connectionCode(error);
	return new NodeApiError(this.getNode(), { code } as JsonObject, {
		message: `Could not get an answer from the Service (${code} after ${attempts} attempt${attempts === 1 ? '' : 's'})`,
		description: `The connection failed or was dropped during ${call.method} ${call.path}. Check the Base URL and that the Service is reachable, then try again.`,
		itemIndex,
	});
}

function connectionCode(error: unknown): string {
	const cause = error as { code?: string; cause?: { code?: string } };
	return cause.cause?.code ?? cause.code ?? 'network error';
}

/**
 * Where a write comes from, for its key: the execution, the node, the item, the request. Outside an
 * execution (an activation registering its endpoint) none: each activation is a new request, and a key
 * kept across them would have a Service replay an endpoint deleted since.
 */
function writeOrigin(context: ServiceContext, call: ServiceCall, itemIndex: number) {
	// An execution's step (it has input items); an activation's hook or a delivery is none.
	if (!('getInputData' in context) || typeof context.getExecutionId !== 'function') return undefined;
	const execution = context.getExecutionId();
	if (typeof execution !== 'string' || execution === '') return undefined;
	return { execution, node: context.getNode().id ?? context.getNode().name, item: itemIndex, method: call.method, path: call.path, body: call.body };
}
