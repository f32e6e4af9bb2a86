/**
 * Words from an answer that is a page, not JSON: a gateway's or proxy's HTML (502, 503, 504, even a
 * 401 at the edge) or an XML error. Its `<title>`, else its first `<h1>`, else an XML `<Message>`, as
 * plain text, never the page itself. One pass over at most the first 64 KiB, no regular expression on
 * the page's text. Pure: no n8n types.
 */
const LOOKED_AT = 64 * 1024;
const LONGEST = 200;
const ENTITIES: ReadonlyMap<string, string> = new Map([
	['amp', '&'],
	['lt', '<'],
	['gt', '>'],
	['quot', '"'],
	['apos', "'"],
	['#39', "'"],
	['nbsp', ' '],
]);

/** Whether a text is markup (it starts with `<` once white space and a byte order mark are skipped). */
export function isMarkup(text: string): boolean {
	for (let i = 0; i < text.length && i < 1024; i++) {
		const char = text[i];
		if (char === '<') return true;
		if (char !== ' ' && char !== '\n' && char !== '\r' && char !== '\t' && char !== '\uFEFF') return false;
	}
	return false;
}

/** The text inside the first `<name ...>...</name>` of `lower` (the page lower-cased), from `page`, or undefined. */
function element(page: string, lower: string, name: string): string | undefined {
	let at = lower.indexOf(`<${name}`);
	while (at >= 0) {
		const after = lower[at + name.length + 1];
		// `<title>` or `<title attr>`, never `<titlebar>`.
		if (after === '>' || after === ' ' || after === '\t' || after === '\n' || after === '\r') break;
		at = lower.indexOf(`<${name}`, at + 1);
	}
	if (at < 0) return undefined;
	const open = lower.indexOf('>', at);
	if (open < 0) return undefined;
	const close = lower.indexOf(`</${name}`, open);
	return page.slice(open + 1, close < 0 ? undefined : close);
}

/** Text without tags, entities decoded, white space folded, shortened. */
function plainText(markup: string): string {
	let out = '';
	let inTag = false;
	for (let i = 0; i < markup.length; i++) {
		const char = markup[i];
		if (char === '<') inTag = true;
		else if (char === '>') inTag = false;
		else if (!inTag) out += char;
	}
	let text = '';
	for (let i = 0; i < out.length; i++) {
		const semicolon = out[i] === '&' ? out.indexOf(';', i) : -1;
		const entity = semicolon > i && semicolon - i <= 6 ? ENTITIES.get(out.slice(i + 1, semicolon).toLowerCase()) : undefined;
		if (entity !== undefined) {
			text += entity;
			i = semicolon;
		} else {
			text += out[i];
		}
	}
	const folded = text.split(/\s+/).filter((word) => word !== '').join(' ');
	return folded.length > LONGEST ? `${folded.slice(0, LONGEST)}…` : folded;
}

/** The page's title in words (its `<title>`, `<h1>` or XML `<message>`), or undefined when it has none. */
export function pageTitle(text: string): string | undefined {
	const page = text.slice(0, LOOKED_AT);
	const lower = page.toLowerCase();
	for (const name of ['title', 'h1', 'message']) {
		const inner = element(page, lower, name);
		const words = inner === undefined ? '' : plainText(inner);
		if (words !== '') return words;
	}
	return undefined;
}
