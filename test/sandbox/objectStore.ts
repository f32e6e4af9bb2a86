import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { TlsMaterial } from '../tls/certificates';
import { listenHttps, type LocalHttpsServer } from '../tls/httpsServer';

/**
 * The object store a Service hands files over from (as most APIs serve large files): another origin
 * (https://localhost:<its own port>, a leaf of the sandbox's CA), serving objects at pre-signed URLs.
 * It refuses (403) any request carrying Authorization, Cookie, or a header whose value holds an access
 * token, and records every header of every request it gets, so a test can prove no credential came.
 */
export interface ObjectStoreRequest {
	method: string;
	/** Path only: the query is the signature. */
	path: string;
	/** Every header as received, Authorization and Cookie included. */
	headers: Record<string, string | string[] | undefined>;
	status?: number;
	/** Why it was refused, when it was. */
	refused?: string;
	/** The object's bytes, when it was served (in full, or the first half of a stalled one). */
	served?: Buffer;
}

export interface StoredObject {
	bytes: Buffer;
	contentType: string;
	contentDisposition?: string;
	/** Sends the headers and half the body, then nothing more (a stall mid-file). */
	stall?: boolean;
}

export interface ObjectStore {
	/** https://localhost:<port> */
	origin: string;
	/** A pre-signed URL for these bytes; `hops` redirects inside the store (relative Locations) before the file. */
	presign(object: StoredObject, hops?: number): string;
	/** A pre-signed URL whose redirects go round in a loop (a → b → a). */
	loopUrl(): string;
	/** Every request received since the last clear, oldest first. */
	requests(): ObjectStoreRequest[];
	clearRequests(): void;
	close(): Promise<void>;
}

const SIGNATURE = 'X-Store-Signature';

export async function startObjectStore(tls: TlsMaterial, tokens: () => string[]): Promise<ObjectStore> {
	const key = randomBytes(32);
	const objects = new Map<string, StoredObject>();
	const log: ObjectStoreRequest[] = [];
	const sign = (id: string) => createHmac('sha256', key).update(id).digest('hex');
	const signed = (path: string, id: string) => `${path}?${SIGNATURE}=${sign(id)}&X-Store-Expires=300`;
	let server: LocalHttpsServer | undefined;
	const origin = () => `https://localhost:${server!.port}`;

	const credentialIn = (req: IncomingMessage): string | undefined => {
		if (req.headers.authorization !== undefined) return 'Authorization header';
		if (req.headers.cookie !== undefined) return 'Cookie header';
		for (const [name, value] of Object.entries(req.headers)) {
			const text = Array.isArray(value) ? value.join(', ') : (value ?? '');
			if (tokens().some((token) => token !== '' && (text.includes(token) || safeDecode(text).includes(token)))) return `access token in ${name}`;
		}
		return undefined;
	};

	const handle = (req: IncomingMessage, res: ServerResponse) => {
		const url = new URL(req.url ?? '/', 'https://localhost');
		const entry: ObjectStoreRequest = { method: req.method ?? 'GET', path: url.pathname, headers: { ...req.headers } };
		log.push(entry);
		res.on('finish', () => {
			entry.status = res.statusCode;
		});
		const refuse = (status: number, message: string) => void res.writeHead(status, { 'Content-Type': 'text/plain' }).end(message);
		const refused = credentialIn(req);
		if (refused) {
			entry.refused = refused;
			return refuse(403, `Refused: a pre-signed URL takes no credential (${refused}).`);
		}
		// /o/<id>, /hop/<n>/<id>, /loop/<a|b>/<id>
		const parts = url.pathname.split('/').filter((part) => part !== '');
		const id = parts[parts.length - 1] ?? '';
		const given = Buffer.from(url.searchParams.get(SIGNATURE) ?? '', 'utf8');
		const expected = Buffer.from(sign(id), 'utf8');
		if (given.length !== expected.length || !timingSafeEqual(given, expected)) return refuse(403, 'Refused: the signature does not match.');
		const query = url.search;
		if (parts[0] === 'loop') return void res.writeHead(302, { Location: `/loop/${parts[1] === 'a' ? 'b' : 'a'}/${id}${query}` }).end();
		if (parts[0] === 'hop' && Number(parts[1]) > 0) return void res.writeHead(307, { Location: `/hop/${Number(parts[1]) - 1}/${id}${query}` }).end();
		const object = objects.get(id);
		if (object === undefined) return refuse(404, 'No such object.');
		const headers: Record<string, string | number> = { 'Content-Type': object.contentType, 'Content-Length': object.bytes.length };
		if (object.contentDisposition) headers['Content-Disposition'] = object.contentDisposition;
		res.writeHead(200, headers);
		entry.served = object.bytes;
		if (object.stall) {
			res.write(object.bytes.subarray(0, Math.floor(object.bytes.length / 2)));
			return;
		}
		res.end(object.bytes);
	};

	server = await listenHttps(tls, handle);
	return {
		get origin() {
			return origin();
		},
		presign(object, hops = 0) {
			const id = randomBytes(12).toString('hex');
			objects.set(id, object);
			return `${origin()}${signed(hops > 0 ? `/hop/${hops}/${id}` : `/o/${id}`, id)}`;
		},
		loopUrl() {
			const id = randomBytes(12).toString('hex');
			return `${origin()}${signed(`/loop/a/${id}`, id)}`;
		},
		requests: () => log.map((entry) => ({ ...entry })),
		clearRequests() {
			log.length = 0;
		},
		close: () => server!.close(),
	};
}

function safeDecode(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}
