/**
 * Where a verification answer holds its key, digest and signature, read by what the values are (a PEM,
 * JWK or DER key; bytes of a digest's or the signature's length; an `alg=value` prefix), at any depth
 * and under any name (`public_key_pem`, `verification.key`, `keys[0]`); names only break ties
 * (docs/service-choices.md: Verification). Pure: no n8n types.
 */
import type { KeyObject } from 'node:crypto';

import { compact, isRecord, type Fields } from './encodings';

/** A value of the answer and where it is: a dotted path, list entries as `[i]` (`keys[0]`). */
export interface Leaf {
	path: string;
	value: unknown;
}

const MAX_DEPTH = 5;
const MAX_LEAVES = 400;

/** Every value of the answer, breadth first (the outermost first), bounded in depth and count. */
export function leavesOf(answer: Fields): Leaf[] {
	const out: Leaf[] = [];
	let level: Leaf[] = Object.entries(answer).map(([key, value]) => ({ path: key, value }));
	for (let depth = 0; depth < MAX_DEPTH && level.length > 0 && out.length < MAX_LEAVES; depth++) {
		const next: Leaf[] = [];
		for (const leaf of level) {
			if (out.length >= MAX_LEAVES) break;
			out.push(leaf);
			if (Array.isArray(leaf.value)) leaf.value.slice(0, 20).forEach((value, i) => next.push({ path: `${leaf.path}[${i}]`, value }));
			else if (isRecord(leaf.value)) for (const [key, value] of Object.entries(leaf.value)) next.push({ path: `${leaf.path}.${key}`, value });
		}
		level = next;
	}
	return out;
}

/** The value at a dotted path as `leavesOf` writes it (`verification.keys[0]`), own fields only; undefined when absent. */
export function valueAt(answer: Fields, path: string): Leaf | undefined {
	let value: unknown = answer;
	for (const part of path.split('.')) {
		const bracket = part.indexOf('[');
		const name = bracket < 0 ? part : part.slice(0, bracket);
		if (!isRecord(value) || !Object.prototype.hasOwnProperty.call(value, name)) return undefined;
		value = value[name];
		for (let at = bracket; at >= 0; at = part.indexOf('[', at + 1)) {
			const index = Number(part.slice(at + 1, part.indexOf(']', at)));
			if (!Array.isArray(value) || !Number.isInteger(index) || index < 0 || index >= value.length) return undefined;
			value = value[index];
		}
	}
	return value === null || value === undefined ? undefined : { path, value };
}

/** Whether `inner` is `outer` or inside it (`public_key.x` inside `public_key`, `keys[0]` inside `keys`). */
export function within(inner: string, outer: string): boolean {
	return inner === outer || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
}

export type Role = 'key' | 'digest' | 'signature';

/** The words a field of each role is named with: what breaks a tie between values that fit as well. */
const ROLE_WORDS: Record<Role, readonly string[]> = {
	key: ['key', 'jwk', 'pem', 'spki', 'public', 'cert'],
	digest: ['sha', 'digest', 'hash', 'checksum', 'integrity'],
	signature: ['sig'],
};

/** How well a path's last name says `role`: 1 when it holds one of the role's words (and none of another role's), else 0. */
/** Names that say how a value is written, not what it is (`signature.value`): the name above them says that. */
const GENERIC = new Set(['value', 'hex', 'base64', 'b64', 'base64url', 'raw', 'text', 'data', 'bytes', 'encoded', 'string']);

export function nameFits(path: string, role: Role): number {
	const names = path.split('.').map((name) => compact(name.replace(/\[\d+\]/g, '')));
	const last = [...names].reverse().find((name) => name !== '' && !GENERIC.has(name)) ?? '';
	const says = (r: Role) => ROLE_WORDS[r].some((word) => last.includes(word));
	return says(role) && !(Object.keys(ROLE_WORDS) as Role[]).some((other) => other !== role && says(other) && !(role === 'key' && other === 'signature' && last.includes('key'))) ? 1 : 0;
}

/** A candidate key: where, and the key read. */
export interface KeyCandidate extends Leaf {
	key: KeyObject;
}

/** The keys an answer holds, one per distinct key (the same key as PEM and as JWK counts once, under the better-named field). */
export function distinctKeys(candidates: readonly KeyCandidate[]): KeyCandidate[] {
	const ordered = [...candidates].sort((a, b) => nameFits(b.path, 'key') - nameFits(a.path, 'key'));
	const out: KeyCandidate[] = [];
	for (const candidate of ordered) if (!out.some((kept) => kept.key.equals(candidate.key))) out.push(candidate);
	return out;
}

/** The parts a check reads, each a field of the answer. */
export interface Parts {
	key: Leaf;
	digest: Leaf;
	signature: Leaf;
}

/**
 * Of the part sets the answer's values allow, those as well named as the best: names break the tie
 * between a digest and a signature of one length (SHA-512 and Ed25519 are both 64 bytes). Two keys
 * are never told apart by name (`next_key` is a key too): the caller checks with each.
 */
export function bestNamed(options: readonly Parts[]): Parts[] {
	const score = (parts: Parts) => nameFits(parts.digest.path, 'digest') + nameFits(parts.signature.path, 'signature');
	const best = Math.max(...options.map(score));
	return options.filter((parts) => score(parts) === best);
}

/** The fields that differ between part sets, by role: what an error asking for the field names. */
export function undecided(options: readonly Parts[]): Array<{ role: Role; paths: string[] }> {
	return (['key', 'digest', 'signature'] as const)
		.map((role) => ({ role, paths: [...new Set(options.map((parts) => parts[role].path))] }))
		.filter((entry) => entry.paths.length > 1);
}
