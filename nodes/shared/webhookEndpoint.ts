/**
 * Reading the Service's webhook endpoint answers and checking the URL n8n registers
 * (docs/service-choices.md: "Webhook endpoint creation", "Webhook endpoint listing"). Pure: no n8n types.
 */
import { findId, findList, findRecordWith, findStringDeep, findText, isRecord, type Fields } from './answerShape';
import { httpsUrlProblem } from './validation';

export interface CreatedEndpoint {
	id?: string;
	secret?: string;
}

/** Where a created endpoint's answer may hold its id and its secret (docs/service-choices.md). */
const ID_NAMES = ['id', 'endpoint_id', 'endpointId', 'webhook_id', 'webhookId', 'uuid'];
const SECRET_NAMES = ['secret', 'signing_secret', 'signingSecret', 'webhook_secret', 'secret_key', 'key'];

/**
 * `{id, url, secret, created_at}`, or the same under other conventional names, at any depth of the
 * answer (`{"data": {...}}`, `{"webhook": {"endpoint": {...}}}`); the id is taken from the record
 * holding the secret when it has one; a string starting `whsec_` is a secret wherever it is.
 */
export function readCreatedEndpoint(body: unknown): CreatedEndpoint {
	if (!isRecord(body)) return {};
	let holder = findRecordWith(body, SECRET_NAMES);
	let secret = holder ? findId(holder, SECRET_NAMES) : undefined;
	if (secret === undefined) {
		// The secret in an object under a secret-named key: `"signingSecret": {"value": "..."}`.
		holder = findRecordWith(body, [], secretInObject);
		secret = holder ? secretInObject(holder) : findStringDeep(body, (value) => value.startsWith('whsec_'));
	}
	const idHolder = (holder && findId(holder, ID_NAMES) !== undefined ? holder : undefined) ?? findRecordWith(body, ID_NAMES);
	return { id: idHolder ? findId(idHolder, ID_NAMES) : undefined, secret };
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
