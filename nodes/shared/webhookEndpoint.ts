/**
 * Reading the Service's webhook endpoint answers and checking the URL n8n registers
 * (docs/service-choices.md: "Webhook endpoint creation", "Webhook endpoint listing"). Pure: no n8n types.
 */
import { findId, findList, findRecordWith, findText, isRecord, type Fields } from './answerShape';
import { httpsUrlProblem } from './validation';

export interface CreatedEndpoint {
	id?: string;
	secret?: string;
	/** When two or more fields may be the secret and nothing tells which: each of them (dotted paths); no secret is taken. */
	secretFields?: string[];
}

/** Where a created endpoint's answer may hold its id and its secret (docs/service-choices.md). */
const ID_NAMES = ['id', 'endpoint_id', 'endpointId', 'webhook_id', 'webhookId', 'uuid'];
const SECRET_NAMES = ['secret', 'signing_secret', 'signingSecret', 'webhook_secret', 'secret_key', 'key'];
/** Words of a field's name that say it holds a secret: what breaks a tie between values that read as one. */
const SECRET_WORDS = ['secret', 'signing', 'hmac', 'key', 'whsec'];

interface Found {
	path: string;
	value: string;
	holder: Fields;
}

/** Every text of the answer with its path and the record holding it, breadth first, bounded. */
function textsOf(body: Fields): Found[] {
	const out: Found[] = [];
	let level: Array<{ path: string; record: Fields }> = [{ path: '', record: body }];
	for (let depth = 0; depth < 6 && level.length > 0 && out.length < 400; depth++) {
		const next: typeof level = [];
		for (const { path, record } of level) {
			for (const [key, value] of Object.entries(record)) {
				const at = path === '' ? key : `${path}.${key}`;
				if (typeof value === 'string' && value.trim() !== '') out.push({ path: at, value: value.trim(), holder: record });
				else if (isRecord(value)) next.push({ path: at, record: value });
			}
		}
		level = next;
	}
	return out;
}

/**
 * Whether a text reads as a signing secret by what it is: `whsec_` and the like before it, or 16 to 64
 * bytes as hex (32 digits or more) or base64 that looks random: never a word, a name, a UUID, a URL or a date.
 */
export function secretShaped(text: string): boolean {
	const cut = text.indexOf('_');
	const prefix = cut > 0 && cut <= 10 ? text.slice(0, cut) : '';
	if (prefix === 'whsec') return text.length > 6;
	// `sk_…`: a prefix of lower-case letters before the secret; base64url holds `_` too, so the whole text is tried as well.
	return randomBytesText(text) || (prefix !== '' && /^[a-z]+$/.test(prefix) && randomBytesText(text.slice(cut + 1)));
}

/** 16 to 64 bytes as hex (32 digits or more), or as base64 or base64url that looks random and is not a UUID. */
function randomBytesText(text: string): boolean {
	if (text.length < 22 || text.length > 132) return false;
	if (/^[0-9a-fA-F]+$/.test(text)) return text.length % 2 === 0 && text.length >= 32 && text.length <= 128;
	const bare = unpadded(text);
	if (!/^[A-Za-z0-9+/_-]+$/.test(bare) || text.length - bare.length > 2 || !looksRandom(bare)) return false;
	// Words joined by separators (`buyer_hooks_production_1`) are a name.
	if (/[_-]/.test(text) && text.split(/[_-]/).every((part) => /^[a-z]*$/.test(part) || /^[0-9]*$/.test(part))) return false;
	// A UUID is an id, however random.
	if (text.length === 36 && [8, 13, 18, 23].every((at) => text[at] === '-')) return false;
	const base64 = bare.replace(/-/g, '+').replace(/_/g, '/');
	const bytes = Buffer.from(base64, 'base64');
	return unpadded(bytes.toString('base64')) === base64 && bytes.length >= 16 && bytes.length <= 64;
}

/** Base64 text less its trailing `=` padding. */
function unpadded(text: string): string {
	let end = text.length;
	while (end > 0 && text[end - 1] === '=') end--;
	return text.slice(0, end);
}

/**
 * Random base64 changes between lower case, upper case, digits and signs at about two characters in
 * three (below one in five about once in 10^5 at 22 characters); names and runs (`ABCDEF…`) far less often.
 */
function looksRandom(text: string): boolean {
	const kind = (char: string) => (char >= 'a' && char <= 'z' ? 0 : char >= 'A' && char <= 'Z' ? 1 : char >= '0' && char <= '9' ? 2 : 3);
	let changes = 0;
	for (let i = 1; i < text.length; i++) if (kind(text[i]) !== kind(text[i - 1])) changes++;
	return changes / (text.length - 1) >= 0.2;
}

const secretNamed = (path: string) => {
	const last = path.split('.').slice(-2).join('.').toLowerCase();
	return SECRET_WORDS.some((word) => last.includes(word));
};

/**
 * `{id, url, secret, created_at}`, or the same under other names at any depth of the answer
 * (`{"data": {...}}`, `{"endpoint": {"signing": {"value": ...}}}`): the secret is the value that reads as
 * one (secretShaped), or the one named so; where several fit, names break the tie, and where they do
 * not, `secretFields` names them and no secret is taken. `secretField` (a dotted path) names it outright.
 * The id is taken from the record holding the secret when it has one.
 */
export function readCreatedEndpoint(body: unknown, secretField?: string): CreatedEndpoint {
	if (!isRecord(body)) return {};
	const texts = textsOf(body);
	let chosen: Found | undefined;
	let secretFields: string[] | undefined;
	if (secretField !== undefined && secretField.trim() !== '') {
		chosen = texts.find((found) => found.path === secretField.trim());
	} else {
		const byName = namedSecret(body, texts);
		const shaped = texts.filter((found) => secretShaped(found.value));
		const candidates = [...(byName ? [byName] : []), ...shaped];
		// The same secret in two places is one; of different ones, those named like a secret.
		const distinct = (list: Found[]) => list.filter((found, i) => list.findIndex((other) => other.value === found.value) === i);
		let fitting = distinct(candidates);
		if (fitting.length > 1) fitting = distinct(candidates.filter((found) => found === byName || secretNamed(found.path)));
		if (fitting.length === 1) chosen = fitting[0];
		else if (fitting.length > 1) secretFields = fitting.map((found) => found.path);
		else if (distinct(candidates).length > 1) secretFields = distinct(candidates).map((found) => found.path);
	}
	const holder = chosen?.holder;
	const idHolder = (holder && findId(holder, ID_NAMES) !== undefined ? holder : undefined) ?? findRecordWith(body, ID_NAMES);
	const id = idHolder ? findId(idHolder, ID_NAMES) : undefined;
	return { id, secret: chosen?.value, ...(secretFields ? { secretFields } : {}) };
}

/** Where an object under a secret-named key holds the secret's text: `value` and the like, or its one text. */
const SECRET_VALUE_NAMES = ['value', 'secret', 'key', 'plaintext', 'text', 'raw', 'base64', 'hex'];

/** The secret held in an object under one of SECRET_NAMES of `record`, if any. */
function secretInObject(record: Fields): string | undefined {
	for (const name of SECRET_NAMES) {
		const inner = record[name];
		if (isRecord(inner)) {
			const found = findText(inner, SECRET_VALUE_NAMES, ['type', 'kind', 'encoding', 'format', 'alg', 'algorithm', 'created_at', 'createdAt', 'expires_at']);
			if (found !== undefined) return found;
		}
	}
	return undefined;
}

/** The secret under a secret's name (`signing_secret`, `signingSecret: {"value": ...}`), or `whsec_…` anywhere. */
function namedSecret(body: Fields, texts: readonly Found[]): Found | undefined {
	const holder = findRecordWith(body, SECRET_NAMES) ?? findRecordWith(body, [], secretInObject);
	if (holder !== undefined) {
		const value = findId(holder, SECRET_NAMES) ?? secretInObject(holder);
		const found = texts.find((text) => text.value === value && (text.holder === holder || Object.values(holder).includes(text.holder)));
		if (found) return found;
	}
	return texts.find((text) => text.value.startsWith('whsec_'));
}

/**
 * A problem in words when n8n's webhook URL cannot be registered (the Service takes https only),
 * with how to give n8n a public https address.
 */
export function webhookUrlProblem(url: string | undefined): string | undefined {
	const problem = httpsUrlProblem("n8n's webhook URL", url);
	if (problem === undefined) return undefined;
	return (
		`${problem} Give n8n a public https address: set n8n's webhook URL (the WEBHOOK_URL environment ` +
		'variable) to the https address under which n8n is reached, behind a reverse proxy that terminates ' +
		'TLS, or through a tunnel, then activate the workflow again.'
	);
}

/**
 * Whether a listing answer (`{"data": [{id, url, ...}]}`, or the same under other conventional
 * names) shows the endpoint. `unknown` when the answer is not a list, so the caller falls back to
 * what it stored.
 */
export function endpointListed(body: unknown, id: string, url: string): 'present' | 'absent' | 'unknown' {
	const list = findList(body, ['data', 'items', 'results', 'endpoints', 'webhooks']);
	if (!list) return 'unknown';
	const entry = list.filter(isRecord).find((item) => findId(item, ID_NAMES) === id);
	if (!entry) return 'absent';
	// Same id pointing elsewhere is not the endpoint this node registered.
	const listedUrl = findId(entry, ['url', 'target', 'target_url', 'targetUrl', 'endpoint']);
	return listedUrl !== undefined && listedUrl !== url ? 'absent' : 'present';
}

/** The ids of the endpoints a listing answer shows at `url` (those a node registered for that URL). */
export function endpointsAt(body: unknown, url: string): string[] | undefined {
	const list = findList(body, ['data', 'items', 'results', 'endpoints', 'webhooks'], 'id');
	if (!list) return undefined;
	return list
		.filter(isRecord)
		.filter((item) => findId(item, ['url', 'target', 'target_url', 'targetUrl', 'endpoint']) === url)
		.map((item) => findId(item, ID_NAMES))
		.filter((id): id is string => id !== undefined);
}
