// scratch: start stack + chromium with CDP port for exploration
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { startExampleStack } from '../e2e/examples/stack';
import { packPackage } from '../e2e/n8n';
import { repoRoot } from '../e2e/n8n-install';
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
(async () => {
	const work = await mkdtemp(join(tmpdir(), 'explore-'));
	const tarball = await packPackage(repoRoot, work);
	const stack = await startExampleStack({ tarball, log: console.log });
	const home = join(work, 'home');
	execFileSync('mkdir', ['-p', join(home, '.pki/nssdb')]);
	execFileSync('certutil', ['-N', '-d', `sql:${home}/.pki/nssdb`, '--empty-password']);
	execFileSync('certutil', ['-A', '-d', `sql:${home}/.pki/nssdb`, '-n', 'ca', '-t', 'C,,', '-i', stack.n8n.caPath]);
	const server = await chromium.launchServer({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'], env: { ...process.env, HOME: home } });
	writeFileSync('/tmp/explore.json', JSON.stringify({ ws: server.wsEndpoint(), url: stack.n8n.url, owner: stack.n8n.owner, sandbox: stack.sandbox.baseUrl, token: stack.sandbox.tokens.reader, caPath: stack.n8n.caPath, userFolder: stack.n8n.userFolder, apiKey: stack.n8n.apiKey }));
	console.log('READY');
	process.on('SIGTERM', async () => { await server.close(); await stack.stop(); process.exit(0); });
})();
