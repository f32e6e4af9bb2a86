import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RouteFault } from './faults';
import { bearerToken, sendJson } from './http';
import { encodeToken } from './tokenForms';

let endlessCsvPages = 0;

/** Answers a request as the injected fault says; `hang` and `stall` leave it open until the sandbox closes. */
export function answerRouteFault(fault: RouteFault, req: IncomingMessage, res: ServerResponse, url: URL): void {
	switch (fault.mode) {
		case 'redirect':
			res.writeHead(fault.status, { Location: fault.location, 'Content-Length': 0 });
			res.end();
			return;
		case 'hang':
			return;
		case 'drop':
			req.socket.destroy();
			return;
		case 'stall':
			res.writeHead(200, { 'Content-Type': fault.contentType ?? 'application/json' });
			res.write(fault.contentType === 'text/csv' ? 'ke,company_name\r\nKE-1,Acme\r\n' : '{"data": [');
			return;
		case 'oversize': {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			const row = `{"padding":"${'x'.repeat(1000)}"},`;
			let sent = 0;
			const write = () => {
				while (sent < fault.bytes) {
					sent += row.length;
					if (!res.write(row)) {
						res.once('drain', write);
						return;
					}
				}
				res.end('{}]');
			};
			res.write('{"data":[');
			write();
			return;
		}
		case 'endlessCursor': {
			if (fault.csv === true) {
				// Counted, not read off the query: new whatever the cursor parameter's name.
				const page = ++endlessCsvPages;
				res.writeHead(200, { 'Content-Type': 'text/csv', 'X-Service-Next-Cursor': `e${page}` });
				res.end(`ke,company_name\r\nKE-E${page},Endless ${page}\r\n`);
				return;
			}
			const page = Number(url.searchParams.get('cursor')?.replace(/^c/, '') ?? '0') + 1;
			sendJson(res, 200, { data: [{ page }] }, { 'X-Service-Next-Cursor': `c${page}` });
			return;
		}
		case 'echoToken': {
			const token = 'p'.repeat(fault.pad ?? 0) + encodeToken(bearerToken(req) ?? '', fault.form ?? 'raw');
			// Written as JSON text by hand: a \u escape stays in the body as the Service wrote it.
			const quoted = (text: string) => `"${fault.form === 'jsonEscaped' || fault.form === 'jsonSolidus' ? text : JSON.stringify(text).slice(1, -1)}"`;
			const json = (status: number, body: string, headers: Record<string, string> = {}) => {
				res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
				res.end(body);
			};
			switch (fault.in ?? 'message') {
				case 'code':
					json(fault.status, `{"error":{"code":${quoted(token)},"message":"Not found."}}`);
					return;
				case 'cursor':
					if (url.searchParams.get('format') === 'csv') {
						res.writeHead(200, { 'Content-Type': 'text/csv', 'X-Service-Next-Cursor': token });
						res.end('ke,company_name\r\nKE-1,Acme\r\n');
						return;
					}
					sendJson(res, 200, { data: [{ ke: 'KE-1' }] }, { 'X-Service-Next-Cursor': token });
					return;
				case 'wwwAuthenticate':
					json(401, '{"error":{"code":"unauthorized","message":"No."}}', { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${token}"` });
					return;
				case 'fileName':
					json(200, '{"ks":"KS-1"}', { 'Content-Disposition': `attachment; filename="${encodeToken((bearerToken(req) ?? '').replace(/[\\/]/g, '_'), fault.form ?? 'raw')}.json"` });
					return;
				case 'message':
					if (fault.form !== 'jsonEscaped' && fault.form !== 'jsonSolidus') {
						const body = fault.status >= 400 ? { error: { code: 'bad_token', message: `The token ${token} may not do this.` } } : { data: [{ note: `issued to ${token}` }] };
						sendJson(res, fault.status, body);
						return;
					}
					json(
						fault.status,
						fault.status >= 400
							? `{"error":{"code":"bad_token","message":${quoted(`The token ${token} may not do this.`)}}}`
							: `{"data":[{"note":${quoted(`issued to ${token}`)}}]}`,
					);
					return;
			}
			return;
		}
		case 'drip': {
			res.writeHead(fault.status ?? 200, { 'Content-Type': 'application/json' });
			let at = 0;
			const timer = setInterval(() => {
				if (res.destroyed || at >= fault.body.length) {
					clearInterval(timer);
					if (!res.destroyed) res.end();
					return;
				}
				res.write(fault.body[at++]);
			}, fault.everyMs);
			res.on('close', () => clearInterval(timer));
			return;
		}
		case 'answer':
			res.writeHead(fault.status, { 'Content-Type': fault.contentType, ...fault.headers });
			res.end(Buffer.from(fault.body, fault.bodyEncoding ?? 'utf8'));
			return;
	}
}
