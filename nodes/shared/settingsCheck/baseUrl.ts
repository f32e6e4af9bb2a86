/**
 * Finding 2, the Base URL: when the catalogue answers 404, markup or a redirect, the Base URL may hold
 * a path the node adds itself (`/v1`, `/v1/reader`) or one level too many. Candidates are asked at the
 * Base URL's origin only (absolute URLs there); a 2xx or 401 where the original had nothing is proposed.
 */
import type { ProbeBudget } from './budget';
import { answerShown, isHtml, PATHS, refusalWords, succeeded } from './answers';
import { cannotTell, finding, setting } from './current';
import type { Finding, ProbeAnswer } from './types';

const TOPIC = 'Base URL';

/** Whether an answer at the catalogue says the Base URL reaches something other than the Service's routes. */
export function missesService(answer: ProbeAnswer): boolean {
	return answer.status === 404 || (answer.status >= 300 && answer.status < 400) || (succeeded(answer) && isHtml(answer));
}

const PATH_CHARS = new Set('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./~');

/** Paths the Service's words name ("Every route lives under /api"), each up to where `/v1` starts: one linear pass. */
export function pathsIn(words: string): string[] {
	const out: string[] = [];
	for (let i = 0; i < words.length; i++) {
		if (words[i] !== '/' || PATH_CHARS.has(words[i - 1] ?? ' ')) continue;
		let end = i;
		while (end < words.length && PATH_CHARS.has(words[end])) end++;
		let path = words.slice(i, end);
		while (path.endsWith('.') || path.endsWith('/')) path = path.slice(0, -1);
		const v1 = path.indexOf('/v1');
		if (v1 >= 0) path = path.slice(0, v1);
		if (path.length > 1 && path.length <= 100 && !out.includes(path)) out.push(path);
		i = end;
	}
	return out;
}

/**
 * Base URLs to try, nearest first: where a same-origin redirect points, without a trailing `/v1` or
 * `/v1/reader`, one path level up, a path the Service's 404 names, and `/api` under a bare origin.
 */
export function baseUrlCandidates(baseUrl: string, location?: string, words = ''): string[] {
	if (!URL.canParse(baseUrl)) return [];
	const url = new URL(baseUrl);
	const origin = url.origin;
	const parts = url.pathname.split('/').filter((part) => part !== '');
	const out: string[] = [];
	const add = (segments: readonly string[]) => {
		const candidate = segments.length ? `${origin}/${segments.join('/')}` : origin;
		if (!out.includes(candidate) && candidate !== withoutSlash(baseUrl)) out.push(candidate);
	};
	if (location !== undefined && URL.canParse(location, baseUrl)) {
		const target = new URL(location, baseUrl);
		const at = target.pathname.indexOf(PATHS.catalogue);
		if (target.origin === origin && target.protocol === 'https:' && at >= 0) add(target.pathname.slice(0, at).split('/').filter((part) => part !== ''));
	}
	const last = parts.length;
	if (last >= 2 && parts[last - 2] === 'v1' && parts[last - 1] === 'reader') add(parts.slice(0, -2));
	if (last >= 1 && parts[last - 1] === 'v1') add(parts.slice(0, -1));
	if (last >= 1) add(parts.slice(0, -1));
	for (const path of pathsIn(words).slice(0, 2)) add(path.split('/').filter((part) => part !== ''));
	if (last === 0) add(['api']);
	return out;
}

function withoutSlash(url: string): string {
	let end = url.length;
	while (end > 0 && url[end - 1] === '/') end--;
	return url.slice(0, end);
}

export interface BaseUrlResult {
	finding: Finding;
	/** The catalogue's (or portfolio's) answer at the Base URL to use from now on; undefined when none was found. */
	answer?: ProbeAnswer;
	/** The path that answered. */
	path: string;
}

/**
 * The Base URL finding, given the catalogue's first answer. When it misses the Service: the portfolio
 * at the same Base URL first (a Service without the catalogue), then the candidates' catalogues.
 */
export async function checkBaseUrl(budget: ProbeBudget, baseUrl: string, first: ProbeAnswer): Promise<BaseUrlResult> {
	const at = `${withoutSlash(baseUrl)}${PATHS.catalogue}`;
	if (!missesService(first)) {
		return { finding: finding(TOPIC, 'ok', `GET ${at} reached the Service: it answered ${answerShown(first)}.`, { current: baseUrl, found: baseUrl }), answer: first, path: PATHS.catalogue };
	}
	const said = `GET ${at} answered ${answerShown(first)}${isHtml(first) ? ', a web page rather than the Service' : ''}`;
	if (first.status === 404) {
		const portfolio = await budget.ask({ path: PATHS.portfolio, query: [['format', 'csv']] });
		if (portfolio.answer && !missesService(portfolio.answer)) {
			return {
				finding: finding(TOPIC, 'ok', `${said}, but the portfolio export at the same Base URL answered ${answerShown(portfolio.answer)}: the Base URL is right; this Service has no catalogue route.`, { current: baseUrl, found: baseUrl }),
				answer: portfolio.answer,
				path: PATHS.portfolio,
			};
		}
		if (!portfolio.answer) return { finding: cannotTell(TOPIC, `${said}; ${portfolio.spent ?? portfolio.failed}`, [], baseUrl), path: PATHS.catalogue };
	}
	const tried: string[] = [];
	for (const candidate of baseUrlCandidates(baseUrl, first.headers.get('location'), refusalWords(first))) {
		const asked = await budget.ask({ path: `${candidate}${PATHS.catalogue}` });
		if (!asked.answer) return { finding: cannotTell(TOPIC, `${said}; ${asked.spent ?? asked.failed}`, [], baseUrl), path: PATHS.catalogue };
		if (!missesService(asked.answer) && (succeeded(asked.answer) || asked.answer.status === 401)) {
			budget.fields.baseUrl = candidate;
			return {
				finding: finding(TOPIC, 'change', `${said}; GET ${candidate}${PATHS.catalogue} answered ${answerShown(asked.answer)}. The node adds /v1/reader/... itself.`, {
					settings: [setting('baseUrl', candidate)],
					current: baseUrl,
					found: candidate,
				}),
				answer: asked.answer,
				path: PATHS.catalogue,
			};
		}
		tried.push(`${candidate} (${answerShown(asked.answer)})`);
	}
	const also = tried.length ? `; nor did ${tried.join(', ')}` : '';
	return {
		finding: finding(TOPIC, 'unknown', `${said}${also}. Check the Base URL: the address of your Service up to where /v1 starts.`, { current: baseUrl }),
		path: PATHS.catalogue,
	};
}
