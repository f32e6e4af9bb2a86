import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import { root } from './importGraph';

// One concern a file: none over 400 lines, tests and benchmarks included (split by concern, not by count).
const LIMIT = 400;

function files(folder: string, out: string[] = []): string[] {
	for (const name of readdirSync(folder)) {
		// Work folders (test/e2e/.work) are not the project's files.
		if (name.startsWith('.') || name === 'node_modules') continue;
		const path = join(folder, name);
		if (statSync(path).isDirectory()) files(path, out);
		else if (/\.(ts|mjs)$/.test(name)) out.push(path);
	}
	return out;
}

test(`no source, test or benchmark file is over ${LIMIT} lines`, () => {
	const all = ['nodes', 'credentials', 'test', 'bench', 'scripts'].flatMap((folder) => files(join(root, folder)));
	expect(all.length).toBeGreaterThan(300);
	const long = all.map((path) => ({ file: relative(root, path), lines: readFileSync(path, 'utf8').split('\n').length - 1 })).filter(({ lines }) => lines > LIMIT);
	expect(long).toEqual([]);
});
