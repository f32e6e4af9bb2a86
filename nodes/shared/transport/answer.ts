/**
 * Reading what the Service sent back: a header, a 2xx body as the call asked for it (JSON, CSV text,
 * bytes or a bounded stream), an error body's text, and why a body could not be read, in words.
 * Pure: no n8n types; the request itself is in serviceRequest.ts.
 */
import { BodyReadError, idleGuarded, isStream, readCapped } from './body';
import type { ServiceSettings } from './settings';
import { parseExactJson } from '../exactJson';

/** How to hand back the answer body: parsed JSON (default), exact bytes, or a stream. */
export type AnswerKind = 'json' | 'buffer' | 'stream';

const ERROR_BODY_BYTES = 1024 * 1024;

/** First value of a response header, case-insensitively. */
export function headerValue(
	headers: Record<string, string | string[] | undefined>,
	name: string,
): string | undefined {
	const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
	const value = key === undefined ? undefined : headers[key];
	return Array.isArray(value) ? value[0] : value;
}

export type BodyRead = { body: unknown } | { problem: { message: string; description: string } };

/** The body of a 2xx answer as the call asked for it, or why it could not be read. */
export async function readAnswerBody(
	body: unknown,
	kind: AnswerKind | undefined,
	settings: ServiceSettings,
	contentType: string | undefined,
	deadline: { at: number; ms: number },
): Promise<BodyRead> {
	if (kind === 'stream') return { body: guardedStream(body, settings.requestTimeoutMs, settings.maxFileBytes) };
	let bytes: Buffer;
	try {
		bytes = await readCapped(body, settings.requestTimeoutMs, settings.maxResponseBytes, deadline);
	} catch (error) {
		return readFailure(error);
	}
	if (kind === 'buffer') return { body: bytes };
	const text = settings.redact(bytes.toString('utf8'));
	if (text.trim() === '') return { body: {} };
	// A JSON lines answer of one line parses as JSON too, yet is a list of one.
	if (JSON_LINES_TYPE.test((contentType ?? '').split(';')[0].trim())) {
		const lines = jsonLines(text);
		if (lines !== undefined) return { body: settings.redactValue(lines) };
	}
	try {
		// Redacted again after parsing: a token \u-escaped in a JSON string is only whole once decoded.
		return { body: settings.redactValue(parseExactJson(text)) };
	} catch {
		// Read by its content type: CSV is an answer too (the caller reads it as rows); only markup or
		// an unnamed format suggests the Base URL reaches something other than the Service.
		const type = (contentType ?? '').split(';')[0].trim();
		if (CSV_TYPE.test(type)) return { body: text };
		// JSON lines (x-ndjson, jsonl, or any type whose every line is a JSON object or list): a list.
		const lines = jsonLines(text);
		if (lines !== undefined) return { body: settings.redactValue(lines) };
		if (JSON_TYPE.test(type)) {
			return {
				problem: {
					message: 'The Service answered with malformed JSON',
					description: `Its answer says it is ${type} but does not parse as JSON: "${trimmed(text)}". Nothing was passed on; this is a fault on the Service's side.`,
				},
			};
		}
		return {
			problem: {
				message: `The Service answered with something that is not JSON${type ? ` (${type})` : ''}`,
				description: `It sent: "${trimmed(text)}". Nothing was passed on. ${
					/html/i.test(type) || text.trimStart().startsWith('<')
						? 'Check that the Base URL points at the Service itself, not at a login page or proxy.'
						: 'The node reads JSON and CSV answers only.'
				}`,
			},
		};
	}
}

/**
 * The values of a JSON lines answer (one JSON object or list per line, blank lines and a record
 * separator before each line allowed), or undefined when any line is something else.
 */
export function jsonLines(text: string): unknown[] | undefined {
	const values: unknown[] = [];
	for (const raw of text.split('\n')) {
		const line = raw.replace(/^\u001e/, '').trim();
		if (line === '') continue;
		if (!line.startsWith('{') && !line.startsWith('[')) return undefined;
		try {
			values.push(parseExactJson(line));
		} catch {
			return undefined;
		}
	}
	return values.length > 0 ? values : undefined;
}

const JSON_LINES_TYPE = /^\s*application\/(x-ndjson|ndjson|jsonl|x-jsonl|jsonlines|x-jsonlines|json-seq)\s*$/i;
const CSV_TYPE = /^\s*(text\/csv|application\/csv|text\/comma-separated-values)\b/i;
const JSON_TYPE = /^\s*application\/([\w.+-]*\+)?json\b/i;

export function readFailure(error: unknown): BodyRead {
	if (error instanceof BodyReadError) {
		return { problem: { message: `The Service's answer could not be read: ${error.message}`, description: readProblemWords(error) } };
	}
	return {
		problem: {
			message: 'The connection to the Service dropped in the middle of its answer',
			description: 'The answer is incomplete, so nothing was passed on; it is not asked for again automatically. Run the node again.',
		},
	};
}

/** An error body, capped well below the answer cap (only its words are shown), token removed. */
/** An error body's text, within the answer's deadline (from its request's start: a body that trickles ends there too). */
export async function readErrorText(body: unknown, settings: ServiceSettings, deadline: { at: number; ms: number }): Promise<Buffer> {
	const bytes = await readCapped(body, settings.requestTimeoutMs, Math.min(settings.maxResponseBytes, ERROR_BODY_BYTES), deadline).catch(
		(error: unknown) => {
			if (error instanceof BodyReadError && error.kind === 'too-large') return Buffer.alloc(0);
			throw error;
		},
	);
	const text = bytes.toString('utf8');
	const redacted = settings.redact(text);
	return redacted === text ? bytes : Buffer.from(redacted, 'utf8');
}

/**
 * The body as a Readable whose pauses are bounded by the Request Timeout, made with the response's
 * own Readable class (node:stream may not be imported) so prepareBinaryData can consume it.
 */
function guardedStream(body: unknown, idleMs: number, maxBytes: number): unknown {
	if (!isStream(body)) return body;
	const readableClass = body.constructor as unknown as { from?: (source: AsyncIterable<Buffer>) => unknown };
	// The bytes as decompressed by n8n's HTTP client: a small gzip answer cannot become an unbounded file.
	const guarded = idleGuarded(body, idleMs, undefined, { bytes: maxBytes, what: 'Max File Size' });
	return typeof readableClass.from === 'function' ? readableClass.from(guarded) : body;
}

function readProblemWords(error: BodyReadError): string {
	if (error.kind === 'too-large') {
		return 'Nothing was passed on. If the Service really sends answers this large, raise Max Response Size under Advanced Settings in the Service API credential.';
	}
	return error.kind === 'idle'
		? 'The Service stopped sending part-way, so the answer is incomplete and nothing was passed on. Try again; if the Service is just slow, raise Request Timeout under Advanced Settings in the Service API credential.'
		: 'The answer came too slowly to be complete within the Request Timeout, so nothing was passed on and it is not asked for again. If the Service is just slow, raise Request Timeout under Advanced Settings in the Service API credential.';
}

function trimmed(text: string): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
