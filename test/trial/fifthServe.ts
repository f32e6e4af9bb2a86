// Starts the fifth Service and prints how to reach it; stops on Ctrl+C or SIGTERM.
//   bash scripts/toolchain.sh tsx test/trial/fifthServe.ts [--port N] [--json] [--receiver-ca FILE] [--token-lifetime S]
// A line on stdin such as `ledger_high KE700101` delivers that alert, signed, to the registered endpoints.
// A line `fault 502 after` (or `fault 503`, `fault 504`, `fault 401`) makes the proxy answer the next request with that page.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { startFifthService } from './fifthService';

function option(args: string[], name: string): string | undefined {
	const at = args.indexOf(name);
	return at >= 0 ? args[at + 1] : undefined;
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const port = Number(option(args, '--port') ?? 0);
	if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port takes a TCP port number (0 for a free one).');
	const caPath = option(args, '--receiver-ca');
	const lifetime = Number(option(args, '--token-lifetime') ?? 120);
	const service = await startFifthService({ port, deliveryCa: caPath ? readFileSync(caPath, 'utf8') : undefined, tokenLifetimeSeconds: lifetime });
	const dir = mkdtempSync(join(tmpdir(), 'fifth-service-'));
	const caFile = join(dir, 'ca.pem');
	writeFileSync(caFile, service.ca);
	const info = { baseUrl: service.baseUrl, caFile, tokenUrl: service.tokenUrl, reader: service.reader, admin: service.admin };
	if (args.includes('--json')) {
		process.stdout.write(`${JSON.stringify(info)}\n`);
	} else {
		process.stdout.write([
			`Base URL:      ${info.baseUrl}`,
			`CA to trust:   ${caFile}`,
			`Token URL:     ${info.tokenUrl}   (grant_type=client_credentials, HTTP Basic or client_id/client_secret in the body)`,
			`Reader client: ${info.reader.clientId} / ${info.reader.clientSecret}`,
			`Admin client:  ${info.admin.clientId} / ${info.admin.clientSecret}   (webhook endpoints, SSO)`,
			`Try: curl --cacert ${caFile} -u ${info.reader.clientId}:${info.reader.clientSecret} -d grant_type=client_credentials ${info.tokenUrl}`,
			'Ctrl+C stops it.',
			'',
		].join('\n'));
	}
	createInterface({ input: process.stdin }).on('line', (line) => {
		const [first, second, third] = line.trim().split(/\s+/);
		if (!first) return;
		if (first === 'fault') {
			const status = Number(second) as 401 | 502 | 503 | 504;
			service.injectGatewayFault({ status, afterHandling: third === 'after' });
			return void process.stderr.write(`next request: ${status}${third === 'after' ? ' after handling' : ''}\n`);
		}
		void service.deliver(first, second ?? '').then((outcome) => process.stderr.write(`${first}: ${JSON.stringify(outcome)}\n`));
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
	process.stderr.write(`fifth Service did not start: ${error.message}\n`);
	process.exit(1);
});
