import fc from 'fast-check';
import { NodeApiError } from 'n8n-workflow';

import { tokenRedactors } from '../../nodes/shared/redaction';
import { TokenMatch } from '../../nodes/shared/tokenMatch';
import { runs } from '../property/fc';
import { allFields, DECODERS, expectNoToken } from '../property/tokenDecoders';

/**
 * "The token" is every text that decodes to it (docs/token-and-limits.md): a random token, each of its
 * characters written in a random form (as typed, URL-encoded in any case or as %uXXXX, JSON \u or \/,
 * HTML numeric in hex or decimal with leading zeros, named in any case), placed in text, bytes, an
 * error's fields at any depth, its causes, a file name made safe. What comes out never holds the token,
 * not even after decoding it again with each decoder.
 */

const ALPHABET = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', '/', '+', '_', '-', '.', '=', '~', '%', '&', '\\'];
const token = fc.array(fc.constantFrom(...ALPHABET), { minLength: 8, maxLength: 40 }).map((chars) => chars.join(''));

// Names a browser reads; the test's own table, not the node's (the decoders know them too).
const NAMES: Record<string, string[]> = { '/': ['sol'], '+': ['plus'], '.': ['period'], _: ['lowbar', 'UnderBar'], '=': ['equals'], '%': ['percnt'], '&': ['amp'], '\\': ['bsol'] };

type Form = 'raw' | 'url' | 'urlU' | 'json' | 'jsonSolidus' | 'htmlHex' | 'htmlDec' | 'named';
const FORMS: Form[] = ['raw', 'url', 'urlU', 'json', 'jsonSolidus', 'htmlHex', 'htmlDec', 'named'];

const hex = (value: number, width: number, upper: boolean[]) =>
	[...value.toString(16).padStart(width, '0')].map((digit, i) => (upper[i % upper.length] ? digit.toUpperCase() : digit)).join('');

interface Way {
	form: Form;
	upper: boolean[];
	zeros: number;
	nameCase: boolean[];
}
const way = fc.record({
	form: fc.constantFrom(...FORMS),
	upper: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
	zeros: fc.integer({ min: 0, max: 6 }),
	nameCase: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
});

/** One character in one form; a form that does not apply to it falls back to URL-encoding. */
function encodeChar(ch: string, w: Way, only?: 'url' | 'json' | 'html'): string {
	const code = ch.charCodeAt(0);
	const url = () => `%${hex(code, 2, w.upper)}`;
	const form = only === 'url' ? (w.form === 'urlU' ? 'urlU' : 'url') : only === 'json' ? 'json' : only === 'html' ? (w.form === 'htmlDec' ? 'htmlDec' : 'htmlHex') : w.form;
	switch (form) {
		case 'raw':
			return ch;
		case 'url':
			return url();
		case 'urlU':
			return `%${w.upper[0] ? 'U' : 'u'}${hex(code, 4, w.upper)}`;
		case 'json':
			return `\\u${hex(code, 4, w.upper)}`;
		case 'jsonSolidus':
			return ch === '/' ? '\\/' : `\\u${hex(code, 4, w.upper)}`;
		case 'htmlHex':
			return `&#${w.upper[0] ? 'X' : 'x'}${'0'.repeat(w.zeros)}${hex(code, 1, w.upper)};`;
		case 'htmlDec':
			return `&#${'0'.repeat(w.zeros)}${code};`;
		case 'named': {
			const names = NAMES[ch];
			if (!names) return url();
			const name = names[w.zeros % names.length];
			return `&${[...name].map((c, i) => (w.nameCase[i % w.nameCase.length] ? c.toUpperCase() : c.toLowerCase())).join('')};`;
		}
		default:
			return ch;
	}
}

/** The token written character by character in the drawn forms: a mixture, or one decoder's forms only. */
const encoded = (secret: string, ways: Way[], only?: 'url' | 'json' | 'html') => [...secret].map((ch, i) => encodeChar(ch, ways[i % ways.length], only)).join('');

// After the token, no letters a raw '&' could read as a name (`&amp` needs no ';').
const around = fc.tuple(fc.stringMatching(/^[a-z ]{0,8}$/), fc.stringMatching(/^[ xyz]{0,8}$/));
/** Only forms that do decode to the token count (a raw '%' before raw hex digits is another text). */
const decodesTo = (text: string, secret: string) => DECODERS.some((decode) => decode(text) === secret);
const only = fc.constantFrom<undefined | 'url' | 'json' | 'html'>(undefined, 'url', 'json', 'html');
const ways = fc.array(way, { minLength: 1, maxLength: 12 });

describe('the token, in any form that decodes to it, is taken out', () => {
	test('text: replaced by *** and nothing else changes', () => {
		fc.assert(
			fc.property(token, ways, only, around, (secret, drawn, decoder, [before, after]) => {
				const text = encoded(secret, drawn, decoder);
				fc.pre(decodesTo(text, secret));
				const out = tokenRedactors(secret).redact(`${before}${text}${after}`);
				expect(out).toBe(`${before}***${after}`);
				expectNoToken(out, secret);
			}),
			runs(500),
		);
	});

	test('among other escapes (\\", &amp;, %20, \\\\, a lone & or %): the token is still found, and what is left never decodes to it', () => {
		const noise = fc.array(fc.constantFrom('a', ' ', '\\"', '&amp;', '%20', '\\\\', '&', '%', '\\n', '&#x41;', '%u0020', '\\u00e9', 'ü', '😀'), { maxLength: 40 }).map((parts) => parts.join(''));
		fc.assert(
			fc.property(token, ways, only, noise, noise, (secret, drawn, decoder, before, after) => {
				const text = encoded(secret, drawn, decoder);
				fc.pre(decodesTo(text, secret));
				const out = tokenRedactors(secret).redact(`${before} ${text} ${after}`);
				expect(out).toContain('***');
				expectNoToken(out, secret);
			}),
			runs(1000),
		);
	});

	test('bytes: the token replaced in place, every other byte (0xFC of windows-1252) kept', () => {
		fc.assert(
			fc.property(token, ways, only, fc.uint8Array({ maxLength: 12 }), (secret, drawn, decoder, noise) => {
				const high = Buffer.from(noise.map((byte) => byte | 0x80));
				fc.pre(decodesTo(encoded(secret, drawn, decoder), secret));
				const bytes = Buffer.concat([high, Buffer.from(encoded(secret, drawn, decoder), 'latin1'), Buffer.from([0xfc])]);
				const out = tokenRedactors(secret).redactBytes(bytes);
				expect(out.equals(Buffer.concat([high, Buffer.from('***'), Buffer.from([0xfc])]))).toBe(true);
			}),
			runs(300),
		);
	});

	type Placement = 'message' | 'description' | 'errorResponse' | 'deep' | 'cause' | 'key' | 'messages' | 'context' | 'cursor';
	const placement = fc.constantFrom<Placement>('message', 'description', 'errorResponse', 'deep', 'cause', 'key', 'messages', 'context', 'cursor');

	test('errors: every own field, at any depth, in causes: nothing n8n would store shows it', () => {
		fc.assert(
			fc.property(token, ways, only, placement, fc.integer({ min: 1, max: 6 }), (secret, drawn, decoder, where, depth) => {
				fc.pre(decodesTo(encoded(secret, drawn, decoder), secret));
				const text = `x ${encoded(secret, drawn, decoder)} y`;
				const node = { id: '1', name: 'Service Reader', type: 'serviceReader', typeVersion: 2, position: [0, 0] as [number, number], parameters: {} };
				let nested: Record<string, unknown> = { leaf: text };
				for (let i = 0; i < depth; i++) nested = { [`level${i}`]: i % 2 ? nested : [nested] };
				const response: Record<string, unknown> = { status: 404, code: where === 'errorResponse' ? text : 'not_found' };
				if (where === 'deep') response.body = nested;
				if (where === 'key') response[text] = 1;
				if (where === 'cursor') response.cursor = text;
				const error = new NodeApiError(node, response as never, {
					message: where === 'message' ? text : 'failed',
					description: where === 'description' ? text : 'words',
				});
				if (where === 'cause') error.cause = Object.assign(new Error('outer'), { cause: new Error(text) });
				if (where === 'messages') error.messages.push(text);
				if (where === 'context') error.context.cursor = text;
				tokenRedactors(secret).redactError(error);
				const seen = JSON.stringify(allFields(error));
				expectNoToken(seen, secret);
				// The node's own definition is left as it was (it is the workflow's, not the Service's).
				expect(error.node).toBe(node);
			}),
			runs(400),
		);
	});

	test('a file name made safe (/ and \\ as _) does not show the token either', () => {
		fc.assert(
			fc.property(token, ways, around, (secret, drawn, [before, after]) => {
				const safe = secret.replace(/[\\/]/g, '_');
				fc.pre(decodesTo(encoded(safe, drawn), safe));
				const name = `${before}${encoded(safe, drawn)}${after}.json`;
				const out = tokenRedactors(secret).redactFileName(name);
				expect(out).toBe(`${before}***${after}.json`);
				expectNoToken(out, secret);
			}),
			runs(300),
		);
	});

	test('a short token is not one: ordinary words stay', () => {
		expect(tokenRedactors('abc').redact('abc abc')).toBe('abc abc');
	});

});


describe('where a form of the token may be: the walk from escape characters', () => {
	// Letters and escape syntax (runs a form may hold), separators (which end a run), and text past ASCII.
	const char = fc.constantFrom(...'aZ09%\\&+#;/"\'', ' ', ',', '(', '-', '\n', 'é', '\ud83d', '\ude00');
	test('says what the character-by-character walk says, for any text', () => {
		fc.assert(
			fc.property(token, fc.array(char, { maxLength: 120 }), (secret, chars) => {
				const text = chars.join('');
				const present = ['%', '\\', '&', '+'].reduce((bits, escape, i) => (text.includes(escape) ? bits | (1 << i) : bits), 0);
				const match = new TokenMatch(secret);
				expect(match.escapeRunLongEnough(text, present)).toBe(match.escapeRunInAnyText(text));
			}),
			runs(2_000),
		);
	});
});
