/**
 * Sign-in: how the access token is sent (Send Token As), and what a 401's WWW-Authenticate asks for
 * instead. Pure: no n8n types. Applied by the credential's `authenticate`, so every request follows it.
 */

/** Bearer in Authorization (the default), the raw token in another header, or `Authorization: <scheme> <token>`. */
export type SignIn = { form: 'bearer' } | { form: 'header'; header: string } | { form: 'scheme'; scheme: string };

export const BEARER: SignIn = { form: 'bearer' };
export const SIGN_IN_SETTING = 'Send Token As';
const WHERE = '(Advanced Settings in the Service API credential)';

// RFC 9110 token characters: a header name and an auth scheme are both tokens.
const TCHARS = new Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
const isToken = (text: string) => text.length > 0 && text.length <= 100 && [...text].every((c) => TCHARS.has(c));
// Headers the HTTP client writes itself: the token there would be overwritten or break the request.
const RESERVED = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'accept', 'accept-encoding', 'cookie', 'te', 'upgrade']);

/** Send Token As (+ Token Header Name, Token Scheme) from the credential's Advanced Settings, or the problem in words. */
export function readSignIn(advanced: Record<string, unknown>): { signIn: SignIn } | { problem: string } {
	const text = (value: unknown, fallback: string) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback);
	if (advanced.tokenPlacement === 'header') {
		const header = text(advanced.authHeaderName, 'X-Api-Key');
		if (!isToken(header)) {
			return { problem: `Token Header Name "${header.slice(0, 100)}" is not a header name: use letters, digits and - only, e.g. X-Api-Key ${WHERE}.` };
		}
		if (RESERVED.has(header.toLowerCase())) return { problem: `Token Header Name cannot be ${header}: the HTTP client sets that header itself ${WHERE}.` };
		return { signIn: { form: 'header', header } };
	}
	if (advanced.tokenPlacement === 'scheme') {
		const scheme = text(advanced.authScheme, 'Token');
		if (!isToken(scheme)) {
			return { problem: `Token Scheme "${scheme.slice(0, 100)}" is not one word: enter the word before the token in the Authorization header, e.g. Token ${WHERE}.` };
		}
		return { signIn: { form: 'scheme', scheme } };
	}
	return { signIn: BEARER };
}

/** The header carrying the token, as `signIn` says. */
export function signInHeader(signIn: SignIn, token: string): Record<string, string> {
	if (signIn.form === 'header') return { [signIn.header]: token };
	return { Authorization: `${signIn.form === 'scheme' ? signIn.scheme : 'Bearer'} ${token}` };
}

/** The header as the user sees it, the token shown as <token>. */
export function signInShown(signIn: SignIn): string {
	const [[name, value]] = Object.entries(signInHeader(signIn, '<token>'));
	return `${name}: ${value}`;
}

/** The settings to enter for `signIn`, in the dialog's words. */
export function signInSettingWords(signIn: SignIn): string {
	if (signIn.form === 'header') return `set ${SIGN_IN_SETTING} to Another Header and Token Header Name to ${signIn.header}`;
	if (signIn.form === 'scheme') return `set ${SIGN_IN_SETTING} to Another Authorization Scheme and Token Scheme to ${signIn.scheme}`;
	return `set ${SIGN_IN_SETTING} to Authorization: Bearer`;
}

export function sameSignIn(a: SignIn, b: SignIn): boolean {
	if (a.form === 'header' && b.form === 'header') return a.header.toLowerCase() === b.header.toLowerCase();
	if (a.form === 'scheme' && b.form === 'scheme') return a.scheme.toLowerCase() === b.scheme.toLowerCase();
	return a.form === b.form;
}

export interface Challenge {
	scheme: string;
	/** Parameter names lower-cased; a Map, never a plain object keyed by Service text. */
	params: Map<string, string>;
}

/** Only this much of a WWW-Authenticate header is read. */
const MAX_CHALLENGE = 4096;

/**
 * The challenges of a WWW-Authenticate value (RFC 9110 11.6.1), in one pass: a token not followed by
 * `=` starts a challenge, `name=value` (token or quoted string) is a parameter of the current one.
 */
export function parseChallenges(header: string): Challenge[] {
	const text = header.slice(0, MAX_CHALLENGE);
	const challenges: Challenge[] = [];
	let i = 0;
	const skip = (chars: string) => {
		while (i < text.length && chars.includes(text[i])) i++;
	};
	while (i < text.length) {
		skip(' \t,');
		const start = i;
		while (i < text.length && TCHARS.has(text[i])) i++;
		if (i === start) {
			i++; // a character no token holds: passed over
			continue;
		}
		const word = text.slice(start, i);
		skip(' \t');
		const current = challenges.at(-1);
		if (text[i] !== '=') {
			challenges.push({ scheme: word, params: new Map() });
			continue;
		}
		skip('=');
		skip(' \t');
		let value = '';
		if (text[i] === '"') {
			i++;
			while (i < text.length && text[i] !== '"') {
				if (text[i] === '\\') i++;
				if (i < text.length) value += text[i];
				i++;
			}
			i++;
		} else {
			const valueStart = i;
			while (i < text.length && text[i] !== ',' && text[i] !== ' ' && text[i] !== '\t') i++;
			value = text.slice(valueStart, i);
		}
		// A token68 (`Basic dXNlcg==`) reads as a parameter with an empty or `=` value: harmless.
		if (current && !current.params.has(word.toLowerCase())) current.params.set(word.toLowerCase(), value);
	}
	return challenges;
}

// Schemes a token cannot answer: a person or a handshake must.
const NOT_A_TOKEN = new Set(['passkey', 'webauthn', 'digest', 'negotiate', 'ntlm', 'kerberos', 'hoba', 'mutual', 'scram-sha-1', 'scram-sha-256', 'vapid']);
const HEADER_PARAMS = ['header', 'header_name', 'headername', 'key_header', 'name'];

/** Whether a scheme asks for something other than a token (a passkey, a handshake). */
export function schemeNeedsMore(scheme: string): boolean {
	return NOT_A_TOKEN.has(scheme.toLowerCase());
}

/**
 * The sign-in a 401 asks for: a header named in a challenge's parameter (`ApiKey header="X-Api-Key"`)
 * or in its words or the error's (`X-...-Key`), else the first challenge's scheme. Undefined when it
 * names nothing a token can answer.
 */
export function wantedSignIn(challenge: string, words = ''): SignIn | undefined {
	const challenges = parseChallenges(challenge);
	for (const { params } of challenges) {
		for (const name of HEADER_PARAMS) {
			const header = params.get(name)?.trim() ?? '';
			if (isToken(header) && (name !== 'name' || params.get('in')?.toLowerCase() === 'header') && !RESERVED.has(header.toLowerCase())) {
				return { form: 'header', header };
			}
		}
	}
	const named = keyHeaderIn(`${challenge.slice(0, MAX_CHALLENGE)} ${words.slice(0, MAX_CHALLENGE)}`);
	if (named) return { form: 'header', header: named };
	const scheme = challenges[0]?.scheme ?? '';
	if (scheme === '' || schemeNeedsMore(scheme)) return undefined;
	return scheme.toLowerCase() === 'bearer' ? BEARER : { form: 'scheme', scheme };
}

/** The first word shaped like a key header (`X-Api-Key`, `x-auth-token`), or undefined: one pass over the words. */
function keyHeaderIn(text: string): string | undefined {
	let i = 0;
	while (i < text.length) {
		while (i < text.length && !isHeaderChar(text[i])) i++;
		const start = i;
		while (i < text.length && isHeaderChar(text[i])) i++;
		const word = text.slice(start, i);
		const lower = word.toLowerCase();
		if (lower.startsWith('x-') && word.length <= 100 && /key|token|auth/.test(lower)) return word;
	}
	return undefined;
}

function isHeaderChar(c: string): boolean {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '-' || c === '_';
}
