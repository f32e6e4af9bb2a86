import fc from 'fast-check';

import { isMarkup, pageTitle } from '../../nodes/shared/transport/pageWords';
import { runs } from '../property/fc';

// A gateway's or proxy's page is said by its title, never dumped: <title>, else <h1>, else an XML <Message>.
test('the title of pages gateways send', () => {
	expect(pageTitle('<!DOCTYPE html><html><head><TITLE>502 Bad Gateway</TITLE></head><body><h1>x</h1></body></html>')).toBe('502 Bad Gateway');
	expect(pageTitle('<html><head><title lang="en">\n  504 Gateway\n Time-out </title>')).toBe('504 Gateway Time-out');
	expect(pageTitle('<html><body><h1 class="x">Service <b>Unavailable</b> &amp; more</h1></body></html>')).toBe('Service Unavailable & more');
	expect(pageTitle('<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>')).toBe('Request has expired');
	expect(pageTitle('<html><titlebar>no</titlebar><body>nothing</body></html>')).toBeUndefined();
	expect(pageTitle(`<title>${'a'.repeat(500)}</title>`)).toBe(`${'a'.repeat(200)}…`);
	expect(isMarkup('\uFEFF  <html>')).toBe(true);
	expect(isMarkup('Bad Gateway')).toBe(false);
});

test('any text: no throw, no markup in the words, at most 201 characters', () => {
	fc.assert(
		fc.property(fc.string({ maxLength: 400 }), fc.constantFrom('title', 'h1', 'message', 'p'), fc.string({ maxLength: 40 }), (noise, tag, inner) => {
			const words = pageTitle(`${noise}<${tag}>${inner}</${tag}>${noise}`);
			if (words !== undefined) {
				expect(words.length).toBeLessThanOrEqual(201);
				expect(words).not.toMatch(/[<>]/);
			}
		}),
		runs(300),
	);
});

test('only the first 64 KiB of a page are looked at: a title past them is not read', () => {
	expect(pageTitle(`${' '.repeat(63 * 1024)}<title>near</title>`)).toBe('near');
	expect(pageTitle(`${' '.repeat(65 * 1024)}<title>far</title>`)).toBeUndefined();
});
