/**
 * Reading the Service's webhook endpoint answers and checking the URL n8n registers
 * (README Assumptions: "Webhook endpoint creation", "Webhook endpoint listing"). Pure: no n8n types.
 */
import { httpsUrlProblem } from './validation';

export interface CreatedEndpoint {
	id?: string;
	secret?: string;
}

/** `{id, url, secret, created_at}`; the secret may also come as `signing_secret`. */
export function readCreatedEndpoint(body: unknown): CreatedEndpoint {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
	const record = body as Record<string, unknown>;
	const id = typeof record.id === 'string' || typeof record.id === 'number' ? String(record.id).trim() : '';
	const secretValue = [record.secret, record.signing_secret].find(
		(value): value is string => typeof value === 'string' && value.trim() !== '',
	);
	return { id: id === '' ? undefined : id, secret: secretValue?.trim() };
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
 * Whether a listing answer (`{"data": [{id, url, ...}]}`) shows the endpoint. `unknown` when the
 * answer is not a list this module understands, so the caller falls back to what it stored.
 */
export function endpointListed(body: unknown, id: string, url: string): 'present' | 'absent' | 'unknown' {
	let list: unknown = body;
	if (list !== null && typeof list === 'object' && !Array.isArray(list)) {
		list = (list as Record<string, unknown>).data ?? (list as Record<string, unknown>).items;
	}
	if (!Array.isArray(list)) return 'unknown';
	const entry = list.find(
		(item) =>
			item !== null && typeof item === 'object' && String((item as Record<string, unknown>).id) === id,
	) as Record<string, unknown> | undefined;
	if (!entry) return 'absent';
	// Same id pointing elsewhere is not the endpoint this node registered.
	return typeof entry.url === 'string' && entry.url !== url ? 'absent' : 'present';
}
