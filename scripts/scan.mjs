// The lint legs of n8n's community-package scan (@n8n/scan-community-package), run offline.
// n8n's analyzePackageByName lints the package's source (the commit its npm provenance names) with
// SOURCE_FILE_PATTERNS and the published tarball with ['**/*.js', 'package.json']; this does the
// same on the working tree and on `npm pack` of it (so build dist/ first). Its provenance check
// needs a version published from CI and is not run here.
//
//   npm run build && npm run scan
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];

if (!existsSync(join(root, 'dist'))) {
	console.error('scan: dist/ is missing; run `npm run build` first');
	process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'service-reader-scan-'));
let failed = false;
try {
	// The scanner makes a temporary directory (for downloads) when it is loaded and never removes it:
	// let it make that one inside ours.
	const tmpdirBefore = process.env.TMPDIR;
	process.env.TMPDIR = work;
	const { analyzePackage, SOURCE_FILE_PATTERNS } = await import('@n8n/scan-community-package/scanner/scanner.mjs');
	if (tmpdirBefore === undefined) delete process.env.TMPDIR;
	else process.env.TMPDIR = tmpdirBefore;

	// npm pack as it would be published, unpacked the way the scanner unpacks a downloaded tarball.
	const [{ filename }] = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
		}),
	);
	const packageDir = join(work, 'package');
	mkdirSync(packageDir);
	execFileSync('tar', ['-xzf', join(work, filename), '-C', packageDir, '--strip-components=1']);

	const legs = [
		['source', root, SOURCE_FILE_PATTERNS],
		[`tarball ${filename}`, packageDir, TARBALL_FILE_PATTERNS],
	];
	for (const [name, dir, patterns] of legs) {
		const result = await analyzePackage(dir, patterns);
		if (result.passed) {
			console.log(`scan: ${name}: passed${result.message ? ` (${result.message})` : ''}`);
		} else {
			failed = true;
			console.log(`scan: ${name}: FAILED: ${result.message}`);
			if (result.details) console.log(result.details);
		}
	}
} finally {
	rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
