import type { Listing } from './paging';

export type FaultMode = '500' | '429' | 'drop';

export interface PageFault {
	route: Listing;
	/** 1-based page number within the listing. */
	page: number;
	mode: FaultMode;
	/** Retry-After seconds for mode 429 (default 1). */
	retryAfterSeconds?: number;
	/** How many requests for that page fail before it succeeds (default 1). */
	times?: number;
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

	/** The fault to apply to this request, counting it as used. */
	take(route: Listing, page: number): PageFault | undefined {
		const fault = this.faults.find((f) => f.route === route && f.page === page && f.remaining > 0);
		if (fault) fault.remaining--;
		return fault;
	}

	clear(): void {
		this.faults = [];
	}
}
