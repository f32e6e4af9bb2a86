import { createGzip } from 'node:zlib';

import type { SandboxControl } from './control';

/** gzip of `KE-1,` then `bytes` of one CSV record with no line end: 64 MiB is about 64 KiB on the wire. */
export async function gzipEndlessRecord(bytes: number): Promise<Buffer> {
	const gzip = createGzip({ level: 9 });
	const parts: Buffer[] = [];
	gzip.on('data', (chunk: Buffer) => parts.push(chunk));
	const ended = new Promise((resolve) => gzip.on('end', resolve));
	const chunk = Buffer.alloc(1024 * 1024, 'y');
	gzip.write('KE-1,');
	for (let i = 0; i < bytes / chunk.length; i++) gzip.write(chunk);
	gzip.end();
	await ended;
	return Buffer.concat(parts);
}

/** Page `page` (1-based) of `path` answers `gzipped` (an endless record) once, with no next cursor. */
export function endlessRecordPage(control: SandboxControl, gzipped: Buffer, path: string, page: number): void {
	control.failRoute({
		path,
		skip: page - 1,
		times: 1,
		mode: 'answer',
		status: 200,
		contentType: 'text/csv',
		body: gzipped.toString('latin1'),
		bodyEncoding: 'latin1',
		headers: { 'Content-Encoding': 'gzip' },
	});
}
