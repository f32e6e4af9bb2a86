/**
 * Writes whose outcome the node cannot know: the key that lets a Service tell a repeat from a new
 * request (Stripe's Idempotency-Key convention; the spec names none, so its header is a setting), and
 * the words when the answer to a write was lost or a 202's job cannot be followed. A write is never
 * sent again by the node. Pure: no n8n types.
 */
import { createHash } from 'node:crypto';

import { addedFieldsKey } from '../addedFields';

/** Where a write's key comes from: the same execution, node and item, and the same request, give the same key. */
export interface WriteOrigin {
	/** n8n's execution id; for an activation (no execution), the workflow's id and the activation. */
	execution: string;
	node: string;
	item: number;
	method: string;
	path: string;
	body: unknown;
}

/** The key: 32 characters of a SHA-256 over where the write comes from, so a repeat of the same item carries it again. */
export function idempotencyKey(origin: WriteOrigin): string {
	const hash = createHash('sha256').update(JSON.stringify([origin.execution, origin.node, origin.item, origin.method, origin.path]));
	// An upload's bytes as they are, never turned into JSON.
	const body = origin.body;
	hash.update(Buffer.isBuffer(body) || typeof body === 'string' ? body : JSON.stringify(body ?? null));
	const digest = hash.digest('base64url');
	return `n8n_${digest.slice(0, 32)}`;
}

/** Connection failures that happen before anything is sent: the write surely did not reach the Service. */
const NOT_SENT: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID']);

export function surelyNotSent(code: string): boolean {
	return NOT_SENT.has(code);
}

/** Words for a write whose answer never came whole: it may have been done. */
export function unknownOutcome(what: string, key: { header: string; value: string } | undefined): { message: string; description: string } {
	return {
		message: `The outcome of this write is unknown: ${what}`,
		description: `The Service may have done it already, so the node did not send it again. Check at the Service whether it exists before running this item again.${
			key ? ` It carried ${key.header}: ${key.value}; a Service that honours that header answers a request sent again with the same key with its first answer.` : ''
		}`,
	};
}

/** The accepted answer with the nodes' note that its job could not be followed, under `_reader` (addedFields.ts). */
export function withJobNote(body: unknown, why: string): Record<string, unknown> {
	const sent = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : body === undefined || body === '' ? {} : { answer: body };
	const note = {
		job: 'not_followed',
		job_note: `The Service accepted the request (202), but ${why}, so its result was not awaited. The request was not sent again: what it did is at the Service.`,
	};
	return { ...sent, [addedFieldsKey(sent)]: note };
}
