import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parse } from 'yaml';

// The release path n8n requires of a community package (published from CI with npm provenance),
// and the order that keeps an unchecked package off npm. The schema is checked by npm run lint:workflows.
const root = join(__dirname, '..', '..');
const workflow = (name: string) => parse(readFileSync(join(root, '.github', 'workflows', name), 'utf8'));
const runs = (job: { steps: Array<{ run?: string }> }) => job.steps.map((step) => step.run ?? '').join('\n');

describe('GitHub workflows', () => {
	test('CI runs .ci/run on pushes and pull requests, on the machine CI is defined as (Debian, Node 20, root)', () => {
		const ci = workflow('ci.yml');
		expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
		expect(ci.jobs.ci.container).toBe('node:20-bookworm');
		expect(runs(ci.jobs.ci)).toMatch(/^bash \.ci\/run$/m);
		expect(ci.jobs.ci['timeout-minutes']).toBeLessThanOrEqual(90);
	});

	test('publish runs on a version tag, only after the checks pass, with provenance and the OIDC permission it needs', () => {
		const publish = workflow('publish.yml');
		expect(publish.on.push.tags).toEqual(['v*.*.*']);
		expect(runs(publish.jobs.checks)).toMatch(/^bash \.ci\/run$/m);
		// The tag must name package.json's version, so v1.2.3 never publishes something else.
		expect(runs(publish.jobs.checks)).toContain('require("./package.json").version');
		expect(publish.jobs.publish.needs).toBe('checks');
		expect(publish.jobs.publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
		expect(runs(publish.jobs.publish)).toMatch(/^npm publish --provenance --access public$/m);
		// Nothing else in the workflow may write to the repository or get an identity token.
		expect(publish.permissions).toEqual({ contents: 'read' });
		expect(publish.jobs.checks.permissions).toBeUndefined();
	});

	test('a hand-run npm publish builds, lints and scans first (prepublishOnly)', () => {
		const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
		expect(pkg.scripts.prepublishOnly).toBe('bash scripts/prepublish.sh');
		const script = readFileSync(join(root, 'scripts', 'prepublish.sh'), 'utf8');
		for (const step of ['npm run build', 'npm run lint', 'npm run scan']) expect(script).toContain(`\n${step}\n`);
	});
});
