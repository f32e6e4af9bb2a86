/**
 * Whether an answer of a company route means "the company does not share with you" (spec sections 3
 * and 7: 404). Services also say it with 410 Gone, or a 403 whose code or words say the share is
 * over. Pure: no n8n types; one pass over lower-cased words, no regex.
 */

/** Statuses a company route may use for "does not share": read by `notSharedMeaning`. */
export const NOT_SHARED_STATUSES = [403, 404, 410] as const;

/**
 * `shared-over`: the code or words say the share ended, was revoked or never existed; `maybe`: the
 * status alone means it on a company route (404, 410) but could also mean "no such thing"; `other`: a
 * refusal for another reason (a 403 for the token's scope, say).
 */
export type NotSharedMeaning = 'share-over' | 'maybe' | 'other';

const CODES = new Set(['not_shared', 'no_share', 'unshared', 'share_ended', 'share_revoked', 'share_expired', 'share_not_found', 'not_sharing', 'share_withdrawn', 'share_inactive']);
// Words that only ever say the share is over (the words around "shar" are checked below).
const OVER = ['ended', 'revoked', 'withdrawn', 'expired', 'no longer', 'stopped', 'not shar', "n't shar", 'no share', 'not being shar', 'inactive'];
// Words of a refusal about the caller's own rights: such a 403 is not about the share.
const RIGHTS = ['scope', 'token', 'permission', 'role', 'credential', 'api key', 'apikey', 'not allowed to'];

export function notSharedMeaning(status: number, code: string | undefined, message: string | undefined): NotSharedMeaning {
	const normalised = (code ?? '').trim().toLowerCase().replaceAll('-', '_').replaceAll(' ', '_').replaceAll('.', '_');
	const words = `${code ?? ''} ${message ?? ''}`.toLowerCase().slice(0, 2000);
	const saysShare = words.includes('shar');
	const saysOver = CODES.has(normalised) || (saysShare && OVER.some((word) => words.includes(word)));
	if (status === 404 || status === 410) return saysOver || saysShare ? 'share-over' : 'maybe';
	if (status === 403) return saysOver && !RIGHTS.some((word) => words.includes(word)) ? 'share-over' : 'other';
	return 'other';
}
