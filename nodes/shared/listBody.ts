/**
 * The rows of a JSON list answer. The Service is assumed to answer {"data": [...]}; a bare array
 * or {"items": [...]} is accepted too (README, Assumptions). Pure: no n8n types.
 */
export function listFromBody(body: unknown): unknown[] {
	if (Array.isArray(body)) return body;
	if (body !== null && typeof body === 'object') {
		const record = body as Record<string, unknown>;
		for (const key of ['data', 'items', 'event_types']) {
			if (Array.isArray(record[key])) return record[key] as unknown[];
		}
	}
	throw new Error('The Service answered with something other than a list');
}
