/**
 * Finding 4, Cursor Parameter and Send Cursor As: the first page's X-Service-Next-Cursor sent back as the
 * credential sends it, then under the common query names, then in the common headers and any header the
 * Service's words name; the first whose 2xx answer differs from the first page is how the Service reads
 * it. One answered with page 1 again is ignored; a 4xx rules it out. No second page: it cannot tell.
 */
import type { ProbeBudget } from './budget';
import { answerShown, NameQueue, NEXT_CURSOR, PATHS, refusalWords, requestShown, sameBody, serviceWords, succeeded } from './answers';
import { cannotTell, finding, setting } from './current';
import type { Current } from './current';
import type { Pages } from './pageSize';
import type { Finding, FindingSetting, ProbeAnswer, ProbeRequest } from './types';

const TOPIC = 'Cursor Parameter';
export const CURSOR_CANDIDATES = ['cursor', 'page_token', 'starting_after', 'after', 'page[cursor]', 'next'] as const;
/** Headers a Service may read the cursor from (docs/service-choices.md); one its words name is tried too. */
export const CURSOR_HEADER_CANDIDATES = ['X-Service-Cursor', 'Service-Cursor', 'X-Service-Next-Cursor', 'Cursor'] as const;

/** The credential's way now, as a finding's settings. */
function sentNow(current: Current): FindingSetting[] {
	return current.cursorHeader === undefined
		? [setting('cursorParameter', current.cursorParameter)]
		: [setting('cursorPlacement', 'header'), setting('cursorHeaderName', current.cursorHeader)];
}

export async function checkCursor(budget: ProbeBudget, current: Current, pages: Pages): Promise<Finding> {
	const now = current.cursorHeader === undefined ? current.cursorParameter : `${current.cursorHeader} (header)`;
	const settings = sentNow(current);
	if (pages.problem !== undefined) return cannotTell(TOPIC, pages.problem, settings, now);
	const first = pages.first;
	const cursor = first?.headers.get(NEXT_CURSOR);
	if (first === undefined || cursor === undefined || cursor === '') {
		const why = budget.spent() ?? 'the portfolio fits in one page (no X-Service-Next-Cursor, also with a page size of 2 under the names tried), so there is no second page to ask for';
		return finding(TOPIC, 'unknown', `Not checked: ${why}.`, { settings, current: now });
	}
	const base: Array<[string, string]> = [['format', 'csv'], ...pages.sizeQuery];
	const outcomes: string[] = [];
	// Words of every answer, for a header the Service names.
	const heard: string[] = [];
	const anotherPage = (answer: ProbeAnswer) => succeeded(answer) && !sameBody(answer, first);
	const evidence = (request: ProbeRequest, how: string, answer: ProbeAnswer) =>
		`The first page's X-Service-Next-Cursor sent back ${how} (${requestShown(request)}) gave another page (${answerShown(answer)}).${outcomes.length ? ` Before: ${outcomes.join('; ')}.` : ''}`;
	const note = (answer: ProbeAnswer, how: string) => {
		const words = serviceWords(answer);
		heard.push(refusalWords(answer), words ?? '');
		outcomes.push(succeeded(answer) ? `${how} the first page came again (ignored)` : `${how} it was refused (${answer.status}${words ? `: "${words}"` : ''})`);
	};

	const askHeader = async (header: string) => {
		const request: ProbeRequest = { path: PATHS.portfolio, query: base, headers: { [header]: cursor } };
		return { request, result: await budget.ask(request) };
	};
	if (current.cursorHeader !== undefined) {
		const { request, result } = await askHeader(current.cursorHeader);
		if (!result.answer) return cannotTell(TOPIC, result.spent ?? result.failed, settings, now);
		if (anotherPage(result.answer)) {
			pages.second = result.answer;
			return finding(TOPIC, 'ok', evidence(request, `in the header ${current.cursorHeader}`, result.answer), { settings, current: now, found: now });
		}
		note(result.answer, `in the header ${current.cursorHeader}`);
	}

	const names = new NameQueue([current.cursorParameter, ...CURSOR_CANDIDATES]);
	for (let name = names.next(); name !== undefined; name = names.next()) {
		const request = { path: PATHS.portfolio, query: [...base, [name, cursor]] as Array<[string, string]> };
		const result = await budget.ask(request);
		if (!result.answer) return cannotTell(TOPIC, `${outcomes.length ? `${outcomes.join('; ')}; then ` : ''}${result.spent ?? result.failed}`, settings, now);
		const answer = result.answer;
		if (anotherPage(answer)) {
			pages.second = answer;
			const text = evidence(request, `as the query parameter ${name}`, answer);
			if (current.cursorHeader === undefined && name === current.cursorParameter) return finding(TOPIC, 'ok', text, { settings, current: now, found: name });
			const change = current.cursorHeader === undefined ? [setting('cursorParameter', name)] : [setting('cursorPlacement', 'query'), setting('cursorParameter', name)];
			return finding(TOPIC, 'change', text, { settings: change, current: now, found: name });
		}
		// A refusal listing what the route takes names the format and the page size too: neither is the cursor.
		names.heard(refusalWords(answer), ['format', ...pages.sizeQuery.map(([name]) => name)]);
		note(answer, `under ${name}`);
	}

	// The query is not read: the cursor in a header, the common ones, then up to two the Service's words name.
	const headers = uniqueNames([...CURSOR_HEADER_CANDIDATES, ...cursorHeadersNamed(heard.join(' ')).slice(0, 2)]).filter((header) => header.toLowerCase() !== current.cursorHeader?.toLowerCase());
	for (const header of headers) {
		const { request, result } = await askHeader(header);
		if (!result.answer) return cannotTell(TOPIC, `${outcomes.join('; ')}; then ${result.spent ?? result.failed}`, settings, now);
		if (anotherPage(result.answer)) {
			pages.second = result.answer;
			const change = [setting('cursorPlacement', 'header'), setting('cursorHeaderName', header)];
			return finding(TOPIC, 'change', evidence(request, `in the header ${header}`, result.answer), { settings: change, current: now, found: `${header} (header)` });
		}
		note(result.answer, `in the header ${header}`);
	}
	return finding(TOPIC, 'unknown', `No name tried fetched a second page: ${outcomes.join('; ')}. The Service reads the cursor under a name not tried.`, { settings, current: now });
}

/** Header names in the Service's words that speak of a cursor (`Page-Cursor`), read by scanning characters. */
export function cursorHeadersNamed(words: string): string[] {
	const found: string[] = [];
	let start = 0;
	for (let i = 0; i <= words.length; i++) {
		const code = i < words.length ? words.charCodeAt(i) : 32;
		const inName = (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 122) || code === 45 || code === 95;
		if (inName) continue;
		const word = words.slice(start, i);
		start = i + 1;
		if (word.length <= 64 && word.includes('-') && word.toLowerCase().includes('cursor')) found.push(word);
	}
	return uniqueNames(found);
}

function uniqueNames(names: readonly string[]): string[] {
	const seen = new Set<string>();
	return names.filter((name) => !seen.has(name.toLowerCase()) && seen.add(name.toLowerCase()) !== undefined);
}
