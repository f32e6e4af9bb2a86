import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// docs/architecture.md is what a newcomer reads to find their way: every folder and file it names
// in backticks must exist, so the page cannot drift from the tree.
const root = join(__dirname, '..', '..');
const page = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
const folders = [...page.matchAll(/`([a-zA-Z]+\/(?:[\w.-]+\/)*)`/g)].map((match) => match[1]);

test('docs/architecture.md names folders that exist', () => {
	expect(folders).toEqual(expect.arrayContaining(['credentials/', 'nodes/shared/settings/', 'nodes/shared/transport/', 'nodes/ServiceTrigger/', 'test/']));
	for (const folder of folders) {
		const where = ['', 'nodes/shared/', 'nodes/ServiceReader/', 'nodes/ServiceReader/actions/', 'nodes/ServiceTrigger/', 'nodes/ServiceChangesTrigger/', 'test/'].find((base) => existsSync(join(root, base, folder)));
		expect({ folder, found: where !== undefined }).toEqual({ folder, found: true });
	}
});

test('docs/architecture.md names files that exist', () => {
	const files = [...page.matchAll(/`((?:[\w-]+\/)*[\w.-]+\.ts)`/g)].map((match) => match[1]);
	expect(files.length).toBeGreaterThan(20);
	const tree = ['credentials/', 'nodes/shared/settings/', 'nodes/shared/', 'nodes/shared/transport/', 'nodes/ServiceReader/', 'nodes/ServiceReader/helpers/', 'nodes/ServiceReader/actions/', 'nodes/ServiceTrigger/', 'nodes/ServiceTrigger/verify/', 'nodes/ServiceTrigger/delivery/', 'nodes/ServiceTrigger/lifecycle/', 'nodes/ServiceTrigger/companyDetails/', 'nodes/ServiceChangesTrigger/', 'test/sandbox/', ''];
	for (const file of files) {
		const found = tree.some((base) => existsSync(join(root, base, file)));
		expect({ file, found }).toEqual({ file, found: true });
	}
});
