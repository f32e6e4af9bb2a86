import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { describeServiceError } from '../errors';
import { isRetryableStatus, retryDelayMs } from '../retry';
import type { ServiceSettings } from '../settings';
import { readServiceSettings } from '../settings';

export type ServiceContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions;

export interface ServiceCall {
	method: IHttpRequestMethods;
	/** Path from the base URL, e.g. /v1/reader/exports/portfolio. */
	path: string;
	qs?: IDataObject;
	/** JSON body, or raw bytes/text sent with `contentType`. */
	body?: unknown;
	contentType?: string;
	/** How to hand back the answer body: parsed JSON (default), exact bytes, or a stream. */
	response?: 'json' | 'buffer' | 'stream';
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

/** Reads the credential's settings, failing with a clear NodeOperationError when unusable. */
export async function getServiceSettings(this: ServiceContext, itemIndex = 0): Promise<ServiceSettings> {
	const result = readServiceSettings(await this.getCredentials(CREDENTIAL));
	if (result.problem !== undefined) {
		throw new NodeOperationError(this.getNode(), result.problem, { itemIndex });
	}
	return result.settings;
}

/**
 * One call to the Service, authenticated by the credential's `authenticate` block, retried with
 * backoff (honouring Retry-After) on 429, and for GET/PUT/DELETE also on 5xx and dropped connections. Failures become NodeApiError in plain words;
 * the access token never appears in them.
 */
export async function serviceRequest<T = unknown>(
	this: ServiceContext,
	call: ServiceCall,
	options: ServiceCallOptions = {},
): Promise<ServiceAnswer<T>> {
	const { itemIndex = 0, allowStatuses = [], maxAttempts = DEFAULT_ATTEMPTS } = options;
	const settings = options.settings ?? (await getServiceSettings.call(this, itemIndex));
	const idempotent = call.method === 'GET' || call.method === 'PUT' || call.method === 'DELETE';

	for (let attempt = 0; ; attempt++) {
		const isLastAttempt = attempt + 1 >= maxAttempts;
		let answer: ServiceAnswer<unknown>;
		try {
			answer = await send.call(this, settings, call);
		} catch (error) {
			if (idempotent && !isLastAttempt) {
				await sleep(retryDelayMs(attempt, undefined, Date.now()));
				continue;
			}
			throw connectionError.call(this, error, call, attempt + 1, itemIndex);
		}

		const { statusCode } = answer;
		if (statusCode >= 200 && statusCode < 300) return answer as ServiceAnswer<T>;
		if (allowStatuses.includes(statusCode)) {
			return { ...answer, body: await bodyAsBuffer(answer.body) } as ServiceAnswer<T>;
		}
		// A 5xx answer to a POST may come after the Service acted on it: sending it again could create a
		// second invitation, import or endpoint. A 429 was refused before any work, so it is safe to repeat.
		const retryable = idempotent ? isRetryableStatus(statusCode) : statusCode === 429;
		if (retryable && !isLastAttempt) {
			await drain(answer.body);
			await sleep(retryDelayMs(attempt, headerValue(answer.headers, 'retry-after'), Date.now()));
			continue;
		}
		const words = describeServiceError(statusCode, await bodyAsBuffer(answer.body), attempt + 1);
		throw new NodeApiError(this.getNode(), { status: statusCode, code: words.code ?? null } as JsonObject, {
			message: words.message,
			description: `${words.description} (${call.method} ${call.path})`,
			httpCode: String(statusCode),
			itemIndex,
		});
	}
}

async function send(
	this: ServiceContext,
	settings: ServiceSettings,
	call: ServiceCall,
): Promise<ServiceAnswer<unknown>> {
	const request: IHttpRequestOptions = {
		method: call.method,
		url: `${settings.baseUrl}${call.path}`,
		qs: call.qs,
		headers: { Accept: call.response === 'json' || !call.response ? 'application/json' : '*/*' },
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		encoding: call.response === 'stream' ? 'stream' : 'arraybuffer',
		json: false,
	};
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
	let body: unknown = full.body;
	const ok = full.statusCode >= 200 && full.statusCode < 300;
	if (ok && (call.response === 'json' || !call.response)) {
		body = parseJson(await bodyAsBuffer(body));
	}
	return { statusCode: full.statusCode, headers: full.headers ?? {}, body };
}

function parseJson(buffer: Buffer): unknown {
	const text = buffer.toString('utf8');
	if (text.trim() === '') return {};
	try {
		return JSON.parse(text);
	} catch {
		return { raw: text };
	}
}

/** First value of a response header, case-insensitively. */
export function headerValue(
	headers: Record<string, string | string[] | undefined>,
	name: string,
): string | undefined {
	const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
	const value = key === undefined ? undefined : headers[key];
	return Array.isArray(value) ? value[0] : value;
}

async function bodyAsBuffer(body: unknown): Promise<Buffer> {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (typeof body === 'string') return Buffer.from(body);
	if (isStream(body)) {
		const chunks: Buffer[] = [];
		for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
		return Buffer.concat(chunks);
	}
	if (body === undefined || body === null) return Buffer.alloc(0);
	return Buffer.from(JSON.stringify(body));
}

/** A response body handed back as a stream (node:stream is not importable in Cloud nodes). */
interface BodyStream extends AsyncIterable<unknown> {
	resume(): unknown;
}

function isStream(body: unknown): body is BodyStream {
	return typeof (body as BodyStream | undefined)?.resume === 'function';
}

/** Discards a streamed body so its connection is released before a retry. */
async function drain(body: unknown): Promise<void> {
	if (isStream(body)) body.resume();
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
