import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { repoRoot } from '../e2e/n8n-install';

/** The README's Service Reader table: resource name to its operations, as users read them. */
export function readmeOperations(): Map<string, string[]> {
	const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
	const section = readme.slice(readme.indexOf('## Service Reader operations'));
	const operations = new Map<string, string[]>();
	const lines = section.split('\n');
	const header = lines.findIndex((line) => line.startsWith('| Resource | Operation |'));
	// After the header row and the |---| row.
	for (const line of lines.slice(header + 2)) {
		if (!line.startsWith('|')) break;
		const [resource, operation] = line.split('|').slice(1, 3).map((cell) => cell.trim());
		operations.set(resource, [...(operations.get(resource) ?? []), operation]);
	}
	return operations;
}
