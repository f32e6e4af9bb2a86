import { getCACertificates, setDefaultCACertificates } from 'node:tls';

/**
 * Adds a CA (the sandbox's) to the certificates this process trusts, the in-process equivalent of
 * NODE_EXTRA_CA_CERTS. Nothing is switched off: every TLS check still runs, against this CA too.
 */
export function trustCa(pem: string): void {
	const current = getCACertificates('default');
	if (!current.includes(pem)) setDefaultCACertificates([...current, pem]);
}
