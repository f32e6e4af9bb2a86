/**
 * One message for the credential dialog: whether the credential is right, what works, each setting
 * to change as "Set <label> to `<value>`" with its evidence in a few words, what could not be told,
 * and what only writing would tell. `ok` only when sign-in works and nothing is left to change.
 */
import { SIGN_IN_TOPIC } from './signIn';
import type { Finding, FindingSetting } from './types';

const EVIDENCE_CHARS = 220;

/** The evidence in a few words: up to what was tried before the answer that decided. */
function short(evidence: string): string {
	const before = evidence.indexOf(' Before: ');
	const text = before < 0 ? evidence : evidence.slice(0, before);
	return text.length > EVIDENCE_CHARS ? `${text.slice(0, EVIDENCE_CHARS)}…` : text;
}

/** "Set Cursor Parameter to `after`", "Set Send Token As to `Another Header` and Token Header Name to `X-Api-Key`". */
export function changeWords(settings: readonly FindingSetting[]): string {
	const parts = settings.map((entry) => (entry.value === '' ? `clear ${entry.label}` : `${entry.label} to \`${entry.shown ?? String(entry.value)}\``));
	const words = parts.join(' and ');
	return words.startsWith('clear ') ? `C${words.slice(1)}` : `Set ${words}`;
}

/** Why a finding could not be told, in its first clause ("No name tried changed the expiries export's rows"). */
function reason(evidence: string): string {
	const text = evidence.startsWith('Not checked: ') ? evidence.slice('Not checked: '.length) : evidence;
	const colon = text.indexOf(': ');
	const clause = colon >= 12 && !text.startsWith('GET ') ? text.slice(0, colon) : short(text);
	return clause.endsWith('.') ? clause.slice(0, -1) : clause;
}

/**
 * The message n8n's credential dialog shows (on Error only, as plain text, its newlines collapsed):
 * short sentences, each ending with its own stop. Each change without its evidence, which
 * Service > Check Settings gives per finding; sign-in's words in full, as nothing else can be checked without it.
 */
export function settingsMessage(findings: readonly Finding[]): { ok: boolean; message: string } {
	const signIn = findings.find((entry) => entry.topic === SIGN_IN_TOPIC);
	const changes = findings.filter((entry) => entry.verdict === 'change');
	const works = findings.filter((entry) => entry.verdict === 'ok');
	const unknown = findings.filter((entry) => entry.verdict === 'unknown' && entry.topic !== SIGN_IN_TOPIC);
	const notChecked = findings.filter((entry) => entry.verdict === 'not_checked');
	const ok = changes.length === 0 && signIn?.verdict === 'ok';
	const lines: string[] = [];
	const signInShown = signIn !== undefined && signIn.verdict !== 'ok' && signIn.verdict !== 'change';
	if (ok) lines.push('The credential is right for what a read-only check can see.');
	if (signInShown) lines.push(`Sign-in: ${short(signIn.evidence)}`);
	if (!ok && changes.length === 0 && !signInShown) lines.push('No setting to change was found, but the credential is not right until sign-in is.');
	if (changes.length > 0) {
		lines.push(`Change ${changes.length === 1 ? 'one setting' : `${changes.length} settings`} (Advanced Settings in the Service API credential):`);
		for (const entry of changes) lines.push(`- ${changeWords(entry.settings)}.`);
	}
	if (works.length > 0) {
		const shown = (entry: Finding) => (entry.found !== undefined && entry.found !== '' && entry.topic !== 'Base URL' ? `${entry.topic} (${entry.found})` : entry.topic);
		lines.push(`Works: ${works.map(shown).join(', ')}.`);
	}
	if (unknown.length > 0) {
		// Findings stopped for one reason (sign-in failed, the budget spent) are said once, together.
		const byReason = new Map<string, string[]>();
		for (const entry of unknown) byReason.set(reason(entry.evidence), [...(byReason.get(reason(entry.evidence)) ?? []), entry.topic]);
		lines.push(`Could not tell: ${[...byReason].map(([why, topics]) => `${topics.join(', ')} (${why})`).join('; ')}.`);
	}
	if (notChecked.length > 0) {
		// The settings behind each, where they are few (Secret Encoding...): the user sets those by hand.
		const withSettings = (entry: Finding) => {
			const colon = entry.evidence.indexOf(': ');
			return colon > 0 && colon <= 80 ? `${entry.topic} (${entry.evidence.slice(0, colon)})` : entry.topic;
		};
		lines.push(`Not checked, as only writing would tell: ${notChecked.map(withSettings).join(', ')}.`);
	}
	if (!ok) lines.push('What each finding is based on: Service Reader > Service > Check Settings.');
	return { ok, message: lines.join('\n') };
}
