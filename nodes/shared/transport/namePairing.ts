/**
 * Which Request Names row a name from a Service's refusal stands for (docs/service-choices.md: "What
 * the nodes send"): by the Service's own words first (a name equal to one a row is known under), then
 * by closeness of names (`registration_no` ↔ Registration Number: shared words and abbreviations).
 * Pairs are only said when certain: a name two rows fit as well is handed back with both. Linear
 * scans, no regex over what the Service wrote. Pure: no n8n types.
 */

/** A row as the pairing sees it: its id, documented name, label (`Invitation > Company Name`) and the name it went under. */
export interface PairingRow {
	id: string;
	documented: string;
	label: string;
	sent?: string;
}

export interface Pairing {
	/** Certain: the one row a name stands for, and the one name for that row. */
	pairs: Array<{ name: string; row: string }>;
	/** Not certain: a name and the rows it may stand for (two or more, or the rows left when none reads like it). */
	open: Array<{ name: string; rows: string[] }>;
}

/**
 * Names Services use for a row besides its documented one, compared letters and digits only, lower
 * case. A new Service's name costs a word here.
 */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
	'invitation.company_name': ['company', 'companyname', 'name', 'organisation', 'organization', 'organisationname', 'organizationname', 'legalname', 'businessname', 'entityname'],
	'invitation.registration_number': ['registrationno', 'regno', 'regnumber', 'registration', 'registrationid', 'companynumber', 'companyno', 'registrynumber', 'crn', 'registerednumber'],
	'invitation.work_email': ['email', 'emailaddress', 'contactemail', 'workemailaddress', 'mail', 'businessemail'],
	'invitation.reader_reference': ['reference', 'ref', 'readerref', 'externalid', 'externalreference', 'yourreference', 'clientreference'],
	'webhook.url': ['target', 'targeturl', 'endpoint', 'endpointurl', 'callbackurl', 'webhookurl', 'destination', 'uri', 'href'],
	'policyRun.ke': ['company', 'companyke', 'companyid', 'kenumber'],
	'sso.provider_type': ['provider', 'type', 'protocol', 'idptype'],
	'sso.email_domains': ['domains', 'emaildomain', 'alloweddomains'],
	'sso.group_role_mapping': ['groups', 'mapping', 'mappings', 'rolemapping', 'grouproles', 'rolemappings'],
	'sso.group_role_mapping.group': ['idpgroup', 'groupname'],
	'sso.group_role_mapping.role': ['rolename'],
	'export.window': ['days', 'withindays', 'windowdays', 'lookahead'],
	'export.json_format': ['output', 'responseformat', 'outputformat', 'as'],
};

/** Short forms Services write for a word (`no` for number), beyond prefixes (`reg`, `ref`) and contractions (`nbr`). */
const SHORT_FORMS: ReadonlyMap<string, readonly string[]> = new Map([
	['no', ['number']],
	['nr', ['number']],
	['num', ['number']],
	['co', ['company']],
	['org', ['organisation', 'organization', 'company']],
	['mail', ['email']],
	['uri', ['url']],
	['link', ['url']],
	['addr', ['address']],
	['kind', ['type']],
	['domain', ['domains']],
]);

/** Words of a label that say nothing of which row it is. */
const PLAIN_WORDS = new Set(['parameter', 'field', 'value', 'the', 'of', 'to']);

/** A name's words, lower case: `registration_no`, `registrationNo`, `Registration No.` and `registration-no` alike. */
export function nameWords(name: string): string[] {
	const words: string[] = [];
	let word = '';
	for (let i = 0; i < name.length && i < 200; i++) {
		const char = name[i];
		const isLetter = (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z');
		const isAlnum = isLetter || (char >= '0' && char <= '9');
		if (!isAlnum) {
			if (word !== '') words.push(word.toLowerCase());
			word = '';
			continue;
		}
		const upper = char >= 'A' && char <= 'Z';
		const previous = name[i - 1] ?? '';
		const next = name[i + 1] ?? '';
		// camelCase, and an acronym's end (`XMLParser`: XML, Parser).
		const boundary = upper && word !== '' && ((previous >= 'a' && previous <= 'z') || (previous >= 'A' && previous <= 'Z' && next >= 'a' && next <= 'z'));
		if (boundary) {
			words.push(word.toLowerCase());
			word = '';
		}
		word += char;
	}
	if (word !== '') words.push(word.toLowerCase());
	return words;
}

export const compactName = (name: string): string => nameWords(name).join('');

const singular = (word: string) => (word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word);

/** `short` written in `long`'s letters, in order, starting with its first (`nbr` in number). */
function contraction(short: string, long: string): boolean {
	if (short.length < 3 || short.length >= long.length || short[0] !== long[0]) return false;
	let at = 0;
	for (const char of long) if (char === short[at]) at++;
	return at >= short.length;
}

/** How well a word of the Service's name stands for a word of the row's: 3 the same, 2 a short form or prefix, 1 a contraction. */
function wordMatch(word: string, rowWord: string): number {
	if (word === rowWord || singular(word) === singular(rowWord)) return 3;
	if (SHORT_FORMS.get(word)?.includes(rowWord)) return 2;
	if (word.length >= 3 && word.length < rowWord.length && rowWord.startsWith(word)) return 2;
	return contraction(word, rowWord) ? 1 : 0;
}

/** The words a row is known by: its documented name's and its label's last part's, the plain ones left out. */
function rowWords(row: PairingRow): string[] {
	const last = row.label.split('>').pop() ?? row.label;
	return [...new Set([...nameWords(row.documented), ...nameWords(last)])].filter((word) => !PLAIN_WORDS.has(word));
}

/** What a name and a row share: 100 when the name is one the row is known under, else the words' matches (each row word once). */
export function closeness(name: string, row: PairingRow): number {
	const compact = compactName(name);
	if (compact === '') return 0;
	const known = [row.documented, row.sent ?? '', row.label.split('>').pop() ?? ''].map(compactName);
	if (known.includes(compact) || (ALIASES[row.id] ?? []).includes(compact)) return 100;
	const available = rowWords(row);
	const words = nameWords(name);
	let score = 0;
	let matched = 0;
	for (const word of words) {
		let best = 0;
		let at = -1;
		available.forEach((rowWord, i) => {
			const match = wordMatch(word, rowWord);
			if (match > best) [best, at] = [match, i];
		});
		if (at >= 0) {
			score += best;
			matched++;
			available.splice(at, 1);
		}
	}
	// One word the same, or every word of the name a short form: `gmail.com` is not Company Name for its `com`.
	return score >= 3 || matched === words.length ? score : 0;
}

/** A name closer than this to a row is no pairing: one contraction alone is not enough. */
const LEAST = 2;
/** The names weighed at once: a refusal lists a few; more are read as the first ones. */
const MAX_NAMES = 8;

/**
 * The rows `names` stand for: every way of giving each row at most one name and each name at most one
 * row is weighed by closeness; a pair every best way shares is certain, a name the best ways pair
 * differently is open with its rows. A name no row reads like is left out (the caller may know more).
 */
export function pairNames(names: readonly string[], rows: readonly PairingRow[]): Pairing {
	const weighed = [...new Set(names)].slice(0, MAX_NAMES);
	const edges = rows.map((row) => weighed.map((name) => {
		const score = closeness(name, row);
		return score >= LEAST ? score : 0;
	}));
	let best = 0;
	// For each name, the rows the best ways give it (-1: none), not the ways themselves (ties may be many).
	let given: Array<Set<number>> = weighed.map(() => new Set());
	// Depth first over rows (a handful per request), each given one unused name or none: at most 9^6 ways.
	const choose = (rowIndex: number, used: number[], score: number) => {
		if (rowIndex === rows.length) {
			if (score === 0 || score < best) return;
			if (score > best) [best, given] = [score, weighed.map(() => new Set())];
			weighed.forEach((_, nameIndex) => given[nameIndex].add(used.indexOf(nameIndex)));
			return;
		}
		used.push(-1);
		choose(rowIndex + 1, used, score);
		used.pop();
		weighed.forEach((_, nameIndex) => {
			const edge = edges[rowIndex][nameIndex];
			if (edge === 0 || used.includes(nameIndex)) return;
			used.push(nameIndex);
			choose(rowIndex + 1, used, score + edge);
			used.pop();
		});
	};
	choose(0, [], 0);
	const pairs: Pairing['pairs'] = [];
	const open: Pairing['open'] = [];
	weighed.forEach((name, nameIndex) => {
		const rowsOf = given[nameIndex];
		if (rowsOf.size === 1 && !rowsOf.has(-1)) {
			pairs.push({ name, row: rows[[...rowsOf][0]].id });
			return;
		}
		const fits = [...rowsOf].filter((index) => index >= 0).sort((a, b) => a - b).map((index) => rows[index].id);
		if (fits.length > 0) open.push({ name, rows: fits });
	});
	return { pairs, open };
}
