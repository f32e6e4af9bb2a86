/**
 * Finding 3, Page Size Parameter: the portfolio (CSV) asked with each candidate name = 2; the first
 * whose answer holds fewer rows than the Service's own page (or a next cursor where it had none)
 * sets the page size. Information unless the user's own setting is refused or ignored. The page it
 * gives is the first page the cursor finding pages on.
 */
import type { ProbeBudget } from './budget';
import { answerShown, NEXT_CURSOR, PATHS, readCsv, requestShown, serviceWords, succeeded, unique } from './answers';
import { cannotTell, finding, setting } from './current';
import type { Current } from './current';
import type { Finding, ProbeAnswer } from './types';

const TOPIC = 'Page Size Parameter';
export const PAGE_SIZE_CANDIDATES = ['page_size', 'limit', 'per_page', 'page[size]', 'size'] as const;
/** The page size asked for: two rows make a second page on any portfolio of three or more. */
export const PROBE_PAGE_SIZE = '2';

export interface Pages {
	/** The portfolio's first page as the Service sends it unasked (format=csv). */
	unasked?: ProbeAnswer;
	/** The first page to page from (with `sizeQuery`), when it has a next cursor. */
	first?: ProbeAnswer;
	sizeQuery: Array<[string, string]>;
	/** The second page, once the cursor finding fetched it. */
	second?: ProbeAnswer;
	/** Why the portfolio could not be read, for the findings that need it. */
	problem?: string;
}

function dataRows(answer: ProbeAnswer): number | undefined {
	const read = readCsv(answer);
	return 'problem' in read ? undefined : Math.max(0, read.records.length - 1);
}

export async function checkPageSize(budget: ProbeBudget, current: Current, pages: Pages): Promise<Finding> {
	const settings = [setting('pageSizeParameter', current.pageSizeParameter)];
	const now = current.pageSizeParameter;
	const asking = pages.unasked === undefined ? await budget.ask({ path: PATHS.portfolio, query: [['format', 'csv']] }) : { answer: pages.unasked };
	const unasked = asking.answer;
	if (unasked === undefined) {
		pages.problem = asking.spent ?? asking.failed ?? 'the portfolio export could not be asked';
		return cannotTell(TOPIC, pages.problem, settings, now);
	}
	pages.unasked = unasked;
	const asked = `${requestShown({ path: PATHS.portfolio, query: [['format', 'csv']] })} answered ${answerShown(unasked)}`;
	if (!succeeded(unasked)) {
		pages.problem = `${asked}`;
		return cannotTell(TOPIC, pages.problem, settings, now);
	}
	const rows = dataRows(unasked);
	const hasNext = unasked.headers.has(NEXT_CURSOR);
	if (hasNext) {
		pages.first = unasked;
		pages.sizeQuery = [];
	}
	if (rows === undefined) {
		// Why, in the reader's words when it names something to do (an unknown charset).
		const read = readCsv(unasked);
		const why = 'problem' in read && read.problem.startsWith('Its Content-Type') ? ` (${read.problem})` : '';
		pages.problem = `${asked}, which does not read as CSV${why}`;
		return cannotTell(TOPIC, pages.problem, settings, now);
	}
	if (rows <= 2 && !hasNext) {
		return finding(TOPIC, 'unknown', `${asked} with ${rows} row${rows === 1 ? '' : 's'} and no next page: too few rows to see a page size take effect.`, { settings, current: now });
	}
	const candidates = unique([...(now ? [now] : []), ...PAGE_SIZE_CANDIDATES]);
	const outcomes: string[] = [];
	let nowOutcome: 'refused' | 'ignored' | undefined;
	for (const name of candidates) {
		const request = { path: PATHS.portfolio, query: [['format', 'csv'], [name, PROBE_PAGE_SIZE]] as Array<[string, string]> };
		const result = await budget.ask(request);
		if (!result.answer) return cannotTell(TOPIC, `${asked} (${rows} rows); then ${result.spent ?? result.failed}`, settings, now);
		const answer = result.answer;
		const got = succeeded(answer) ? dataRows(answer) : undefined;
		const smaller = got !== undefined && got <= Number(PROBE_PAGE_SIZE) && (got < rows || (!hasNext && answer.headers.has(NEXT_CURSOR)));
		if (smaller) {
			if (answer.headers.has(NEXT_CURSOR)) {
				pages.first = answer;
				pages.sizeQuery = [[name, PROBE_PAGE_SIZE]];
			}
			const evidence = `${requestShown(request)} answered ${got} rows${answer.headers.has(NEXT_CURSOR) ? ' and a next cursor' : ''}, where the Service's own page has ${rows}${outcomes.length ? `; ${outcomes.join('; ')}` : ''}.`;
			if (name === now) return finding(TOPIC, 'ok', evidence, { settings, current: now, found: name });
			if (nowOutcome !== undefined) {
				return finding(TOPIC, 'change', `Page Size Parameter \`${now}\` is ${nowOutcome}: ${evidence}`, { settings: [setting('pageSizeParameter', name)], current: now, found: name });
			}
			return finding(TOPIC, 'info', `${evidence} Set it (with Page Size) only to change the Service's own page size.`, { settings: [setting('pageSizeParameter', name)], current: now, found: name });
		}
		const outcome = succeeded(answer) ? 'ignored' : 'refused';
		if (name === now) nowOutcome = outcome;
		const words = serviceWords(answer);
		outcomes.push(`${name} ${outcome}${outcome === 'refused' ? ` (${answer.status}${words ? `: "${words}"` : ''})` : ''}`);
	}
	const evidence = `${asked} with ${rows} rows; with =${PROBE_PAGE_SIZE}: ${outcomes.join(', ')}.`;
	if (nowOutcome === 'refused') {
		return finding(TOPIC, 'change', `Page Size Parameter \`${now}\` is refused and no other name was found: clear it so the Service's own page size applies. ${evidence}`, {
			settings: [setting('pageSizeParameter', '')],
			current: now,
			found: '',
		});
	}
	return finding(TOPIC, 'unknown', `No name tried changed the page size: ${evidence}`, { settings, current: now });
}
