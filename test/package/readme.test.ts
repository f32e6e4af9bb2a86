import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

// The README is the user's manual: short, with no run dates outside its version history
// (measurements and their dates live in docs/), and every link it or docs/ gives leads somewhere.
const root = join(__dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

test('the README stays well under 25 KB (detail goes to docs/)', () => {
	expect(Buffer.byteLength(readme)).toBeLessThan(18_000);
});

test('the README carries dates only in its Version history', () => {
	const history = /^## Version history$[\s\S]*?(?=^## )/m.exec(readme)?.[0] ?? '';
	const rest = readme.replace(history, '');
	expect(history).not.toBe('');
	expect(rest.match(/\b20\d\d-\d\d-\d\d\b/g) ?? []).toEqual([]);
});

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function anchorOf(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[`*]/g, '')
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

function anchorsOf(page: string): Set<string> {
	const anchors = new Set<string>();
	for (const line of page.split('\n')) {
		const heading = /^#{1,6} (.+)$/.exec(line);
		if (heading === null) continue;
		let anchor = anchorOf(heading[1]);
		for (let n = 1; anchors.has(anchor); n++) anchor = `${anchorOf(heading[1])}-${n}`;
		anchors.add(anchor);
	}
	return anchors;
}

const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];

test.each(pages)('every relative link in %s leads to a file, and its #anchor to a heading there', (page) => {
	const text = readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '');
	const broken: string[] = [];
	for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
		if (/^[a-z]+:/.test(target)) continue;
		const [path, anchor] = target.split('#');
		const file = path === '' ? join(root, page) : join(root, dirname(page), path);
		if (!existsSync(file)) {
			broken.push(`${target}: no ${relative(root, file)}`);
		} else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
			broken.push(`${target}: no heading #${anchor} in ${relative(root, file)}`);
		}
	}
	expect(broken).toEqual([]);
});
