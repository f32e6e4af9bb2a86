import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { packPackage, startN8n, type N8n } from './n8n';
import { node24, pathWithNode24, repoRoot } from './n8n-install';

const run = promisify(execFile);

/** The README's manual install command (Installation), exactly as a user copies it. */
async function readmeInstallCommand(): Promise<string[]> {
	const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
	const line = /^\s*(npm install\b.*\bn8n-nodes-service-reader)\s*$/m.exec(readme)?.[1];
	if (!line) throw new Error('README.md has no line "npm install ... n8n-nodes-service-reader"');
	return line.split(/\s+/);
}

// What a self-hosting operator does by hand: the README's command in ~/.n8n/nodes, then start n8n.
describe("the README's manual install", () => {
	let work: string;
	let n8n: N8n | undefined;

	beforeAll(async () => {
		work = await mkdtemp(join(tmpdir(), 'n8n-install-e2e-'));
	});

	afterAll(async () => {
		await n8n?.stop();
		await rm(work, { recursive: true, force: true });
	}, 60_000);

	test('installs the package alone beside n8n (no second n8n-workflow), and n8n loads both nodes from it', async () => {
		const tarball = await packPackage(repoRoot, join(work, 'tarballs'));
		const userFolder = join(work, 'user');
		const nodesDir = join(userFolder, '.n8n', 'nodes');
		await mkdir(nodesDir, { recursive: true });
		// The folder as n8n keeps it: a package.json listing what is installed.
		await writeFile(join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }));

		const [npm, ...args] = await readmeInstallCommand();
		expect(npm).toBe('npm');
		// The package name as typed in the README, the packed tarball in its place.
		await run('npm', args.map((arg) => (arg === 'n8n-nodes-service-reader' ? tarball : arg)), {
			cwd: nodesDir,
			env: { ...process.env, PATH: pathWithNode24(node24()) },
			timeout: 300_000,
		});

		const installed = (await readdir(join(nodesDir, 'node_modules'))).filter((name) => !name.startsWith('.'));
		expect(installed).toEqual(['n8n-nodes-service-reader']);

		n8n = await startN8n({ userFolder });
		expect(await n8n.hasNodeType('n8n-nodes-service-reader.serviceReader')).toBe(true);
		expect(await n8n.hasNodeType('n8n-nodes-service-reader.serviceTrigger')).toBe(true);
	}, 420_000);
});
