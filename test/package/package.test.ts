import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

import { PackageDirectoryLoader } from 'n8n-core';

// What n8n and its community-package review check first, on the built package (npm test bundles
// dist/ before jest runs). The package is loaded with n8n-core's own PackageDirectoryLoader, the
// loader n8n uses for installed community packages.
const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

describe('published package', () => {
	test('has no runtime dependencies and only n8n-workflow as a peer', () => {
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(pkg.name).toBe('n8n-nodes-service-reader');
		expect(pkg.license).toBe('MIT');
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.n8n).toEqual({
			n8nNodesApiVersion: 1,
			strict: true,
			credentials: ['dist/credentials/ServiceApi.credentials.js', 'dist/credentials/ServiceOAuth2Api.credentials.js'],
			nodes: [
				'dist/nodes/ServiceReader/ServiceReader.node.js',
				'dist/nodes/ServiceTrigger/ServiceTrigger.node.js',
				'dist/nodes/ServiceChangesTrigger/ServiceChangesTrigger.node.js',
			],
		});
	});

	test('engines admit the Node versions n8n runs on: 20 and 22 (n8n 1.x) as well as 24', () => {
		// gulpfile.js bundles for this minimum; only the development toolchain is Node 24 (.nvmrc).
		expect(pkg.engines).toEqual({ node: '>=20' });
	});

	test('npm pack contains only dist/, README, LICENSE and package.json', () => {
		const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		});
		const files: string[] = JSON.parse(output)[0].files.map((file: { path: string }) => file.path);
		const outside = files.filter((file) => !file.startsWith('dist/') && !['README.md', 'LICENSE', 'package.json'].includes(file));
		expect(outside).toEqual([]);
		for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) expect(files).toContain(file);
		expect(files.filter((file) => file.startsWith('dist/test') || file.includes('sandbox'))).toEqual([]);
	});

	test('bundles require nothing but n8n-workflow and Node built-ins (csv-parse is bundled)', () => {
		for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
			const code = readFileSync(join(root, file), 'utf8');
			const required = [...code.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]);
			const foreign = required.filter(
				(name) => name !== 'n8n-workflow' && !builtinModules.includes(name.replace(/^node:/, '')),
			);
			expect({ file, foreign }).toEqual({ file, foreign: [] });
		}
	});

	test('loads in n8n-core as a community package with its nodes, credential, codex and icons', async () => {
		const loader = new PackageDirectoryLoader(root);
		await loader.loadAll();

		expect(loader.packageName).toBe('n8n-nodes-service-reader');
		expect(Object.keys(loader.nodeTypes).sort()).toEqual(['serviceChangesTrigger', 'serviceReader', 'serviceTrigger']);
		expect(Object.keys(loader.credentialTypes)).toEqual(['serviceApi', 'serviceOAuth2Api']);

		const reader = loader.getNode('serviceReader').type as { description: { usableAsTool?: boolean; codex?: { categories?: string[] } } };
		const trigger = loader.getNode('serviceTrigger').type as { description: { usableAsTool?: boolean } };
		expect(reader.description.usableAsTool).toBe(true);
		expect(trigger.description.usableAsTool).toBeUndefined();
		const changes = loader.getNode('serviceChangesTrigger').type as { description: { polling?: boolean; usableAsTool?: boolean; codex?: { categories?: string[] } } };
		expect(changes.description.polling).toBe(true);
		expect(changes.description.usableAsTool).toBeUndefined();
		expect(changes.description.codex?.categories?.length).toBeGreaterThan(0);
		expect(reader.description.codex?.categories?.length).toBeGreaterThan(0);

		for (const icon of ['dist/icons/service.svg', 'dist/icons/service.dark.svg']) {
			expect(existsSync(join(root, icon))).toBe(true);
		}
	});
});
