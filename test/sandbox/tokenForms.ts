/**
 * The access token as a hostile Service may echo it: every character written in one form. Used by the
 * `echoToken` fault (routeFaults.ts) and the redaction tests, which decode what was stored with
 * test/property/tokenDecoders.ts.
 */
export const TOKEN_FORMS = ['raw', 'urlLower', 'urlUpperPartial', 'urlU', 'jsonEscaped', 'jsonSolidus', 'htmlHex', 'htmlDec', 'htmlNamed', 'mixed'] as const;
export type TokenForm = (typeof TOKEN_FORMS)[number];

const NAMED: Record<string, string> = { '/': '&sol;', '+': '&PLUS;', '.': '&Period;', _: '&lowbar;', '=': '&equals;', '-': '&#x2d;' };

const hex2 = (code: number) => code.toString(16).padStart(2, '0');
const hex4 = (code: number) => code.toString(16).padStart(4, '0');

/** One ASCII character in a form; `index` varies the case and which characters a partial form leaves as they are. */
function encodeChar(ch: string, form: TokenForm, index: number): string {
	const code = ch.charCodeAt(0);
	switch (form) {
		case 'raw':
			return ch;
		case 'urlLower':
			return `%${hex2(code)}`;
		case 'urlUpperPartial':
			return index % 2 ? ch : `%${hex2(code).toUpperCase()}`;
		case 'urlU':
			return `%u${hex4(code).toUpperCase()}`;
		case 'jsonEscaped':
			return `\\u${index % 2 ? hex4(code) : hex4(code).toUpperCase()}`;
		case 'jsonSolidus':
			return ch === '/' ? '\\/' : ch;
		case 'htmlHex':
			return `&#${index % 2 ? 'x' : 'X'}${index % 3 ? hex2(code) : hex2(code).toUpperCase()};`;
		case 'htmlDec':
			return `&#${'0'.repeat(index % 3)}${code};`;
		case 'htmlNamed':
			return NAMED[ch] ?? ch;
		case 'mixed':
			return encodeChar(ch, TOKEN_FORMS[1 + (index % (TOKEN_FORMS.length - 2))], index);
	}
}

export function encodeToken(token: string, form: TokenForm): string {
	return [...token].map((ch, index) => encodeChar(ch, form, index)).join('');
}
