import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The README is the user's manual: short, and with no run dates outside its version history
// (measurements and their dates live in docs/).
const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

test('the README stays under 25 KB', () => {
	expect(Buffer.byteLength(readme)).toBeLessThan(25_000);
});

test('the README carries dates only in its Version history', () => {
	const history = /^## Version history$[\s\S]*?(?=^## )/m.exec(readme)?.[0] ?? '';
	const rest = readme.replace(history, '');
	expect(history).not.toBe('');
	expect(rest.match(/\b20\d\d-\d\d-\d\d\b/g) ?? []).toEqual([]);
});
