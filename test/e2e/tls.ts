import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LocalhostTls {
	/** PEM of the CA that signed the server certificate: what clients of the server must trust. */
	ca: string;
	caPath: string;
	keyPath: string;
	certPath: string;
}

/**
 * A CA and a server certificate it signed (SAN IP:127.0.0.1 and DNS:localhost), made with openssl
 * in `dir`. Kept when they already exist, so a restarted n8n presents the same certificate and
 * anyone who trusts its CA (the sandbox delivering webhooks) keeps trusting it.
 */
export async function ensureLocalhostTls(dir: string, caName: string): Promise<LocalhostTls> {
	const file = (name: string) => join(dir, name);
	const tls = { caPath: file('ca.pem'), keyPath: file('server.key'), certPath: file('server.pem') };
	if (![tls.caPath, tls.keyPath, tls.certPath].every((path) => existsSync(path))) {
		await mkdir(dir, { recursive: true });
		const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '30'];
		await run('openssl', [
			'req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', tls.caPath,
			'-subj', `/CN=${caName}`,
			'-addext', 'basicConstraints=critical,CA:TRUE',
			'-addext', 'keyUsage=critical,keyCertSign,cRLSign',
		]);
		// openssl 3 issues a CA-signed leaf from `req -x509 -CA` in one step.
		await run('openssl', [
			'req', '-x509', ...ec, '-keyout', tls.keyPath, '-out', tls.certPath,
			'-CA', tls.caPath, '-CAkey', file('ca.key'), '-subj', '/CN=localhost',
			'-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
			'-addext', 'basicConstraints=critical,CA:FALSE',
			'-addext', 'keyUsage=critical,digitalSignature',
			'-addext', 'extendedKeyUsage=serverAuth',
		]);
	}
	return { ...tls, ca: await readFile(tls.caPath, 'utf8') };
}
