import { createHash, timingSafeEqual } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { defaultDialect, type Dialect } from './dialect';
import { shapeAnswer } from './answerShapes';
import { HttpError } from './httpError';
import { JSON_API, jsonApiAnswer, jsonApiError } from './jsonApi';

export { HttpError };

export const maxBodyBytes = 10 * 1024 * 1024;

export function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > maxBodyBytes) {
				reject(new HttpError(413, 'body_too_large', `The request body is over ${maxBodyBytes} bytes: split the file.`));
				req.resume();
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

const answerWording = new WeakMap<ServerResponse, { dialect: Dialect; method: string; path: string }>();

/** Answers on `res` are worded in `dialect` (error bodies, and JSON answers of the Service's routes). */
export function wordAnswers(res: ServerResponse, dialect: Dialect, method: string, path: string): void {
	if (!path.startsWith('/__control/')) answerWording.set(res, { dialect, method, path });
}

/** A route fault's answer is what the test wrote, in every dialect. */
export function answerLiterally(res: ServerResponse): void {
	answerWording.delete(res);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
	const wording = answerWording.get(res);
	const worded = wording && status < 400 ? wording.dialect.answer(wording.method, wording.path, value) : value;
	const answer = wording && status < 400 ? shapeAnswer(wording.dialect.answers, wording.method, wording.path, worded) : { json: worded };
	// JSON:API: the document outermost, whatever wrappers the dialect's answer has inside it.
	const shaped = wording && status < 400 && wording.dialect.envelope === 'jsonapi' && 'json' in answer ? { ...answer, json: jsonApiAnswer(wording.dialect, wording.method, wording.path, answer.json) } : answer;
	const jsonType = wording?.dialect.envelope === 'jsonapi' ? JSON_API : 'application/json; charset=utf-8';
	const [body, type] = 'csv' in shaped ? [Buffer.from(shaped.csv, 'utf8'), 'text/csv; charset=utf-8'] : [Buffer.from(JSON.stringify(shaped.json), 'utf8'), jsonType];
	const sent = wording ? compressedFor(res, wording.dialect, body) : undefined;
	res.writeHead('status' in shaped && shaped.status !== undefined ? shaped.status : status, { 'Content-Type': type, 'Content-Length': (sent ?? body).length, ...(sent ? { 'Content-Encoding': 'gzip' } : {}), ...headers });
	res.end(sent ?? body);
}

/** `body` gzip-compressed when the dialect compresses and the client accepts gzip; else undefined. */
export function compressedFor(res: ServerResponse, dialect: Dialect, body: Buffer): Buffer | undefined {
	if (!dialect.answers.compressed) return undefined;
	const accepts = String(res.req?.headers['accept-encoding'] ?? '');
	return /\bgzip\b/.test(accepts) ? gzipSync(body) : undefined;
}

export function sendError(res: ServerResponse, error: HttpError): void {
	const dialect = answerWording.get(res)?.dialect ?? defaultDialect;
	if (answerWording.has(res) && dialect.envelope === 'jsonapi') {
		const { code, message } = dialect.errorWords(error.code, error.message);
		const body = Buffer.from(JSON.stringify(jsonApiError(error.status, code, message, (error as { source?: Record<string, unknown> }).source)), 'utf8');
		res.writeHead(error.status, { 'Content-Type': JSON_API, 'Content-Length': body.length, ...error.headers });
		res.end(body);
		return;
	}
	if (answerWording.has(res) && dialect.answers.errorsAs === 'problem') {
		// RFC 9457: the dialect's code as the type's last segment and as an extension member.
		const { code, message } = dialect.errorWords(error.code, error.message);
		const body = Buffer.from(JSON.stringify({ type: `https://errors.service.example/${code}`, title: code.replace(/_/g, ' '), status: error.status, detail: message, code }), 'utf8');
		const sent = compressedFor(res, dialect, body);
		res.writeHead(error.status, { 'Content-Type': 'application/problem+json', 'Content-Length': (sent ?? body).length, ...(sent ? { 'Content-Encoding': 'gzip' } : {}), ...error.headers });
		res.end(sent ?? body);
		return;
	}
	sendJson(res, error.status, dialect.errorBody(error.status, error.code, error.message), error.headers);
}

/** Parses a JSON object body, or answers 400 saying what is wrong. */
export function jsonObject(body: Buffer): Record<string, unknown> {
	let value: unknown;
	try {
		value = JSON.parse(body.toString('utf8'));
	} catch {
		throw new HttpError(400, 'invalid_json', 'The request body is not valid JSON: send a JSON object.');
	}
	if (value === null || typeof value !== 'object' || Array.isArray(value)) {
		throw new HttpError(400, 'invalid_json', 'The request body must be a JSON object.');
	}
	return value as Record<string, unknown>;
}

function digest(value: string): Buffer {
	return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time token comparison (hashing first makes the lengths equal). */
export function tokenMatches(given: string, expected: string): boolean {
	return timingSafeEqual(digest(given), digest(expected));
}

/** The bearer token of a request, or undefined when none was sent. */
export function bearerToken(req: IncomingMessage): string | undefined {
	const header = req.headers.authorization;
	if (!header) return undefined;
	const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
	return match ? match[1] : '';
}

/** Writes a chunk and waits for the socket to drain when its buffer is full. */
export function writeChunk(res: ServerResponse, chunk: string | Buffer): Promise<void> {
	if (res.write(chunk)) return Promise.resolve();
	return new Promise((resolve, reject) => {
		const done = () => {
			res.off('drain', done);
			res.off('close', closed);
			resolve();
		};
		const closed = () => {
			res.off('drain', done);
			reject(new Error('The client closed the connection during the export.'));
		};
		res.on('drain', done);
		res.on('close', closed);
	});
}
