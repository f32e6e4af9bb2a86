/**
 * Asynchronous jobs: a `202 Accepted` naming where the work can be followed (its `Location`, or a
 * status URL in its body) is polled with GETs on the Base URL's origin until the result is there, inside
 * Job Wait. The first request is never sent again. Pure: no n8n types; serviceRequest.ts sends and reads.
 */
import { isRecord, type Fields } from '../answerShape';
import { headerValue } from './answer';
import { readErrorBody } from './errors';
import { isRetryableStatus, parseRetryAfterMs } from './retry';

type Headers = Record<string, string | string[] | undefined>;

export const JOB_WAIT_SETTING = 'Job Wait (Seconds) under Advanced Settings in the Service API credential';

/** An answer from the Service: its body unread until `read` is called. */
export interface JobRaw {
	statusCode: number;
	headers: Headers;
	body: unknown;
}

export interface JobDeps {
	baseUrl: string;
	/** Job Wait: from the 202's arrival to the result, every poll and wait included. */
	waitMs: number;
	/** GET an absolute URL on the Base URL's origin, with the credential. */
	get(url: string): Promise<JobRaw>;
	/** The body of an answer as the call asked for it (`json` for a status), bounded like any answer. */
	read(raw: JobRaw, asResult: boolean): Promise<unknown>;
	/** The Service's words in an error answer (the body is consumed). */
	said(raw: JobRaw): Promise<string | undefined>;
	discard(raw: JobRaw): void;
	sleep(ms: number): Promise<void>;
	now(): number;
}

/** A job that failed, never ended within Job Wait, or cannot be followed: said in words, never retried. */
export class JobError extends Error {
	constructor(
		message: string,
		readonly description: string,
		readonly statusCode?: number,
		/** Set when the 202 names no job that can be followed (it is not there, or not asked): why, in words. The request stands. */
		readonly unfollowable?: string,
	) {
		super(message);
	}
}

/** Statuses of a status URL that say there is no job to follow there (rather than a job that failed). */
const NO_JOB_STATUSES: ReadonlySet<number> = new Set([404, 405, 410, 501]);

const DONE = new Set(['completed', 'complete', 'succeeded', 'success', 'successful', 'done', 'finished', 'ready', 'processed']);
const FAILED = new Set(['failed', 'failure', 'error', 'errored', 'cancelled', 'canceled', 'aborted', 'expired']);
const RUNNING = new Set(['running', 'pending', 'queued', 'processing', 'accepted', 'in_progress', 'in-progress', 'inprogress', 'started', 'waiting', 'submitted', 'scheduled', 'created', 'new']);
const STATE_NAMES = ['status', 'state', 'job_status', 'jobStatus', 'phase'];
const STATUS_URL_NAMES = ['status_url', 'statusUrl', 'status_href', 'poll_url', 'pollUrl', 'monitor_url', 'job_url', 'jobUrl', 'location', 'self', 'href'];
const RESULT_URL_NAMES = ['result_url', 'resultUrl', 'results_url', 'result_href', 'result', 'results', 'output_url', 'download_url'];
const INLINE_NAMES = ['result', 'results', 'output', 'response'];
/** How deep a body is searched (wrappers, `links`, `_links`, `job`). */
const MAX_DEPTH = 4;
/** Backoff between polls when the Service names no Retry-After: 0.5, 1, 2, 4, 8, then 10 s. */
const FIRST_WAIT_MS = 500;
const MAX_WAIT_MS = 10_000;
/** A Retry-After of 0 still leaves this much between polls. */
const MIN_WAIT_MS = 1_000;
/** Polls of one job at most, whatever Job Wait allows: a Service asking again and again is not asked forever. */
export const MAX_JOB_POLLS = 300;
/** Rate limits and server faults met while polling, in a row, before the job is given up. */
const MAX_POLL_FAULTS = 3;

export type JobState = 'done' | 'failed' | 'running';

/** Parsed JSON objects only: never a stream's or a buffer's own fields. */
const plain = (value: unknown): value is Fields => isRecord(value) && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null);

/** Records of a body breadth first (the outermost first), lists left out: rows are not the job. */
function records(body: unknown): Fields[] {
	const all: Fields[] = [];
	let level: Fields[] = plain(body) ? [body] : [];
	for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
		all.push(...level);
		level = level.flatMap((record) => Object.values(record).filter(plain));
	}
	return all;
}

/** The job's state in a body (status, state, ...: by name, the outermost first); undefined when it names none. */
export function jobState(body: unknown): { state: JobState; record: Fields } | undefined {
	for (const record of records(body)) {
		for (const name of STATE_NAMES) {
			const value = record[name];
			if (typeof value !== 'string') continue;
			const word = value.trim().toLowerCase();
			if (DONE.has(word)) return { state: 'done', record };
			if (FAILED.has(word)) return { state: 'failed', record };
			if (RUNNING.has(word)) return { state: 'running', record };
		}
	}
	return undefined;
}

const urlLike = (value: unknown): value is string =>
	typeof value === 'string' && value.length < 4096 && ((value.startsWith('/') && !value.startsWith('//')) || /^https?:\/\//i.test(value));

/** A URL under one of `names` at any depth (a string, or an object's `href`). */
function namedUrl(body: unknown, names: readonly string[]): string | undefined {
	for (const record of records(body)) {
		for (const name of names) {
			const value = record[name];
			if (urlLike(value)) return value;
			if (isRecord(value) && urlLike(value.href)) return value.href;
		}
	}
	return undefined;
}

/** The one URL-like text of a body at any depth, when there is exactly one. */
function onlyUrl(body: unknown): string | undefined {
	const found = new Set<string>();
	for (const record of records(body)) for (const value of Object.values(record)) if (urlLike(value)) found.add(value);
	return found.size === 1 ? [...found][0] : undefined;
}

/** Where a 202 says its job is followed: its Location, else a status URL in its body by name, then by shape. */
export function jobReference(headers: Headers, body: unknown): string | undefined {
	const location = headerValue(headers, 'location') ?? headerValue(headers, 'content-location');
	if (location !== undefined && location.trim() !== '') return location.trim();
	return namedUrl(body, STATUS_URL_NAMES) ?? onlyUrl(body);
}

/** `reference` as an absolute URL on the Base URL's origin, or why it is refused (never sent). */
export function sameOrigin(reference: string, baseUrl: string): { url: URL } | { refused: string } {
	if (!URL.canParse(reference, `${baseUrl}/`)) return { refused: 'an address that is not a URL' };
	const url = new URL(reference, `${baseUrl}/`);
	const base = new URL(baseUrl);
	// A user name or password would go as Authorization: Basic, in place of the credential's header.
	if (url.username !== '' || url.password !== '') return { refused: 'an address with a user name or password' };
	if (url.origin === base.origin) return { url };
	return { refused: url.protocol === base.protocol ? url.host : `${url.protocol}//${url.host}` };
}

/** The job URL as said in words: its path only (a query may carry a signature or a secret). */
export function jobPath(url: URL): string {
	return url.pathname;
}

/** The wait before the next poll: the Service's Retry-After, else 0.5, 1, 2... s capped at 10 s. */
export function pollWaitMs(headers: Headers, polls: number, nowMs: number): { ms: number; asked: boolean } {
	const asked = parseRetryAfterMs(headerValue(headers, 'retry-after'), nowMs);
	if (asked !== undefined) return { ms: Math.max(asked, MIN_WAIT_MS), asked: true };
	return { ms: Math.min(FIRST_WAIT_MS * 2 ** polls, MAX_WAIT_MS), asked: false };
}

/** Whether a 202 with no job to follow still asks to be waited for: an empty body, or one whose state says not done. */
export function awaitsResult(body: unknown): boolean {
	if (body === undefined || body === null || body === '' || (isRecord(body) && Object.keys(body).length === 0)) return true;
	return jobState(body)?.state === 'running';
}

/** The result a done status holds inline (`result`, `output`...: an object or a list), else undefined: the status is the answer. */
function inlineResult(record: Fields): unknown {
	const name = INLINE_NAMES.find((key) => plain(record[key]) || Array.isArray(record[key]));
	return name === undefined ? undefined : record[name];
}

function failedWords(body: unknown, record: Fields): string | undefined {
	const said = readErrorBody(record);
	const whole = readErrorBody(body);
	const reason = ['reason', 'failure_reason', 'error_message', 'detail'].map((name) => record[name]).find((value) => typeof value === 'string');
	return said.message ?? (reason as string | undefined) ?? whole.message ?? said.code;
}

const secondsText = (ms: number) => `${+(ms / 1000).toFixed(1)} s`;

/**
 * Polls the job at `reference` until its result: a 200/201 that is not a running status, a 303 to the
 * result, or a status saying done (its result inline, or at a result URL, fetched once). Every URL on
 * the Base URL's origin only; a failed job, a job still running at Job Wait and a refused URL throw JobError.
 */
export async function followJob(reference: string, accepted: JobRaw, deps: JobDeps): Promise<{ raw: JobRaw; body: unknown }> {
	const startedAt = deps.now();
	const deadline = startedAt + deps.waitMs;
	let url = checked(reference, deps.baseUrl, 'job to follow');
	let wait = pollWaitMs(accepted.headers, 0, startedAt);
	let faults = 0;
	for (let polls = 0; ; polls++) {
		const now = deps.now();
		if (polls >= MAX_JOB_POLLS) throw stillRunning(url, now - startedAt, deps.waitMs, polls);
		if (now + wait.ms > deadline) {
			// A long Retry-After is said as such; a short one at the end is a job still running.
			if (wait.asked && wait.ms > MAX_WAIT_MS) {
				throw new JobError(
					`The Service asked to wait ${secondsText(wait.ms)} before asking about its job again, more than is left of Job Wait`,
					`The job at ${jobPath(url)} was still running after ${secondsText(now - startedAt)}; Job Wait is ${secondsText(deps.waitMs)}. Raise ${JOB_WAIT_SETTING}, or read the result later at the Service. The request was not sent again.`,
				);
			}
			throw stillRunning(url, now - startedAt, deps.waitMs);
		}
		await deps.sleep(wait.ms);
		const raw = await deps.get(url.toString());
		const status = raw.statusCode;
		if (status >= 300 && status < 400) {
			// A 303 See Other (or any redirect) from the status URL points at the result.
			const location = headerValue(raw.headers, 'location');
			deps.discard(raw);
			if (location === undefined) throw new JobError(`The Service's job answered ${status} without a Location`, `The job at ${jobPath(url)} names no result to read. Check the result at the Service; the request was not sent again.`, status);
			return await result(checked(location, deps.baseUrl, 'result of its job'), deps);
		}
		if (status === 202 || (status >= 200 && status < 300)) {
			faults = 0;
			const body = await deps.read(raw, status !== 202);
			const found = jobState(body);
			if (found?.state === 'failed') throw failed(url, body, found.record, status);
			if (found?.state === 'done' || (status !== 202 && found === undefined)) {
				const resultUrl = namedUrl(body, RESULT_URL_NAMES);
				if (found?.state === 'done' && resultUrl !== undefined) return await result(checked(resultUrl, deps.baseUrl, 'result of its job'), deps);
				return { raw, body: found === undefined ? body : inlineResult(found.record) ?? body };
			}
			// Still running: a new status URL may be named, on the same origin only.
			const next = status === 202 ? jobReference(raw.headers, body) : undefined;
			if (next !== undefined) url = checked(next, deps.baseUrl, 'job to follow');
			wait = pollWaitMs(raw.headers, polls + 1, deps.now());
			continue;
		}
		if (isRetryableStatus(status) && ++faults < MAX_POLL_FAULTS) {
			deps.discard(raw);
			wait = pollWaitMs(raw.headers, polls + 1, deps.now());
			continue;
		}
		const said = await deps.said(raw);
		throw new JobError(
			`The Service answered ${status} when asked about its job`,
			`The job at ${jobPath(url)} could not be followed${said ? `: the Service said "${said}"` : ''}. The request was accepted and not sent again: check its result at the Service before sending it once more.`,
			status,
			NO_JOB_STATUSES.has(status) ? `its job at ${jobPath(url)} answered ${status}${said ? ` ("${said}")` : ''}` : undefined,
		);
	}
}

async function result(url: URL, deps: JobDeps): Promise<{ raw: JobRaw; body: unknown }> {
	const raw = await deps.get(url.toString());
	if (raw.statusCode >= 200 && raw.statusCode < 300 && raw.statusCode !== 202) return { raw, body: await deps.read(raw, true) };
	const said = raw.statusCode >= 300 && raw.statusCode < 400 ? (deps.discard(raw), undefined) : await deps.said(raw);
	throw new JobError(
		`The Service answered ${raw.statusCode} for the result of its job`,
		`The result at ${jobPath(url)} could not be read${said ? `: the Service said "${said}"` : ''}. The job was done and is not run again: read its result at the Service.`,
		raw.statusCode,
	);
}

function checked(reference: string, baseUrl: string, what: string): URL {
	const where = sameOrigin(reference, baseUrl);
	if ('url' in where) return where.url;
	throw new JobError(
		where.refused.startsWith('an address') ? `The Service named a ${what} at ${where.refused}, which is not asked` : `The Service named a ${what} on another origin (${where.refused}), which is not asked`,
		`The access token goes to the Base URL's origin only, so nothing was sent there. The request was accepted and not sent again: check its result at the Service. If the Service has moved, put its new https address in the Base URL of the Service API credential.`,
	);
}

function failed(url: URL, body: unknown, record: Fields, status: number): JobError {
	const said = failedWords(body, record);
	const state = STATE_NAMES.map((name) => record[name]).find((value) => typeof value === 'string') as string;
	return new JobError(
		`The Service's job ended as ${state}${said ? `: ${said}` : ''}`,
		`The job at ${jobPath(url)} did not give a result, so nothing was passed on; the request is not sent again. ${said ? `The Service said: "${said}"` : 'The Service gave no reason.'}`,
		status,
	);
}

function stillRunning(url: URL, waitedMs: number, waitMs: number, polls?: number): JobError {
	return new JobError(
		polls === undefined
			? `The Service's job was still running after ${secondsText(waitedMs)}, within Job Wait (${secondsText(waitMs)})`
			: `The Service's job was still running after ${polls} polls in ${secondsText(waitedMs)}, the most asked of one job`,
		`The job at ${jobPath(url)} gave no result in time, so nothing was passed on and the request was not sent again. Raise ${JOB_WAIT_SETTING}, or read the result later at the Service.`,
	);
}
