// Build: type-check, bundle each node and credential with esbuild (csv-parse is bundled in, so the
// published package has no runtime dependencies), and copy icons and codex files next to them.
const { spawnSync } = require('node:child_process');
const { cpSync, mkdirSync, rmSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { series, src, dest } = require('gulp');
const esbuild = require('esbuild');
const pkg = require('./package.json');

const entryPoints = [...pkg.n8n.credentials, ...pkg.n8n.nodes].map((file) =>
	file.replace(/^dist\//, '').replace(/\.js$/, '.ts'),
);

// The bundle targets the oldest Node that package.json's engines admits (">=20": n8n 1.x runs on Node 20
// and 22, n8n 2 on 24). esbuild lowers syntax only, not APIs: node code keeps to Node 20's APIs
// (tsconfig's lib ES2022 holds the language built-ins; Node's own modules are up to the code).
const nodeMinimum = /^>=(\d+)$/.exec(pkg.engines.node);
if (!nodeMinimum) throw new Error(`engines.node must read ">=<major>", not ${pkg.engines.node}`);

function clean(done) {
	rmSync('dist', { recursive: true, force: true });
	done();
}

function typecheck(done) {
	const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '--noEmit', '-p', 'tsconfig.json'], {
		stdio: 'inherit',
	});
	done(tsc.status === 0 ? undefined : new Error('Type check failed'));
}

async function bundle() {
	await esbuild.build({
		entryPoints,
		outdir: 'dist',
		outbase: '.',
		bundle: true,
		platform: 'node',
		target: `node${nodeMinimum[1]}`,
		format: 'cjs',
		// n8n provides n8n-workflow at run time (peer dependency); everything else is bundled.
		external: ['n8n-workflow'],
		sourcemap: true,
		legalComments: 'inline',
		logLevel: 'warning',
	});
}

function icons() {
	mkdirSync('dist/icons', { recursive: true });
	return src('icons/*.svg').pipe(dest('dist/icons'));
}

function codex(done) {
	for (const node of pkg.n8n.nodes) {
		const source = node.replace(/^dist\//, '').replace(/\.js$/, '.json');
		const target = join('dist', source);
		mkdirSync(dirname(target), { recursive: true });
		cpSync(source, target);
	}
	done();
}

exports.bundle = series(clean, bundle, icons, codex);
exports.build = series(clean, typecheck, bundle, icons, codex);
exports.default = exports.build;
