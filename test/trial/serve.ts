// Starts the fourth Service and prints how to reach it; stops on Ctrl+C or SIGTERM.
//   bash scripts/toolchain.sh tsx test/trial/serve.ts [--port N] [--json] [--receiver-ca FILE]
// --json prints one JSON line (baseUrl, caFile, readerToken, adminToken, passkeyProof) for another program.
// A line on stdin such as `share_granted KE-40001000` delivers that event, signed, to the registered endpoints
// (--receiver-ca: the PEM of a CA to trust for them, besides the system's).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { PASSKEY_HEADER, startFourthService, TOKEN_HEADER } from './fourthService';

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const portAt = args.indexOf('--port');
	const port = portAt >= 0 ? Number(args[portAt + 1]) : 0;
	if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port takes a TCP port number (0 for a free one).');
	const caAt = args.indexOf('--receiver-ca');
	const deliveryCa = caAt >= 0 ? readFileSync(args[caAt + 1], 'utf8') : undefined;
	const service = await startFourthService({ port, deliveryCa });
	const dir = mkdtempSync(join(tmpdir(), 'fourth-service-'));
	const caFile = join(dir, 'ca.pem');
	writeFileSync(caFile, service.ca);
	const info = { baseUrl: service.baseUrl, caFile, tokenHeader: TOKEN_HEADER, readerToken: service.readerToken, adminToken: service.adminToken, passkeyProof: service.passkeyProof };
	if (args.includes('--json')) {
		process.stdout.write(`${JSON.stringify(info)}\n`);
	} else {
		process.stdout.write([
			`Base URL:      ${info.baseUrl}`,
			`CA to trust:   ${caFile}   (e.g. NODE_EXTRA_CA_CERTS=${caFile}; curl --cacert ${caFile})`,
			`Reader token:  ${info.readerToken}   (send as header ${TOKEN_HEADER})`,
			`Admin token:   ${info.adminToken}   (webhook endpoints, SSO)`,
			`Passkey proof: ${info.passkeyProof}   (header ${PASSKEY_HEADER}, PUT /v1/reader/sso only)`,
			`Try: curl --cacert ${caFile} -H '${TOKEN_HEADER}: ${info.readerToken}' '${info.baseUrl}/v1/reader/exports/portfolio?format=csv&per_page=10'`,
			'Ctrl+C stops it.',
			'',
		].join('\n'));
	}
	createInterface({ input: process.stdin }).on('line', (line) => {
		const [eventType, ke] = line.trim().split(/\s+/);
		if (!eventType) return;
		void service.deliver(eventType, ke ? { organisation: ke } : {}).then((outcome) => process.stderr.write(`${eventType}: ${JSON.stringify(outcome)}\n`));
	});
	const stop = () => {
		void service.close().then(() => {
			rmSync(dir, { recursive: true, force: true });
			process.exit(0);
		});
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

main().catch((error: Error) => {
	process.stderr.write(`fourth Service did not start: ${error.message}\n`);
	process.exit(1);
});
