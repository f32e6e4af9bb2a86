/**
 * Finding 1, sign-in: the token accepted (2xx), or what a 401 asks for instead (WWW-Authenticate and
 * the error's words, read by transport/signIn.ts `wantedSignIn`), proposed only once one more request
 * with that sign-in is accepted. A 403 accepts the token but refuses the route.
 */
import type { ProbeBudget } from './budget';
import { answerShown, PATHS, plainText, serviceWords, succeeded } from './answers';
import { finding, setting } from './current';
import type { Current } from './current';
import type { Finding, FindingSetting, ProbeAnswer } from './types';
import { readErrorBody } from '../transport/errors';
import { sameSignIn, schemeNeedsMore, signInShown, wantedSignIn, type SignIn } from '../transport/signIn';

export const SIGN_IN_TOPIC = 'Sign-in';

/** The credential fields that send the token as `signIn`. */
export function signInFields(signIn: SignIn): Record<string, string> {
	if (signIn.form === 'header') return { tokenPlacement: 'header', authHeaderName: signIn.header };
	if (signIn.form === 'scheme') return { tokenPlacement: 'scheme', authScheme: signIn.scheme };
	return { tokenPlacement: 'bearer' };
}

function signInSettings(signIn: SignIn): FindingSetting[] {
	return Object.entries(signInFields(signIn)).map(([field, value]) => setting(field, value));
}

export interface SignInResult {
	finding: Finding;
	/** Whether requests are now signed in (the rest can be checked). */
	signedIn: boolean;
}

/** The sign-in finding from the first answer of the Service at `path` (the catalogue, or the portfolio). */
export async function checkSignIn(budget: ProbeBudget, current: Current, first: ProbeAnswer, path: string): Promise<SignInResult> {
	const sent = signInShown(current.signIn);
	const settingsNow = signInSettings(current.signIn);
	if (succeeded(first)) {
		return { finding: finding(SIGN_IN_TOPIC, 'ok', `The token sent as ${sent} was accepted: GET ${path} answered ${answerShown(first)}.`, { settings: settingsNow, current: sent, found: sent }), signedIn: true };
	}
	if (first.status === 403) {
		// A gateway may answer a missing key with 403 and words naming its header ("Missing X-Api-Key"): tried once.
		const { code, message } = readErrorBody(plainText(first));
		const named = wantedSignIn('', `${code ?? ''} ${message ?? ''}`);
		if (named !== undefined && !sameSignIn(named, current.signIn)) {
			const confirm = await budget.ask({ path, fields: signInFields(named) });
			if (confirm.answer && succeeded(confirm.answer)) {
				Object.assign(budget.fields, signInFields(named));
				return {
					finding: finding(SIGN_IN_TOPIC, 'change', `GET ${path} answered ${answerShown(first)}, naming ${named.form === 'header' ? named.header : 'another sign-in'}; sent as ${signInShown(named)} the token was accepted (${answerShown(confirm.answer)}).`, {
						settings: signInSettings(named),
						current: sent,
						found: signInShown(named),
					}),
					signedIn: true,
				};
			}
		}
		return {
			finding: finding(SIGN_IN_TOPIC, 'unknown', `The token sent as ${sent} was accepted, but it is not allowed to read ${path}: the Service answered ${answerShown(first)}. Ask a reader admin for a token with the rights the nodes need.`, { settings: settingsNow, current: sent }),
			signedIn: true,
		};
	}
	if (first.status !== 401) {
		return { finding: finding(SIGN_IN_TOPIC, 'unknown', `GET ${path} answered ${answerShown(first)}, which says nothing about the token.`, { settings: settingsNow, current: sent }), signedIn: true };
	}
	const challenge = (first.headers.get('www-authenticate') ?? '').slice(0, 4096);
	const { code, message } = readErrorBody(plainText(first));
	const wanted = wantedSignIn(challenge, `${code ?? ''} ${message ?? ''}`);
	const asked = `GET ${path} answered 401${challenge ? ` with "WWW-Authenticate: ${challenge.length > 120 ? `${challenge.slice(0, 120)}…` : challenge}"` : ''}${serviceWords(first) ? ` and "${serviceWords(first)}"` : ''}`;
	const scheme = challenge.trim().split(' ')[0] ?? '';
	if (wanted === undefined) {
		const more = scheme !== '' && schemeNeedsMore(scheme) ? `; it asks for ${scheme}, which a token cannot answer` : ', and names no other way to send it';
		return { finding: finding(SIGN_IN_TOPIC, 'unknown', `Check the Access Token: the Service refused it, sent as ${sent}${more}. ${asked}.`, { settings: settingsNow, current: sent }), signedIn: false };
	}
	if (sameSignIn(wanted, current.signIn)) {
		return { finding: finding(SIGN_IN_TOPIC, 'unknown', `Check the Access Token (it may be wrong, expired or revoked): the Service refused it, sent as ${sent}, the way it asks for. ${asked}.`, { settings: settingsNow, current: sent }), signedIn: false };
	}
	const fields = signInFields(wanted);
	const confirm = await budget.ask({ path, fields });
	const proposed = signInShown(wanted);
	if (!confirm.answer) {
		return { finding: finding(SIGN_IN_TOPIC, 'unknown', `${asked}, which asks for ${proposed}; it could not be confirmed: ${confirm.spent ?? confirm.failed}.`, { settings: settingsNow, current: sent }), signedIn: false };
	}
	if (!succeeded(confirm.answer) && confirm.answer.status !== 403) {
		return {
			finding: finding(SIGN_IN_TOPIC, 'unknown', `Check the Access Token: the Service refused it sent as ${sent} and as ${proposed}, which its answer asks for (${answerShown(confirm.answer)}). ${asked}.`, { settings: settingsNow, current: sent }),
			signedIn: false,
		};
	}
	Object.assign(budget.fields, fields);
	return {
		finding: finding(SIGN_IN_TOPIC, 'change', `${asked}; sent as ${proposed} it was accepted (${answerShown(confirm.answer)}).`, { settings: signInSettings(wanted), current: sent, found: proposed }),
		signedIn: true,
	};
}

export { PATHS };
