/**
 * The expiries window, checked against the rows (docs/service-choices.md: "Expiry windows"): a
 * Service that ignores the window parameter's name answers every row, and a row outside the window
 * asked for fails the item instead of passing for a filtered export. What a row is about is found
 * by the column's name (a days column, else an end date), then by shape (the one date column).
 * Pure: no n8n types.
 */

export interface ExpiryWindow {
	/** The window asked for, in days. */
	days: number;
	/** The name the window went under (Request Names: Expiries > Window Parameter). */
	parameter: string;
	/** Today, as the node's clock has it (ms). */
	now: number;
}

export type WindowColumn = { kind: 'days' | 'date'; column: string };

const DAYS_NAMES = ['window_days', 'days', 'days_left', 'days_remaining', 'remaining_days', 'days_until', 'days_to_end', 'window'];
const DATE_NAMES = ['ends_on', 'end_date', 'ends_at', 'end', 'end_on', 'expires_on', 'expires_at', 'expiry_date', 'expiry', 'due_on', 'due_date', 'valid_until', 'until'];
const DATE = /^\d{4}-\d{2}-\d{2}/;
const DAY_MS = 86_400_000;

const normalised = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The column saying what a row's window is: a days column or an end date, by name, else the one date-shaped value of `sample`. */
export function windowColumn(columns: readonly string[], sample?: Record<string, unknown>): WindowColumn | undefined {
	const named = (names: readonly string[]) => {
		for (const name of names) {
			const found = columns.find((column) => normalised(column) === normalised(name));
			if (found !== undefined) return found;
		}
		return undefined;
	};
	const days = named(DAYS_NAMES);
	if (days !== undefined) return { kind: 'days', column: days };
	const date = named(DATE_NAMES);
	if (date !== undefined) return { kind: 'date', column: date };
	if (sample === undefined) return undefined;
	const shaped = columns.filter((column) => typeof sample[column] === 'string' && DATE.test(sample[column] as string));
	return shaped.length === 1 ? { kind: 'date', column: shaped[0] } : undefined;
}

/** Why `row` lies outside the window, or undefined when it lies inside (or says nothing about it). */
export function outsideWindow(row: Record<string, unknown>, column: WindowColumn, window: ExpiryWindow): string | undefined {
	const value = row[column.column];
	if (column.kind === 'days') {
		const days = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
		return Number.isFinite(days) && days > window.days ? `its ${column.column} is ${days}` : undefined;
	}
	if (typeof value !== 'string' || !DATE.test(value)) return undefined;
	const ends = Date.parse(value.slice(0, 10));
	const today = Math.floor(window.now / DAY_MS) * DAY_MS;
	// A day of slack: the Service's day may start before the node's.
	return Number.isFinite(ends) && ends > today + (window.days + 1) * DAY_MS ? `its ${column.column} is ${value.slice(0, 10)}` : undefined;
}

/** The words for a row outside the window: what it says, the parameter the Service probably ignores, the setting. */
export function outsideWindowWords(row: number, why: string, window: ExpiryWindow): { message: string; description: string } {
	return {
		message: `Row ${row} of the expiries export lies outside the ${window.days}-day window asked for (${why})`,
		description: `The window was sent as ${window.parameter}=${window.days}; a Service that does not know that name answers every row, so nothing was passed on rather than an unfiltered list. Map Expiries > Window Parameter to the Service's name for it in Request Names under Advanced Settings in the Service API credential, or choose All Windows.`,
	};
}
