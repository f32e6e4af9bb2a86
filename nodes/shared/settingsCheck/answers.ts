/**
 * Reading a probe's answer: its text, whether it is JSON, CSV or markup, the Service's words, and a
 * request shown as the user would type it. Pure: no n8n types; no regex on the Service's text
 * beyond linear ones.
 */
import { readErrorBody } from '../transport/errors';
import { jsonLines } from '../transport/answer';
import { detectDelimiter, firstRecordEnd, splitPlain, type CsvDelimiter } from '../csv';
import { CsvTextDecoder } from '../csvText';
import { parse } from 'csv-parse/sync';
import type { ProbeAnswer, ProbeRequest } from './types';
import { parseExactJson } from '../exactJson';

export const PATHS = {
	catalogue: '/v1/reader/webhooks/catalogue',
	portfolio: '/v1/reader/exports/portfolio',
	expiries: '/v1/reader/exports/expiries',
	decisions: '/v1/reader/exports/decisions',
	statements: '/v1/reader/exports/statements',
} as const;

export const NEXT_CURSOR = 'x-service-next-cursor';

// ignoreBOM: keep a byte order mark in the text (the CSV finding reports it; readers strip it themselves).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The body as text, its byte order mark kept (the CSV finding reports it). */
export function bodyText(answer: ProbeAnswer): string {
	return decoder.decode(answer.body);
}

/** The body as text without a byte order mark: what JSON and words are read from. */
export function plainText(answer: ProbeAnswer): string {
	const text = bodyText(answer);
	return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

export const succeeded = (answer: ProbeAnswer) => answer.status >= 200 && answer.status < 300;

/** The media type, lower case, without parameters. */
export function mediaType(answer: ProbeAnswer): string {
	return (answer.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

const isJsonType = (type: string) => type === 'application/json' || type.endsWith('+json') || type.endsWith('/json');
const isJsonLinesType = (type: string) => ['application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/x-jsonl', 'application/jsonlines', 'application/x-jsonlines', 'application/json-seq'].includes(type);
const isCsvType = (type: string) => type === 'text/csv' || type === 'application/csv' || type === 'text/comma-separated-values';

/** Markup: a login page or another site, not the Service. */
export function isHtml(answer: ProbeAnswer): boolean {
	const type = mediaType(answer);
	return type.includes('html') || (!isJsonType(type) && bodyText(answer).trimStart().startsWith('<'));
}

export function isCsv(answer: ProbeAnswer): boolean {
	return isCsvType(mediaType(answer));
}

/** The JSON value of an answer (JSON lines as a list), or undefined when it is not JSON (or was cut off). */
export function jsonOf(answer: ProbeAnswer): unknown {
	const text = plainText(answer);
	if (text.trim() === '') return undefined;
	if (isJsonLinesType(mediaType(answer))) return jsonLines(text);
	try {
		return parseExactJson(text) as unknown;
	} catch {
		return jsonLines(text);
	}
}

/** Whether a 2xx answer is JSON rather than CSV: by its content type, else by its body (a cut body by its first character). */
export function isJsonAnswer(answer: ProbeAnswer): boolean {
	if (!succeeded(answer) || answer.status === 204) return false;
	const type = mediaType(answer);
	if (isCsvType(type) || type.includes('html')) return false;
	if (isJsonType(type) || isJsonLinesType(type)) return true;
	if (jsonOf(answer) !== undefined) return true;
	const start = bodyText(answer).trimStart()[0];
	return answer.truncated && (start === '{' || start === '[');
}

/** The Service's words in an answer (its error message and code), short; empty when it said none. */
export function serviceWords(answer: ProbeAnswer): string {
	if (answer.status < 400 || isHtml(answer)) return '';
	const { code, message } = readErrorBody(plainText(answer));
	const words = [code, message].filter((part): part is string => typeof part === 'string' && part !== '' && part !== undefined);
	const text = [...new Set(words)].join(': ');
	return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** The Service's words in a refusal, whole (up to 2,000 characters): where a quoted name may stand. */
export function refusalWords(answer: ProbeAnswer): string {
	if (answer.status < 400 || isHtml(answer)) return '';
	const { code, message } = readErrorBody(plainText(answer));
	return `${code ?? ''} ${message ?? ''}`.slice(0, 2000);
}

/** "404 (not_found: No such route)" or "200 (text/csv)". */
export function answerShown(answer: ProbeAnswer): string {
	const words = serviceWords(answer);
	if (words) return `${answer.status} ("${words}")`;
	const type = mediaType(answer);
	return type ? `${answer.status} (${type})` : String(answer.status);
}

/** The request as the user would read it; long values (a cursor) shortened. */
export function requestShown(request: ProbeRequest): string {
	const query = (request.query ?? []).map(([name, value]) => `${name}=${value.length > 24 ? `${value.slice(0, 12)}…` : value}`).join('&');
	return `GET ${request.path}${query ? `?${query}` : ''}`;
}

export interface CsvRead {
	delimiter: CsvDelimiter;
	/** Every record, the header row first; a record cut off by the size cap is left out. */
	records: string[][];
	bom: boolean;
	lineEnd: 'CRLF' | 'LF' | 'CR' | 'none';
	/** The charset read (csvText.ts), what the Content-Type named, and the delimiter an Excel `sep=` line gave. */
	charset: string;
	namedCharset?: string;
	sep?: CsvDelimiter;
}

/** A CSV page read with the delimiter of its own first record (or `delimiter`), or why it cannot be. */
export function readCsv(answer: ProbeAnswer, delimiter?: CsvDelimiter): CsvRead | { problem: string } {
	let text: string;
	let decoder: CsvTextDecoder;
	try {
		decoder = new CsvTextDecoder(answer.headers.get('content-type'));
		text = decoder.push(answer.body) + decoder.end();
	} catch (error) {
		return { problem: (error as Error).message };
	}
	const bom = decoder.bom !== undefined;
	const sep = decoder.sep ? decoder.sep.delimiter : undefined;
	if (answer.truncated) {
		// Only whole records: up to the last line end.
		const last = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
		text = last < 0 ? '' : text.slice(0, last + 1);
	}
	const body = text.replace(/^[\r\n]+/, '');
	const end = firstRecordEnd(body);
	const header = end < 0 ? body : body.slice(0, end);
	const lineEnd = end < 0 ? 'none' : body[end] === '\n' ? 'LF' : body[end + 1] === '\n' ? 'CRLF' : 'CR';
	let found: CsvDelimiter;
	try {
		found = delimiter ?? sep ?? detectDelimiter(header);
	} catch (error) {
		return { problem: (error as Error).message };
	}
	try {
		const records = splitPlain(body, found) ?? (parse(body, { delimiter: found, skip_empty_lines: true, relax_column_count: true }) as string[][]);
		return { delimiter: found, records, bom, lineEnd, charset: decoder.encoding ?? 'utf-8', namedCharset: decoder.namedEncoding, sep };
	} catch (error) {
		return { problem: `it does not read as CSV (${(error as Error).message.slice(0, 120)})` };
	}
}

/** Whether two answers hold the same rows: their text, less a byte order mark. */
export function sameBody(a: ProbeAnswer, b: ProbeAnswer): boolean {
	return plainText(a) === plainText(b);
}

const NAME_CHARS = new Set('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.[]');
const QUOTES: ReadonlyMap<string, string> = new Map([['"', '"'], ['`', '`'], ["'", "'"], ['\u201c', '\u201d']]);

/** Names shaped like a query parameter (a letter or `_` first) that the words quote (`"page_token"`), in order: one linear pass. */
export function quotedNames(words: string): string[] {
	const out: string[] = [];
	let i = 0;
	while (i < words.length) {
		const close = QUOTES.get(words[i]);
		if (close === undefined) {
			i++;
			continue;
		}
		const end = words.indexOf(close, i + 1);
		if (end < 0) break;
		const inner = words.slice(i + 1, end);
		const first = inner[0] ?? '';
		const named = (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first === '_';
		if (named && inner.length <= 40 && [...inner].every((c) => NAME_CHARS.has(c)) && !out.includes(inner)) out.push(inner);
		i = end + 1;
	}
	return out;
}

/** Where a refusal lists what it takes: "This route takes: a, b", "use csv or ndjson", "one of x, y". */
const LIST_MARKERS = ['takes', 'accepts', 'allowed', 'one of', 'use', 'expected', 'supported', 'valid', 'must be', 'try'] as const;
const NOT_NAMES = new Set(['or', 'and', 'the', 'a', 'an', 'of', 'to', 'in', 'is', 'are', 'be', 'one', 'only', 'these', 'this', 'following', 'parameter', 'parameters', 'value', 'values', 'query', 'with', 'for', 'it', 'route', 'got', 'either', 'names', 'name']);

const nameShaped = (token: string) => {
	const first = token[0] ?? '';
	return ((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first === '_') && token.length <= 40;
};

/** Names a refusal lists after LIST_MARKERS, up to the sentence's end, in order: one linear pass per marker. */
export function listedNames(words: string): string[] {
	const lower = words.toLowerCase();
	const out: string[] = [];
	for (const marker of LIST_MARKERS) {
		for (let at = lower.indexOf(marker); at >= 0; at = lower.indexOf(marker, at + marker.length)) {
			// A whole word only ("used" is not "use").
			const before = lower[at - 1] ?? ' ';
			const after = lower[at + marker.length] ?? ' ';
			if (NAME_CHARS.has(before) || NAME_CHARS.has(after)) continue;
			let token = '';
			for (let i = at + marker.length; i <= words.length; i++) {
				const c = words[i] ?? ' ';
				const sentenceEnd = c === ';' || c === '\n' || (c === '.' && !NAME_CHARS.has(words[i + 1] ?? ' '));
				if (NAME_CHARS.has(c) && !sentenceEnd) {
					token += c;
					continue;
				}
				if (token !== '' && nameShaped(token) && !NOT_NAMES.has(token.toLowerCase()) && !out.includes(token)) out.push(token);
				token = '';
				if (sentenceEnd) break;
			}
		}
	}
	return out;
}

/**
 * The names a check tries, in order: its list, with a name a refusal quotes moved (or, at most
 * `maxHeard` times, added) to the front. A name is only proposed once an answer shows it working.
 */
export class NameQueue {
	private readonly queue: string[];
	private readonly tried = new Set<string>();
	private heardCount = 0;

	constructor(names: readonly string[], private readonly maxHeard = 2) {
		this.queue = unique(names);
	}

	next(): string | undefined {
		for (let name = this.queue.shift(); name !== undefined; name = this.queue.shift()) {
			if (!this.tried.has(name)) {
				this.tried.add(name);
				return name;
			}
		}
		return undefined;
	}

	/** The words of a refusal: the names they quote or list that were not tried go next. */
	heard(words: string, notNames: readonly string[] = []): void {
		const front: string[] = [];
		for (const name of unique([...quotedNames(words), ...listedNames(words)])) {
			if (this.tried.has(name) || notNames.includes(name)) continue;
			const at = this.queue.indexOf(name);
			if (at >= 0) this.queue.splice(at, 1);
			else if (this.heardCount < this.maxHeard) this.heardCount++;
			else continue;
			front.push(name);
		}
		this.queue.unshift(...front);
	}
}

export function unique<T>(values: readonly T[]): T[] {
	return [...new Set(values)];
}
