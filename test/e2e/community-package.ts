import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { node24, pathWithNode24 } from './n8n-install';

const run = promisify(execFile);

export interface InstalledPackage {
	name: string;
	version: string;
	/** <user folder>/.n8n/nodes/node_modules/<name> */
	dir: string;
}

interface PackageJson {
	name: string;
	version: string;
	dependencies?: Record<string, string>;
	devDependencies?: unknown;
	peerDependencies?: unknown;
	optionalDependencies?: unknown;
}

/** `npm pack` of a package folder (this repository, or a test package) into `outDir`; returns the tarball path. */
export async function packPackage(packageDir: string, outDir: string): Promise<string> {
	await mkdir(outDir, { recursive: true });
	const { stdout } = await run('npm', ['pack', '--pack-destination', outDir, '--json', '--loglevel=error'], {
		cwd: packageDir,
		env: { ...process.env, PATH: pathWithNode24(node24()) },
		timeout: 120_000,
		maxBuffer: 16 << 20,
	});
	const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string }>;
	return join(outDir, packed.filename);
}

/**
 * Installs a community node package from its `npm pack` tarball into
 * `<userFolder>/.n8n/nodes/node_modules/<name>` the way n8n 2.40 itself installs one from
 * Settings > Community Nodes (CommunityPackagesService.downloadPackage): unpack the tarball there,
 * drop dev/peer/optional dependencies from its package.json, install its runtime dependencies
 * without scripts, and record it in `.n8n/nodes/package.json`. At start n8n scans that folder for
 * `n8n-nodes-*` and `@*\/n8n-nodes-*` packages, so node types become `<package name>.<node name>`.
 * Install before starting n8n (or restart it): packages are loaded at start.
 */
export async function installCommunityPackage(userFolder: string, tarballPath: string): Promise<InstalledPackage> {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const modulesDir = join(nodesDir, 'node_modules');
	await mkdir(modulesDir, { recursive: true });
	const staging = await mkdtemp(join(nodesDir, '.unpack-'));
	try {
		await run('tar', ['-xzf', tarballPath, '-C', staging, '--strip-components=1']);
		const packageJsonPath = join(staging, 'package.json');
		const packageJson = JSON.parse(await readFile(packageJsonPath, 'utf8')) as PackageJson;
		// As n8n does: the host provides n8n-workflow, and nothing of the package's development is installed.
		delete packageJson.devDependencies;
		delete packageJson.peerDependencies;
		delete packageJson.optionalDependencies;
		const { name, version } = packageJson;
		if (!/^(@[^/]+\/)?n8n-nodes-/.test(name)) {
			throw new Error(`${name}: n8n loads only packages named n8n-nodes-* or @scope/n8n-nodes-*`);
		}
		await writeFile(packageJsonPath, JSON.stringify(packageJson, null, 2));
		if (Object.keys(packageJson.dependencies ?? {}).length > 0) {
			await run(
				'npm',
				[
					'install', '--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow',
					'--ignore-scripts=true', '--package-lock=false', '--loglevel=error',
				],
				{ cwd: staging, env: { ...process.env, PATH: pathWithNode24(node24()) }, timeout: 300_000 },
			);
		}
		const dir = join(modulesDir, name);
		await rm(dir, { recursive: true, force: true });
		await mkdir(join(dir, '..'), { recursive: true });
		await rename(staging, dir);
		await recordInLedger(nodesDir, name, version);
		return { name, version, dir };
	} finally {
		await rm(staging, { recursive: true, force: true });
	}
}

/** n8n keeps `.n8n/nodes/package.json` listing installed packages (it rebuilds it from its database when unusable). */
async function recordInLedger(nodesDir: string, name: string, version: string): Promise<void> {
	const ledgerPath = join(nodesDir, 'package.json');
	let ledger: { name: string; private: boolean; dependencies: Record<string, string> };
	try {
		ledger = JSON.parse(await readFile(ledgerPath, 'utf8'));
		ledger.dependencies ??= {};
	} catch {
		ledger = { name: 'installed-nodes', private: true, dependencies: {} };
	}
	ledger.dependencies[name] = version;
	await writeFile(ledgerPath, JSON.stringify(ledger, null, 2));
}
