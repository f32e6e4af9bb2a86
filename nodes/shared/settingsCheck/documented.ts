/**
 * What a published API document shows of the writes (docs/service-choices.md, Check Settings): the
 * names of their bodies paired with the Request Names rows (transport/namePairing.ts: known aliases,
 * then closeness of words; never a guess between two), and an example signing secret's likely
 * encoding. Asked last, only while the budget has room; no document: the findings stay as they were.
 */
import type { ProbeBudget } from './budget';
import { isJsonAnswer, jsonOf } from './answers';
import { DOCUMENT_PATHS, entrySchema, exampleSecret, isApiDocument, propertiesOf, requestSchema, secretEncoding, webhookAnswers, WRITES } from './apiDocument';
import { currentName, finding, nameSetting, setting } from './current';
import type { Current } from './current';
import { closeness, pairNames, type PairingRow } from '../transport/namePairing';
import { CONCEPT_IDS, conceptLabel, documentedName, REQUEST_CONCEPTS, requestNameProblem, type RequestConcept } from '../transport/requestNames';
import type { Finding, FindingSetting, ProbeAnswer } from './types';

const WRITES_TOPIC = 'Request Names of Writes';
const SIGNING_TOPIC = 'Webhook Signing';

export interface ApiDocument {
	path: string;
	document: Record<string, unknown>;
}

/** The first conventional path that answers with an API document, asked while the budget has room; undefined when none does. */
export async function findApiDocument(budget: ProbeBudget, baseUrl: string): Promise<ApiDocument | undefined> {
	// Under the Base URL found (a proposed one too), written in full as the Base URL finding writes its own: outside /v1/, on its origin.
	let base = budget.fields.baseUrl ?? baseUrl;
	while (base.endsWith('/')) base = base.slice(0, -1);
	for (const path of DOCUMENT_PATHS) {
		if (budget.spent() !== undefined) return undefined;
		const asked = await budget.ask({ path: `${base}${path}` });
		if (!asked.answer || !isJsonAnswer(asked.answer) || asked.answer.truncated) continue;
		let value: unknown;
		try {
			value = jsonOf(asked.answer);
		} catch {
			continue;
		}
		if (isApiDocument(value)) return { path, document: value };
	}
	return undefined;
}

/** What pairing names with rows found: rows to set, rows whose name is the one sent now, names two rows fit. */
interface Paired {
	set: FindingSetting[];
	same: string[];
	open: string[];
}

/** The rows of `concepts` paired with `names` (only names close to some row are weighed: a body may hold many). */
function pairInto(paired: Paired, current: Current, concepts: readonly RequestConcept[], names: readonly string[]): Map<RequestConcept, string> {
	const rows: PairingRow[] = concepts.map((id) => ({ id, documented: documentedName(id), label: conceptLabel(id), sent: currentName(current, id) }));
	// A name the credential could not send (too long, a quote or control character) is no proposal.
	const close = names.filter((name) => requestNameProblem(name) === undefined && rows.some((row) => closeness(name, row) >= 2));
	const { pairs, open } = pairNames(close, rows);
	const found = new Map<RequestConcept, string>();
	for (const pair of pairs) {
		const concept = concepts.find((id) => id === pair.row);
		if (concept === undefined) continue;
		found.set(concept, pair.name);
		if (pair.name === currentName(current, concept)) paired.same.push(`${conceptLabel(concept)} (${pair.name})`);
		else paired.set.push(nameSetting(concept, pair.name));
	}
	for (const entry of open) {
		const labels = entry.rows.map((row) => conceptLabel(row as RequestConcept));
		paired.open.push(`"${entry.name}" may be ${labels.join(' or ')}`);
	}
	return found;
}

/** The body rows of a scope at one level of the body (top: path length 1; under a parent: its entries' names). */
const rowsAt = (scope: string, parent?: string) =>
	CONCEPT_IDS.filter((id) => {
		const concept = REQUEST_CONCEPTS[id];
		if (concept.scope !== scope || concept.where !== 'body') return false;
		return parent === undefined ? concept.path.length === 1 : concept.path.length === 2 && concept.path[0] === parent;
	});

/**
 * 'Request Names of Writes' from the document: the rows to set with the document's names (`change`),
 * or that the names match (`ok`); names two rows fit are said, not picked (`unknown` when nothing else is found).
 * Undefined when the document shows no body of these writes (the finding stays as it was).
 */
export function writesFinding(found: ApiDocument, current: Current): Finding | undefined {
	const paired: Paired = { set: [], same: [], open: [] };
	const read: string[] = [];
	for (const write of WRITES) {
		const properties = propertiesOf(found.document, requestSchema(found.document, write));
		if (properties.length === 0) continue;
		read.push(write.path);
		const top = pairInto(paired, current, rowsAt(write.scope), properties.map((entry) => entry.name));
		// A row whose entries have names of their own (SSO's mapping): its entries' schema, paired with their rows.
		for (const [concept, name] of top) {
			const inner = rowsAt(write.scope, documentedName(concept));
			if (inner.length === 0) continue;
			const schema = entrySchema(found.document, properties.find((entry) => entry.name === name)?.schema);
			pairInto(paired, current, inner, propertiesOf(found.document, schema).map((entry) => entry.name));
		}
	}
	if (read.length === 0) return undefined;
	const parts = [`The API document at ${found.path} shows the request bodies of ${read.join(', ')}.`];
	if (paired.set.length) parts.push(`Its names: ${paired.set.map((entry) => `${entry.label.slice('Request Names > '.length)} "${entry.value}"`).join(', ')}.`);
	if (paired.same.length) parts.push(`Sent as documented: ${paired.same.join(', ')}.`);
	if (paired.open.length) parts.push(`Not picked, set the row yourself: ${paired.open.join('; ')}.`);
	if (paired.set.length) return finding(WRITES_TOPIC, 'change', parts.join(' '), { settings: paired.set, found: paired.set.map((entry) => String(entry.value)).join(', ') });
	if (paired.same.length && !paired.open.length) return finding(WRITES_TOPIC, 'ok', parts.join(' '), { found: 'as documented' });
	if (!paired.same.length && !paired.open.length) parts.push('No property there reads like a Request Names row.');
	return finding(WRITES_TOPIC, 'unknown', parts.join(' '));
}

/** 'Webhook Signing' with the likely encoding of an example secret (the catalogue's, else the document's) as a hint; Detect stays right. */
export function signingFinding(base: Finding, catalogue: ProbeAnswer | undefined, found: ApiDocument | undefined): Finding {
	let secret: string | undefined;
	let where = '';
	const value = catalogue !== undefined && isJsonAnswer(catalogue) ? jsonOf(catalogue) : undefined;
	if (value !== undefined) {
		secret = exampleSecret(undefined, value);
		where = 'the webhook catalogue';
	}
	if (secret === undefined && found !== undefined) {
		secret = exampleSecret(found.document, webhookAnswers(found.document));
		where = `the API document at ${found.path}`;
	}
	const encoding = secret === undefined ? undefined : secretEncoding(secret);
	if (encoding === undefined) return base;
	const hint = setting('signingKeyEncoding', encoding.value);
	return {
		...base,
		settings: [hint],
		found: encoding.value,
		evidence: `${base.evidence} An example secret in ${where} is likely ${hint.shown ?? encoding.value} (${encoding.why}): Secret Encoding may be set to it, but Detect (the default) finds it from the first delivery.`,
	};
}

/** The findings only writing would tell, with what the catalogue and a document show; each as it was where they show nothing. */
export function withDocument(later: readonly Finding[], catalogue: ProbeAnswer | undefined, found: ApiDocument | undefined, current: Current): Finding[] {
	return later.map((entry) => {
		try {
			if (entry.topic === SIGNING_TOPIC) return signingFinding(entry, catalogue, found);
			if (entry.topic === WRITES_TOPIC && found !== undefined) return writesFinding(found, current) ?? entry;
		} catch {
			// A document no reader foresaw: the finding as it was.
		}
		return entry;
	});
}
