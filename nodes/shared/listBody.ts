import { findList, sampleOf } from './answerShape';

/** Names under which services conventionally wrap a list. */
const LIST_NAMES = ['data', 'items', 'results', 'records', 'entries', 'event_types', 'events', 'rows'];

/**
 * The rows of a JSON list answer: a bare array, a list under a conventional name ({"data": [...]},
 * {"items": [...]}, ...), the one array-valued property of the answer, the same inside a wrapper,
 * or an object keyed by id or type, each item keeping its key under `keyName` (docs/service-choices.md).
 * Pure: no n8n types.
 */
export function listFromBody(body: unknown, keyName = 'key'): unknown[] {
	const list = findList(body, LIST_NAMES, keyName);
	if (list) return list;
	throw new Error(`The Service answered with something other than a list: ${sampleOf(body)}`);
}
