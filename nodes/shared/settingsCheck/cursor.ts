/**
 * Finding 4, Cursor Parameter: the first page's X-Service-Next-Cursor sent back under the current
 * name, then the common ones; the first name whose 2xx answer differs from the first page is the one
 * the Service reads. A name answered with page 1 again is ignored; a 4xx rules it out. No second
 * page: the finding says it cannot tell.
 */
import type { ProbeBudget } from './budget';
import { answerShown, NameQueue, NEXT_CURSOR, PATHS, refusalWords, requestShown, sameBody, serviceWords, succeeded } from './answers';
import { cannotTell, finding, setting } from './current';
import type { Current } from './current';
import type { Pages } from './pageSize';
import type { Finding } from './types';

const TOPIC = 'Cursor Parameter';
export const CURSOR_CANDIDATES = ['cursor', 'page_token', 'starting_after', 'after', 'page[cursor]', 'next'] as const;

export async function checkCursor(budget: ProbeBudget, current: Current, pages: Pages): Promise<Finding> {
	const now = current.cursorParameter;
	const settings = [setting('cursorParameter', now)];
	if (pages.problem !== undefined) return cannotTell(TOPIC, pages.problem, settings, now);
	const first = pages.first;
	const cursor = first?.headers.get(NEXT_CURSOR);
	if (first === undefined || cursor === undefined || cursor === '') {
		const why = budget.spent() ?? 'the portfolio fits in one page (no X-Service-Next-Cursor, also with a page size of 2 under the names tried), so there is no second page to ask for';
		return finding(TOPIC, 'unknown', `Not checked: ${why}.`, { settings, current: now });
	}
	const base: Array<[string, string]> = [['format', 'csv'], ...pages.sizeQuery];
	const outcomes: string[] = [];
	const names = new NameQueue([now, ...CURSOR_CANDIDATES]);
	for (let name = names.next(); name !== undefined; name = names.next()) {
		const request = { path: PATHS.portfolio, query: [...base, [name, cursor]] as Array<[string, string]> };
		const result = await budget.ask(request);
		if (!result.answer) return cannotTell(TOPIC, `${outcomes.length ? `${outcomes.join('; ')}; then ` : ''}${result.spent ?? result.failed}`, settings, now);
		const answer = result.answer;
		if (succeeded(answer) && !sameBody(answer, first)) {
			pages.second = answer;
			const evidence = `The first page's X-Service-Next-Cursor sent back as ${requestShown(request)} gave another page (${answerShown(answer)}).${outcomes.length ? ` Before: ${outcomes.join('; ')}.` : ''}`;
			if (name === now) return finding(TOPIC, 'ok', evidence, { settings, current: now, found: name });
			return finding(TOPIC, 'change', evidence, { settings: [setting('cursorParameter', name)], current: now, found: name });
		}
		const words = serviceWords(answer);
		// A refusal listing what the route takes names the format and the page size too: neither is the cursor.
		names.heard(refusalWords(answer), ['format', ...pages.sizeQuery.map(([name]) => name)]);
		outcomes.push(succeeded(answer) ? `under ${name} the first page came again (ignored)` : `under ${name} it was refused (${answer.status}${words ? `: "${words}"` : ''})`);
	}
	return finding(TOPIC, 'unknown', `No name tried fetched a second page: ${outcomes.join('; ')}. The Service reads the cursor under a name not tried.`, { settings, current: now });
}
