import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM key and certificate of one TLS server, plus the CA that signed it. */
export interface TlsMaterial {
	key: string;
	cert: string;
	ca: string;
}

export interface SandboxCertificates {
	/** PEM of the CA that signed both leaf certificates. */
	ca: string;
	/** The sandbox's own server certificate (SAN IP:127.0.0.1, DNS:localhost). */
	server: TlsMaterial;
	/** A second leaf from the same CA, for test webhook receivers the sandbox must trust. */
	receiver: TlsMaterial;
}

// One CA and its leaves per process: openssl takes ~50 ms a call, and 50 start/stop cycles must stay quick.
let cached: Promise<SandboxCertificates> | undefined;

export function sandboxCertificates(): Promise<SandboxCertificates> {
	cached ??= generate().catch((error: Error) => {
		cached = undefined;
		throw new Error(`Could not generate the sandbox certificates with openssl: ${error.message}`);
	});
	return cached;
}

const leafExtensions = [
	'-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
	'-addext', 'basicConstraints=critical,CA:FALSE',
	'-addext', 'keyUsage=critical,digitalSignature',
	'-addext', 'extendedKeyUsage=serverAuth',
];

async function generate(): Promise<SandboxCertificates> {
	const dir = await mkdtemp(join(tmpdir(), 'service-sandbox-certs-'));
	try {
		const file = (name: string) => join(dir, name);
		const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
		await run('openssl', [
			'req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '30',
			'-subj', '/CN=Service Sandbox Test CA',
			'-addext', 'basicConstraints=critical,CA:TRUE',
			'-addext', 'keyUsage=critical,keyCertSign,cRLSign',
		]);
		const leaf = async (name: string, commonName: string): Promise<TlsMaterial> => {
			// openssl 3 can issue a CA-signed certificate from `req -x509` in one step.
			await run('openssl', [
				'req', '-x509', ...ec, '-keyout', file(`${name}.key`), '-out', file(`${name}.crt`), '-days', '30',
				'-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-subj', `/CN=${commonName}`, ...leafExtensions,
			]);
			return {
				key: await readFile(file(`${name}.key`), 'utf8'),
				cert: await readFile(file(`${name}.crt`), 'utf8'),
				ca: await readFile(file('ca.crt'), 'utf8'),
			};
		};
		const server = await leaf('server', 'Service Sandbox');
		const receiver = await leaf('receiver', 'Service Sandbox webhook receiver');
		return { ca: server.ca, server, receiver };
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
}
