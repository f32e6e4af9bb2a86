/**
 * Turns a Service error answer into words for the user. Pure: no n8n types.
 * Error bodies are assumed to be {"error": {"code", "message"}} (docs/service-choices.md).
 */
import { findId, findRecordWith, isRecord } from '../answerShape';
import type { SignIn } from './signIn';
import { BEARER, SIGN_IN_SETTING, sameSignIn, schemeNeedsMore, signInSettingWords, signInShown, wantedSignIn } from './signIn';
import { errorsWords } from './envelopes';
import { isMarkup, pageTitle } from './pageWords';
import { parseExactJson } from '../exactJson';

export interface ServiceErrorWords {
	message: string;
	description: string;
	code?: string;
}

const MESSAGE_NAMES = ['message', 'error_message', 'errorMessage', 'detail', 'error_description', 'description', 'title'];

/**
 * The code and message of an error body: `{error: {code, message}}`, or the same under other
 * conventional names (`{errors: [...]}`, `{error, error_description}`, `{code, detail}`,
 * `{title, detail}`, `{error_code, error_message}`), or plain text. Markup is not words.
 */
export function readErrorBody(body: unknown): { code?: string; message?: string; page?: string } {
	let value = body;
	if (typeof value === 'string' || Buffer.isBuffer(value)) {
		const text = value.toString().trim();
		try {
			value = parseExactJson(text);
		} catch {
			// A page (a gateway's HTML, an XML error): its title in words, never the page.
			if (isMarkup(text)) return { page: pageTitle(text) ?? '' };
			return text === '' ? {} : { message: text.length > 500 ? `${text.slice(0, 500)}…` : text };
		}
	}
	if (!isRecord(value)) return {};
	// JSON:API and the like: every error's title, detail and source, not the first one's message only.
	if (!isRecord(value.error)) {
		const listed = errorsWords(value);
		const top = findId(value, ['message', 'detail', 'title']);
		if (listed?.message !== undefined) return { code: findId(value, ['code']) ?? listed.code, message: top && !listed.message.includes(top) ? `${top}: ${listed.message}` : listed.message };
	}
	// Under `error`, the first of `errors`, else the outermost record holding a message, under any name (`{"fault": {...}}`).
	const nested = isRecord(value.error) ? value.error : Array.isArray(value.errors) && isRecord(value.errors[0]) ? value.errors[0] : findRecordWith(value, MESSAGE_NAMES);
	const inner = nested ?? value;
	const code = findId(inner, ['code', 'error_code', 'errorCode']) ?? (typeof value.error === 'string' ? value.error : undefined);
	const message = findId(inner, MESSAGE_NAMES) ??
		findId(value, ['message', 'error_description', 'detail']);
	return { code, message };
}

/**
 * Words for a failed answer. `attempts` is how many tries were made (for 429 and 5xx); `signIn` is how
 * the token was sent, to tell a 401 asking for another sign-in from one refusing the token.
 */
export function describeServiceError(status: number, body: unknown, attempts = 1, challenge?: string, signIn: SignIn = BEARER): ServiceErrorWords {
	const { code, message, page } = readErrorBody(body);
	const said = serviceSaid({ message, page });
	// A 401 asking for the token another way (a header, a scheme) names the setting and its value.
	const wanted = status === 401 ? wantedSignIn(challenge ?? '', `${code ?? ''} ${message ?? ''}`) : undefined;
	if (wanted && !sameSignIn(wanted, signIn)) {
		const asked = challenge?.trim() ? ` It answered "WWW-Authenticate: ${shorter(challenge.trim())}".` : '';
		return {
			code,
			message: `The Service wants the access token sent as ${signInShown(wanted)} (401): ${signInSettingWords(wanted)}`,
			description: `The token was sent as ${signInShown(signIn)}.${asked} In the Service API credential, turn on Advanced Settings and ${signInSettingWords(wanted)}.${said}`,
		};
	}
	// A 401 is about the token only when its challenge is Bearer, the one sent (or absent): a passkey or
	// other scheme asks for something the token cannot give.
	const scheme = challenge?.trim().split(/[\s,]/)[0] ?? '';
	if (status === 401 && scheme !== '' && scheme.toLowerCase() !== 'bearer' && (schemeNeedsMore(scheme) || !wanted)) {
		const shown = challenge!.trim().length > 200 ? `${challenge!.trim().slice(0, 200)}…` : challenge!.trim();
		return {
			code,
			message: `The Service asks for ${scheme} authentication for this request (401), not an access token`,
			description: `It answered "WWW-Authenticate: ${shown}": the access token was not what it refused. ${
				/passkey|webauthn/i.test(scheme) ? 'Sensitive actions need a recent passkey confirmation: ask a reader admin to confirm their passkey in the Service, then run this node again soon after.' : 'This request needs a kind of sign-in the node cannot give; do it in the Service.'
			}${said}`,
		};
	}
	if (status === 401) {
		return {
			code,
			message: 'The Service rejected the access token (401)',
			description: `Check the Access Token in the Service API credential: it may be wrong, expired or revoked. It was sent as ${signInShown(signIn)} (${SIGN_IN_SETTING} under Advanced Settings).${said}`,
		};
	}
	// 428 Precondition Required: another way Services ask for the passkey first.
	if ((status === 403 && code === 'passkey_required') || (status === 428 && (code === 'passkey_required' || /passkey/i.test(message ?? '')))) {
		return {
			code,
			message: `Setting single sign-on needs a recent passkey confirmation (${status})`,
			description: `Ask a reader admin to confirm their passkey in the Service, then run this node again soon after.${said}`,
		};
	}
	if (status === 403 && code === 'exports_disabled') {
		return {
			code,
			message: 'Exports are not switched on for this reader organisation (403)',
			description: `Ask the Service to switch exports on for your reader organisation.${said}`,
		};
	}
	if (status === 403 && code === 'no_reader_admin') {
		return {
			code,
			message: 'This reader organisation has no reader admin (403)',
			description: `The Service needs at least one reader admin before it allows exports. Name one in the Service.${said}`,
		};
	}
	if (status === 403) {
		return {
			code,
			message: 'The Service refused this request (403)',
			description: `The access token is valid but not allowed to do this.${said}`,
		};
	}
	if (status === 404) {
		return {
			code,
			message: 'The Service has nothing at this address (404)',
			description: `Check the identifiers you entered.${said}`,
		};
	}
	if (status === 429) {
		return {
			code,
			message: `The Service kept rate-limiting the request (429 after ${plural(attempts, 'attempt')})`,
			description: `Wait a little and run the node again, or fetch fewer pages at a time.${said}`,
		};
	}
	if (status >= 500) {
		return {
			code,
			message: `The Service failed to answer (${status} after ${plural(attempts, 'attempt')})`,
			description: `This is a fault on the Service's side; try again later.${said}`,
		};
	}
	return {
		code,
		message: message ? `The Service refused the request (${status}): ${message}` : `The Service refused the request (${status})`,
		description: 'Check the parameters of this node against what the Service expects.',
	};
}

/** The Service's own words for an error, as a sentence to append: its message, or the title of the page it answered with. */
export function serviceSaid(read: { message?: string; page?: string }): string {
	if (read.message) return ` The Service said: "${read.message}"`;
	if (read.page !== undefined) return read.page === '' ? ' The answer was a web page, not the Service\'s JSON (a gateway or proxy in front of it answered).' : ` The answer was a web page titled "${read.page}", not the Service's JSON (a gateway or proxy in front of it answered).`;
	return '';
}

function shorter(text: string): string {
	return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function plural(count: number, noun: string): string {
	return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Whether a failed request ran out of its Request Timeout (the HTTP client's words or code, at any cause). */
export function isTimeout(error: unknown): boolean {
	for (let cause = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; cause && depth < 4; depth++) {
		if (cause.code === 'ETIMEDOUT' || cause.code === 'ECONNABORTED') return true;
		if (typeof cause.message === 'string' && /timeout of \d+ms exceeded/.test(cause.message)) return true;
		cause = cause.cause as typeof cause;
	}
	return false;
}
