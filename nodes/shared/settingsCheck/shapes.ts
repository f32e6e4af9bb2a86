/**
 * Finding 9, information: the list shapes of the decisions and statements exports (JSON), the error
 * body's shape (from a 404 at a path no Service has), and the rate-limit headers seen on any answer.
 * The nodes read all of these by themselves (docs/service-choices.md); they are shown as evidence.
 */
import type { ProbeBudget } from './budget';
import { answerShown, bodyText, jsonOf, mediaType, PATHS, plainText, requestShown, succeeded } from './answers';
import { cannotTell, finding } from './current';
import type { Finding, ProbeAnswer } from './types';
import { isRecord, listFromBody } from '../answerShape';
import { readErrorBody } from '../transport/errors';

/** A route no Service has: its 404 shows the error body's shape. */
export const MISSING_PATH = '/v1/reader/settings-check-no-such-route';

/** How a JSON list answer holds its list, in words. */
export function listShape(answer: ProbeAnswer): string {
	if (answer.status === 204) return 'no content (204: an empty list)';
	const type = mediaType(answer);
	const value = jsonOf(answer);
	if (value === undefined) return answer.truncated ? 'cut off at the size cap, so its shape cannot be read' : `not JSON${type ? ` (${type})` : ''}`;
	if (type.includes('ndjson') || type.includes('jsonl') || (Array.isArray(value) && !bodyText(answer).trimStart().startsWith('['))) return 'JSON lines (one row a line)';
	if (Array.isArray(value)) return `a bare JSON array (${value.length} rows)`;
	if (!isRecord(value)) return 'a JSON value that is not a list';
	const key = Object.keys(value).find((name) => Array.isArray(value[name]));
	if (key !== undefined) return `a list under "${key.length > 40 ? `${key.slice(0, 40)}…` : key}" (${(value[key] as unknown[]).length} rows)`;
	try {
		return `a list the nodes find in another shape (${listFromBody(value).length} rows)`;
	} catch {
		return 'JSON the nodes find no list in';
	}
}

export async function checkListShapes(budget: ProbeBudget): Promise<Finding[]> {
	const out: Finding[] = [];
	for (const [topic, path] of [['Decisions List Shape', PATHS.decisions], ['Statements List Shape', PATHS.statements]] as const) {
		const result = await budget.ask({ path });
		if (!result.answer) {
			out.push(cannotTell(topic, result.spent ?? result.failed));
			continue;
		}
		const asked = `${requestShown({ path })} answered ${answerShown(result.answer)}`;
		if (!succeeded(result.answer)) out.push(finding(topic, 'unknown', `${asked}.`));
		else out.push(finding(topic, 'info', `${asked}: ${listShape(result.answer)}; the nodes read it as a list.`, { found: listShape(result.answer) }));
	}
	return out;
}

/** How an error body is shaped, in words. */
export function errorShape(answer: ProbeAnswer): string {
	const type = mediaType(answer);
	const value = jsonOf(answer);
	if (bodyText(answer).trim() === '') return 'an empty body';
	if (value === undefined) return type.includes('html') || bodyText(answer).trimStart().startsWith('<') ? 'a web page (markup; no words read)' : `plain text${type ? ` (${type})` : ''}`;
	if (!isRecord(value)) return 'JSON that is not an object';
	if (type === 'application/problem+json') return 'RFC 9457 problem details (application/problem+json)';
	if (isRecord(value.error)) return '{"error": {"code", "message"}}';
	if (Array.isArray(value.errors)) return '{"errors": [...]} (JSON:API style)';
	const { code, message } = readErrorBody(plainText(answer));
	return `a JSON object${code || message ? ' whose code and message the nodes read' : ' the nodes read no words from'}`;
}

export async function checkErrorShape(budget: ProbeBudget): Promise<Finding> {
	const topic = 'Error Body Shape';
	const result = await budget.ask({ path: MISSING_PATH });
	if (!result.answer) return cannotTell(topic, result.spent ?? result.failed);
	const shape = errorShape(result.answer);
	return finding(topic, 'info', `GET ${MISSING_PATH} answered ${answerShown(result.answer)}: ${shape}.`, { found: shape });
}

export function rateLimitFinding(budget: ProbeBudget): Finding {
	const topic = 'Rate-Limit Headers';
	const seen = [...budget.rateLimitSeen].map(([name, statuses]) => `${name} (on ${[...statuses].join(', ')})`);
	if (seen.length === 0) {
		return finding(topic, 'info', `None on the ${budget.answers} answers of this check. The nodes wait as a 429's Retry-After, RateLimit-Reset or X-RateLimit-Reset says.`, { found: 'none seen' });
	}
	return finding(topic, 'info', `Seen: ${seen.join(', ')}. The nodes wait as a 429's Retry-After, RateLimit-Reset or X-RateLimit-Reset says.`, { found: [...budget.rateLimitSeen.keys()].join(', ') });
}
