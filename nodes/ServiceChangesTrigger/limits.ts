/**
 * The trigger's own bounds per poll, below the credential's Max Pages: rows read, time spent reading,
 * and the bytes of the state it would keep (docs/changes-trigger.md, docs/token-and-limits.md). Each is
 * an option of the node; reaching one fails the poll naming it, nothing emitted, the state kept. Pure:
 * time by the caller's clock.
 */
import type { ExportName } from './keys';
import { ChangesError } from './keys';

export interface PollLimits {
	/** Rows one poll reads at most (Options: Max Rows). */
	maxRows: number;
	/** Milliseconds one poll keeps asking for pages (Options: Max Poll Time), checked after each page. */
	maxPollMs: number;
	/** UTF-8 bytes of everything the state keeps: header row, key, rows, fingerprints (Options: Max State Size). */
	maxStateBytes: number;
	/** The caller's clock, in milliseconds. */
	now(): number;
}

export const DEFAULT_MAX_ROWS = 500_000;
export const DEFAULT_MAX_POLL_SECONDS = 600;
export const DEFAULT_MAX_STATE_MIB = 64;
export const MIB = 1024 * 1024;

const count = (n: number) => n.toLocaleString('en-US');

/** One poll's account of its bounds: `page` after each page is read, `state` once the state is made. */
export class PollBudget {
	private readonly started: number;
	private rows = 0;

	constructor(
		private readonly name: ExportName,
		private readonly limits: PollLimits,
	) {
		this.started = limits.now();
	}

	/** Before a page of `rows` rows is taken in: throws when it would pass Max Rows. */
	rowsOf(rows: number): void {
		this.rows += rows;
		if (this.rows > this.limits.maxRows) {
			throw new ChangesError(
				`The ${this.name} export has more than ${count(this.limits.maxRows)} rows, this trigger's Max Rows (Options), so it was not read on: its paging may never end, or the export outgrew the limit. If the export really is this large, raise Max Rows (each row read costs memory while the poll runs, docs/changes-trigger.md)`,
			);
		}
	}

	/** After a page: throws when the poll has read for longer than Max Poll Time, or its state passed Max State Size. */
	after(stateChars: number): void {
		const spent = this.limits.now() - this.started;
		if (spent > this.limits.maxPollMs) {
			throw new ChangesError(
				`The ${this.name} export was still being read after ${Math.round(spent / 1000)} s (${count(this.rows)} rows), longer than this trigger's Max Poll Time of ${this.limits.maxPollMs / 1000} s (Options): its paging may never end, or the Service answers slowly. If the export really takes this long to read, raise Max Poll Time and poll less often`,
			);
		}
		// Characters are at most the bytes: passing the bound in characters passes it in bytes.
		if (stateChars > this.limits.maxStateBytes) this.stateTooLarge(stateChars);
	}

	/** The state made: throws when its UTF-8 bytes, every field counted (state.ts `storedBytes`), pass Max State Size. */
	state(bytes: number): void {
		if (bytes > this.limits.maxStateBytes) this.stateTooLarge(bytes);
	}

	private stateTooLarge(bytes: number): never {
		throw new ChangesError(
			`The state this trigger keeps of the ${this.name} export would be more than ${count(bytes)} bytes (${count(this.rows)} rows read), above its Max State Size of ${count(this.limits.maxStateBytes / MIB)} MiB (Options). Raise Max State Size if the export really is this large (the state is kept in the workflow's static data, in n8n's database), or watch a smaller export`,
		);
	}
}
