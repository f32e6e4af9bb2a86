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
	if (works.length > 0) lines.push(`Works: ${works.map((entry) => (entry.found !== undefined && entry.found !== '' ? `${entry.topic} (${entry.found})` : entry.topic)).join(', ')}.`);
	if (changes.length > 0) {
		lines.push(`Change ${changes.length === 1 ? 'one setting' : `${changes.length} settings`} (Advanced Settings in the Service API credential):`);
		for (const entry of changes) lines.push(`- ${changeWords(entry.settings)}. ${short(entry.evidence)}`);
	}
	if (unknown.length > 0) {
		lines.push('Could not tell:');
		// Findings stopped for one reason (sign-in failed, the budget spent) are said once, together.
		const byReason = new Map<string, string[]>();
		for (const entry of unknown) byReason.set(short(entry.evidence), [...(byReason.get(short(entry.evidence)) ?? []), entry.topic]);
		for (const [reason, topics] of byReason) lines.push(`- ${topics.join(', ')}: ${reason}`);
	}
	if (notChecked.length > 0) lines.push(`Not checked (only writing would tell; the check sends GETs only): ${notChecked.map((entry) => entry.topic).join(', ')}.`);
	return { ok, message: lines.join('\n') };
}
