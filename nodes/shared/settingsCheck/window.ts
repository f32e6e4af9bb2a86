/**
 * Finding 7, the expiries window's name (Request Names > Expiries > Window Parameter): the expiries
 * export (CSV) asked with no window, then with the window 30 (and 90, for a Service whose default is 30)
 * under the current name and the common ones; the first name whose 2xx answer differs from the
 * unfiltered one is the one the Service reads. Names already read as the page size, the cursor or the
 * format are never tried (a page size changes the rows too). A 4xx rules a name out; none differing is
 * `unknown`, never a guess.
 */
import type { ProbeBudget } from './budget';
import { answerShown, NameQueue, PATHS, readCsv, refusalWords, requestShown, sameBody, serviceWords, succeeded } from './answers';
import { cannotTell, currentName, finding, nameSetting } from './current';
import type { Current } from './current';
import type { Finding, ProbeAnswer } from './types';

const TOPIC = 'Window Parameter';
export const WINDOW_CANDIDATES = ['window', 'within_days', 'days', 'lookahead', 'window_days'] as const;
const WINDOWS = ['30', '90'] as const;

export interface WindowResult {
	finding: Finding;
	/** Names the Service refused (4xx) and ignored (the unfiltered answer again), for the unknown-parameter finding. */
	refused: string[];
	ignored: string[];
}

const rowsOf = (answer: ProbeAnswer) => {
	const read = readCsv(answer);
	return 'problem' in read ? undefined : Math.max(0, read.records.length - 1);
};

export async function checkWindow(budget: ProbeBudget, current: Current, taken: readonly string[] = [], pageSize?: string): Promise<WindowResult> {
	const now = currentName(current, 'export.window');
	const settings = [nameSetting('export.window', now)];
	const refused: string[] = [];
	const ignored: string[] = [];
	const done = (result: Finding) => ({ finding: result, refused, ignored });
	// The largest page a Service commonly allows: a window's rows are told apart beyond the first page's.
	const base: Array<[string, string]> = [['format', 'csv'], ...(pageSize ? [[pageSize, '100'] as [string, string]] : [])];
	const plain = { path: PATHS.expiries, query: base };
	const all = await budget.ask(plain);
	if (!all.answer) return done(cannotTell(TOPIC, all.spent ?? all.failed, settings, now));
	const asked = `${requestShown(plain)} answered ${answerShown(all.answer)}`;
	if (!succeeded(all.answer)) return done(cannotTell(TOPIC, asked, settings, now));
	const rows = rowsOf(all.answer);
	const outcomes: string[] = [`${asked}${rows === undefined ? '' : ` with ${rows} rows`}`];
	const notWindow = ['format', current.cursorParameter, current.pageSizeParameter, ...taken];
	const names = new NameQueue([now, ...WINDOW_CANDIDATES].filter((name) => !notWindow.includes(name)));
	for (let name = names.next(); name !== undefined; name = names.next()) {
		let request = { path: PATHS.expiries, query: [...base, [name, WINDOWS[0]]] as Array<[string, string]> };
		let result = await budget.ask(request);
		if (result.answer && succeeded(result.answer) && sameBody(result.answer, all.answer)) {
			// The same rows as no window: ignored, or the Service's default window; 90 tells which.
			request = { path: PATHS.expiries, query: [...base, [name, WINDOWS[1]]] };
			result = await budget.ask(request);
		}
		if (!result.answer) return done(cannotTell(TOPIC, `${outcomes.join('; ')}; then ${result.spent ?? result.failed}`, settings, now));
		const answer = result.answer;
		if (succeeded(answer) && !sameBody(answer, all.answer)) {
			const got = rowsOf(answer);
			const evidence = `${requestShown(request)} answered ${got === undefined ? 'other rows' : `${got} rows`}${rows === undefined ? '' : ` where no window gives ${rows}`}: the Service reads the window under ${name}. Before: ${outcomes.join('; ')}.`;
			if (name === now) return done(finding(TOPIC, 'ok', evidence, { settings, current: now, found: name }));
			return done(finding(TOPIC, 'change', evidence, { settings: [nameSetting('export.window', name)], current: now, found: name }));
		}
		if (succeeded(answer)) {
			ignored.push(name);
			outcomes.push(`${name}=${WINDOWS.join(' and ')}: the same rows (ignored)`);
		} else {
			refused.push(name);
			const words = serviceWords(answer);
			// Names the Service lists that are not the window: the format's, the credential's cursor and page size.
			names.heard(refusalWords(answer), notWindow);
			outcomes.push(`${name}=${request.query[request.query.length - 1][1]}: refused (${answer.status}${words ? `: "${words}"` : ''})`);
		}
	}
	const evidence = `No name tried changed the expiries export's rows: ${outcomes.join('; ')}. The window's name cannot be told from these answers${rows === 0 ? ' (the export is empty)' : ''}: if Window finds rows outside the window asked for, the node fails naming Expiries > Window Parameter.`;
	return done(finding(TOPIC, 'unknown', evidence, { settings, current: now }));
}
