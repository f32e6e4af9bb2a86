import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { brokenRules, circles, folderPicture, importGraph, root, withPicture } from './importGraph';

// The imports run one way (docs/architecture.md): read from the code, not from what the page says.
const graph = importGraph();

test('the package has no circle of imports', () => {
	expect(graph.size).toBeGreaterThan(100);
	expect(circles(graph)).toEqual([]);
});

test('no import runs against the folders\' rules (shared never imports a node or credentials/, transport/ nothing above it)', () => {
	expect(brokenRules(graph)).toEqual([]);
});

test('docs/architecture.md shows the folders and their imports as the code has them (npm run architecture redraws it)', () => {
	const page = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
	expect(page).toBe(withPicture(page, folderPicture(graph)));
});
