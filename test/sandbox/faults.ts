import type { RateLimitForm } from './answerShapes';
import type { Listing } from './paging';
import type { TokenForm } from './tokenForms';

export type FaultMode = '500' | '429' | 'drop' | 'slow';

export interface PageFault {
	route: Listing;
	/** 1-based page number within the listing. */
	page: number;
	mode: FaultMode;
	/** Retry-After seconds for mode 429 (default 1). */
	retryAfterSeconds?: number;
	/** Mode 429: the header form saying the wait (answerShapes.ts; default: the dialect's). */
	rateLimitForm?: RateLimitForm;
	/** For mode slow: the page is answered normally, as the Service has it after this many ms. */
	delayMs?: number;
	/** How many requests for that page fail before it succeeds (default 1). */
	times?: number;
	/** Mode 429: a request for the page before the announced time is refused with 429 again, as a Service enforcing its limit does. */
	enforce?: boolean;
}

/** Page faults for fault-tolerance tests; each fires `times` times, then the page answers normally. */
export class FaultRegistry {
	private faults: Array<PageFault & { remaining: number }> = [];

	add(fault: PageFault): void {
		const times = fault.times ?? 1;
		if (!Number.isInteger(fault.page) || fault.page < 1) throw new Error(`failPage: page must be 1 or more, got ${fault.page}.`);
		if (!Number.isInteger(times) || times < 1) throw new Error(`failPage: times must be 1 or more, got ${times}.`);
		this.faults.push({ ...fault, remaining: times });
	}

	private readonly limitedUntil = new Map<string, number>();
	private readonly formOf = new Map<string, RateLimitForm>();

	/** The fault to apply to this request, counting it as used. */
	take(route: Listing, page: number): PageFault | undefined {
		const key = `${route}:${page}`;
		const until = this.limitedUntil.get(key);
		if (until !== undefined && Date.now() < until) {
			return { route, page, mode: '429', retryAfterSeconds: Math.ceil((until - Date.now()) / 1000), rateLimitForm: this.formOf.get(key) };
		}
		const fault = this.faults.find((f) => f.route === route && f.page === page && f.remaining > 0);
		if (fault) fault.remaining--;
		if (fault?.mode === '429' && fault.enforce) {
			this.limitedUntil.set(key, Date.now() + (fault.retryAfterSeconds ?? 1) * 1000);
			if (fault.rateLimitForm) this.formOf.set(key, fault.rateLimitForm);
		}
		return fault;
	}

	clear(): void {
		this.faults = [];
		this.limitedUntil.clear();
		this.formOf.clear();
	}
}

/**
 * Faults of any route, for the hardening tests: what a hostile or broken Service (or anything in
 * between) may answer. Each fires `times` times (default: for ever), matched on method and path.
 */
export type RouteFault = {
	method?: string;
	path: string;
	/** Matching requests answered normally before the fault fires (e.g. 1: from page 2 on). */
	skip?: number;
	/** The route does its work first (a write is made), then its answer is lost: the fault's goes instead (a gateway's 502 page). */
	afterWork?: boolean;
	times?: number;
} & (
	| { mode: 'redirect'; status: 301 | 302 | 303 | 307 | 308; location: string }
	/** Accepts the request and never answers. */
	| { mode: 'hang' }
	/** Drops the connection without an answer (a Service that is down behind its address). */
	| { mode: 'drop' }
	/** Sends the status, headers and the first bytes of a body, then nothing more. */
	| { mode: 'stall'; contentType?: string }
	/** 200 with a JSON body of about `bytes` bytes, sent in chunks. */
	| { mode: 'oversize'; bytes: number }
	/** A JSON list page (with `csv`, a CSV page of one company, header row first) whose next-page cursor is new every time. */
	| { mode: 'endlessCursor'; csv?: boolean }
	/**
	 * An error (or, with status 200, an answer) whose text quotes the bearer token it received, every
	 * character in `form` (tokenForms.ts), `in` the error's message (default) or `code`, the next-page
	 * `cursor` (the same on every page, so paging fails naming it; a CSV page when the request asks
	 * format=csv), a 401's `wwwAuthenticate` header, or a record's Content-Disposition `fileName` made
	 * safe (`/` as `_`).
	 */
	| { mode: 'echoToken'; status: number; form?: TokenForm; in?: 'message' | 'code' | 'cursor' | 'wwwAuthenticate' | 'fileName'; /** Characters before the token, so that a shortening cuts through it. */ pad?: number }
	/** 200 with a JSON body sent one byte every `everyMs` (a Service that never pauses long, and never ends soon). */
	| { mode: 'drip'; everyMs: number; body: string; /** Default 200. */ status?: number }
	/** A literal answer; `bodyEncoding: 'latin1'` sends each character of `body` as one byte (a windows-1252 page). */
	| { mode: 'answer'; status: number; contentType: string; body: string; headers?: Record<string, string>; bodyEncoding?: 'utf8' | 'latin1' }
);

export class RouteFaults {
	private faults: Array<RouteFault & { remaining: number; toSkip: number }> = [];

	add(fault: RouteFault): void {
		this.faults.push({ ...fault, remaining: fault.times ?? Number.POSITIVE_INFINITY, toSkip: fault.skip ?? 0 });
	}

	take(method: string, path: string): RouteFault | undefined {
		const matching = this.faults.filter(
			(f) => f.path === path && (f.method === undefined || f.method === method) && f.remaining > 0,
		);
		for (const fault of matching) {
			if (fault.toSkip > 0) {
				fault.toSkip--;
				continue;
			}
			fault.remaining--;
			return fault;
		}
		return undefined;
	}

	clear(): void {
		this.faults = [];
	}
}
