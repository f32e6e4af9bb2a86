import { findList, sampleOf } from './answerShape';

/** Names under which services conventionally wrap a list. */
const LIST_NAMES = ['data', 'items', 'results', 'records', 'entries', 'event_types', 'events', 'rows'];

/**
 * The rows of a JSON list answer: a bare array, a list under a conventional name ({"data": [...]},
 * {"items": [...]}, ...), or the one array-valued property of the answer (README, Assumptions).
 * Pure: no n8n types.
 */
export function listFromBody(body: unknown): unknown[] {
	const list = findList(body, LIST_NAMES);
	if (list) return list;
	throw new Error(`The Service answered with something other than a list: ${sampleOf(body)}`);
}
