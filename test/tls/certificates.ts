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

export interface Certificates<Leaf extends string> {
	/** PEM of the CA that signed every leaf. */
	ca: string;
	leaves: Record<Leaf, TlsMaterial>;
}

// An EC key and a certificate, made by `openssl req -x509` (openssl 3 also signs it with -CA in one step).
const newCertificate = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '30'];
const caExtensions = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
const serverExtensions = (dnsNames: string[]) => [
	'-addext', `subjectAltName=${['IP:127.0.0.1', ...dnsNames.map((name) => `DNS:${name}`)].join(',')}`,
	'-addext', 'basicConstraints=critical,CA:FALSE',
	'-addext', 'keyUsage=critical,digitalSignature',
	'-addext', 'extendedKeyUsage=serverAuth',
];

// One set per CA and leaves per process: openssl takes ~50 ms a call, and 50 sandbox start/stop cycles must stay quick.
const issued = new Map<string, Promise<Certificates<string>>>();

/** A leaf's common name, or its common name and the host names it serves (localhost when not given). */
export type LeafName = string | { commonName: string; dnsNames: string[] };

/**
 * A CA of its own (common name `caName`) and, for each leaf, a server certificate it signed with
 * that common name, for 127.0.0.1 and localhost (or the leaf's own host names). Whoever should reach
 * those servers must trust `ca`: nothing turns TLS checks off.
 */
export function certificates<Leaf extends string>(caName: string, leaves: Record<Leaf, LeafName>): Promise<Certificates<Leaf>> {
	const key = JSON.stringify([caName, leaves]);
	let pending = issued.get(key);
	if (!pending) {
		pending = issue(caName, leaves).catch((error: Error) => {
			issued.delete(key);
			throw new Error(`Could not make the test certificates of "${caName}" with openssl: ${error.message}`);
		});
		issued.set(key, pending);
	}
	return pending as Promise<Certificates<Leaf>>;
}

/** A server certificate for 127.0.0.1 that signed itself (no CA vouches for it): `ca` is the certificate. */
export async function selfSignedCertificate(commonName: string): Promise<TlsMaterial> {
	return await inTemporaryFolder(async (file) => {
		await run('openssl', [
			...newCertificate, '-keyout', file('key.pem'), '-out', file('cert.pem'),
			'-subj', `/CN=${commonName}`, '-addext', 'subjectAltName=IP:127.0.0.1',
		]);
		const cert = await readFile(file('cert.pem'), 'utf8');
		return { key: await readFile(file('key.pem'), 'utf8'), cert, ca: cert };
	});
}

async function issue<Leaf extends string>(caName: string, leaves: Record<Leaf, LeafName>): Promise<Certificates<Leaf>> {
	return await inTemporaryFolder(async (file) => {
		await run('openssl', [...newCertificate, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-subj', `/CN=${caName}`, ...caExtensions]);
		const ca = await readFile(file('ca.crt'), 'utf8');
		const issuedLeaves = {} as Record<Leaf, TlsMaterial>;
		for (const [index, [leaf, name]] of (Object.entries(leaves) as Array<[Leaf, LeafName]>).entries()) {
			const { commonName, dnsNames } = typeof name === 'string' ? { commonName: name, dnsNames: ['localhost'] } : name;
			const [keyFile, certFile] = [file(`leaf${index}.key`), file(`leaf${index}.crt`)];
			await run('openssl', [
				...newCertificate, '-keyout', keyFile, '-out', certFile,
				'-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-subj', `/CN=${commonName}`, ...serverExtensions(dnsNames),
			]);
			issuedLeaves[leaf] = { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8'), ca };
		}
		return { ca, leaves: issuedLeaves };
	});
}

async function inTemporaryFolder<T>(work: (file: (name: string) => string) => Promise<T>): Promise<T> {
	const dir = await mkdtemp(join(tmpdir(), 'test-certificates-'));
	try {
		return await work((name) => join(dir, name));
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
}
