import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startSandbox } from './index';

/** `npm run sandbox [-- --port N] [--dialect alt]`: the sandbox Service with demo data, until Ctrl-C. */
async function main(): Promise<void> {
	const portArg = process.argv.indexOf('--port');
	const port = portArg > 0 ? Number(process.argv[portArg + 1]) : Number(process.env.SANDBOX_PORT ?? 0);
	const dialect = process.argv.includes('--dialect') ? process.argv[process.argv.indexOf('--dialect') + 1] : 'default';
	if (dialect !== 'default' && dialect !== 'alt') throw new Error(`--dialect must be default or alt; got "${dialect}".`);
	const sandbox = await startSandbox({ port, seed: 'demo', dialect });
	const caFile = join(tmpdir(), `service-sandbox-ca-${sandbox.port}.pem`);
	writeFileSync(caFile, sandbox.ca);
	const lines = [
		`Service sandbox is running (demo data, ${dialect} dialect).`,
		`  Base URL:        ${sandbox.baseUrl}`,
		`  Reader token:    ${sandbox.tokens.reader}`,
		`  CA file:         ${caFile}   (e.g. NODE_EXTRA_CA_CERTS=${caFile})`,
		`  Control token:   ${sandbox.controlToken}   (POST ${sandbox.baseUrl}/__control/<method> {"args": [...]})`,
		'',
		`  Try: curl --cacert ${caFile} -H "Authorization: Bearer ${sandbox.tokens.reader}" "${sandbox.baseUrl}/v1/reader/exports/portfolio?format=csv"`,
		'Press Ctrl-C to stop.',
	];
	process.stdout.write(`${lines.join('\n')}\n`);
	const stop = () => {
		void sandbox.close().then(() => {
			rmSync(caFile, { force: true });
			process.exit(0);
		});
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

main().catch((error: Error) => {
	process.stderr.write(`Could not start the sandbox: ${error.message}\n`);
	process.exit(1);
});
