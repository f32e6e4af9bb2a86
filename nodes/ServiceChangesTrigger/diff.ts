/**
 * What changed in one export between two complete readings of it (keys in keys.ts, the state in state.ts). Pure: no n8n types, no HTTP; the
 * node feeds the rows of each page in order and, only once the export is complete, takes the
 * changes and the next state (docs/changes-trigger.md).
 *
 * Rows are told apart by a key per export, or by the Key Column the user set: the portfolio by its
 * KE column (by name, else by the first page's values: shared/keColumn.ts), invitations by their
 * invitation id column, expiries by their kind and reference columns (else a fingerprint of the
 * whole row), decisions and statements by their id (else a fingerprint). Portfolio, invitations and
 * expiries keep each row's values (for `previous` and the `removed` row); decisions and statements
 * keep a fingerprint of the key only, and report new rows only.
 */
import type { Change, ChangeKind, ExportName, Row } from './keys';
import { canonical, ChangesError, fingerprint, keepsRows, keyColumns, keyOf, rowOf } from './keys';
import { HeldChanges } from './heldChanges';
import type { RowSource } from '../shared/keColumn';
import type { ExportState } from './state';
import { MET, rekey, sameRowText, storedValues } from './state';

const same = (a: unknown, b: unknown) => a === b || canonical(a) === canonical(b);

/** One page of an export: CSV read a row at a time (cells in the header row's order; `false` stops), JSON as rows. */
export type Page = { header: string[]; each(visit: (cells: string[]) => boolean | void): void } | { header?: undefined; rows: Row[] };

/**
 * One reading of an export against the state before it. Feed every page in order with `addPage`
 * (or rows with `add`); only when the export is complete, `finish` gives the changes (only the
 * kinds in `emit`) and the next state. Memory: the earlier state (the stored text and a Map entry
 * per row, which it uses up), the next state's text, the keys of rows new since then and the
 * changes kept; never the export's rows.
 */
export class ExportReading {
	private readonly next: ExportState;
	/** The changes to emit, held by where their row's text is (a row object is built only in `finish`). */
	private readonly kept = new HeldChanges();
	/** Characters of the next state's row texts so far (`stateChars`). */
	private textChars = 0;
	private readonly keeps: boolean;
	private columnsOfKey: string[] | undefined;
	/** The one key column's index, or -1 (several columns, or a fingerprint). */
	private keyAt = -1;
	private header: string[] | undefined;
	private rowCount = 0;
	private earlier: ExportState | undefined;
	private emit: ReadonlySet<ChangeKind>;
	/** The earlier state's columns by name, and whether they are this reading's, in the same order. */
	private earlierAt = new Map<string, number>();
	private sameColumns = false;
	/** Keys read in this reading that the earlier state does not have (earlier ones are marked MET in its Map). */
	private readonly fresh = new Set<string>();
	/** The next state's row texts: this page's, then each page's joined. */
	private pageTexts: string[] = [];
	private readonly texts: string[] = [];
	/**
	 * Every row so far is the earlier state's next one, unchanged: the next state's text is then
	 * the earlier text up to `inOrderEnd` (where the next row would start), kept without copying.
	 */
	private inOrder: boolean;
	private inOrderEnd = 1;

	constructor(
		name: ExportName,
		window: string | undefined,
		/** The state after the last complete reading (used up by this reading); undefined on the first poll (the baseline). */
		earlier: ExportState | undefined,
		/** The kinds of change to keep for emitting; the state advances whatever they are. */
		emit: ReadonlySet<ChangeKind>,
		/** The Key Column setting; '' detects the key. */
		private readonly keyColumn = '',
		/** What a baseline emits, should the earlier state be keyed by columns this reading does not have. */
		private readonly baseline: ReadonlySet<ChangeKind> = new Set(),
	) {
		this.earlier = earlier;
		this.emit = emit;
		this.keeps = keepsRows(name);
		this.next = { export: name, window, columns: [], text: '[]', rows: new Map(), seen: new Set(), key: undefined, keyColumn: keyColumn.trim() };
		this.inOrder = earlier !== undefined;
	}

	/**
	 * The rows of one page. `header` is the CSV header row (the same on every page); JSON rows
	 * (decisions, statements) have none and are keyed row by row.
	 */
	add(rows: readonly Row[], header?: readonly string[]): void {
		if (this.keeps && this.header === undefined && rows.length > 0) this.begin(header ?? Object.keys(rows[0]), rows);
		for (const row of rows) {
			this.rowCount++;
			if (this.keeps) this.follow(this.header!.map((c) => row[c]), row);
			else this.collect(row);
		}
		this.endPage();
	}

	/**
	 * One page as read off the wire, a row at a time (`onRow` after each, e.g. to bound the poll; false
	 * stops the page there): a row object is built only for a row that is emitted. Returns the rows taken.
	 */
	addPage(page: Page, onRow?: () => boolean | void): number {
		if (page.header === undefined) {
			this.add(page.rows);
			return page.rows.length;
		}
		const header = page.header;
		let rows = 0;
		page.each((cells) => {
			if (!this.keeps) {
				this.rowCount++;
				this.collect(rowOf(header, cells));
			} else {
				// The key may be told by the first page's values: read again row by row, none held.
				if (this.header === undefined) this.begin(header, (visit) => page.each((again) => visit(rowOf(header, again))));
				this.rowCount++;
				this.follow(cells, undefined);
			}
			rows++;
			return onRow?.();
		});
		this.endPage();
		return rows;
	}

	/** The first page with rows: its header row, and the key read off it (by shape from its rows, if need be). */
	private begin(header: readonly string[], rows: RowSource): void {
		this.header = [...header];
		this.next.columns = this.header;
		const earlierKey = this.earlier?.key;
		// Detected once, the key stays while its columns do: a first page whose values change cannot move it.
		const kept = this.next.keyColumn === '' && Array.isArray(earlierKey) && earlierKey.every((column) => this.header!.includes(column));
		this.columnsOfKey = kept ? [...earlierKey] : keyColumns(this.next.export, this.header, rows, this.keyColumn);
		this.keyAt = this.columnsOfKey?.length === 1 ? this.header.indexOf(this.columnsOfKey[0]) : -1;
		this.next.key = this.columnsOfKey ?? null;
		if (this.earlier !== undefined && earlierKey !== undefined && !sameKey(earlierKey, this.next.key)) {
			// Keyed by other columns (Key Column set or changed): the earlier rows keyed again, else a new baseline.
			const rekeyed = rekey(this.earlier, this.columnsOfKey);
			if (rekeyed === undefined) {
				this.emit = this.baseline;
				this.inOrder = false;
			}
			this.earlier = rekeyed;
		}
		const earlierColumns = this.earlier?.columns ?? [];
		this.earlierAt = new Map(earlierColumns.map((c, i) => [c, i]));
		this.sameColumns = earlierColumns.length === this.header.length && earlierColumns.every((c, i) => c === this.header![i]);
	}

	private endPage(): void {
		if (this.pageTexts.length === 0) return;
		// Each held row's text is where the page's joined text has it: held once, not twice.
		this.kept.placePage(this.pageTexts, this.texts.length);
		this.texts.push(this.pageTexts.join(','));
		this.pageTexts = [];
	}

	/** The row's value list as the next state's text, and a change held by it when `kind` is given (`key` its own copy). */
	private keepText(values: readonly unknown[], key: string, kind?: ChangeKind, row?: Row, previous?: Row): void {
		const text = JSON.stringify(values);
		this.textChars += text.length + 1;
		if (kind !== undefined) {
			this.kept.add(kind, key, this.pageTexts.length, { row, previous });
		}
		this.pageTexts.push(text);
	}

	/**
	 * Characters of the next state's rows so far: at least its bytes in UTF-8 less the header row's (a
	 * bound on the state can be checked page by page, before the export is read whole).
	 */
	stateChars(): number {
		if (!this.keeps) return this.next.seen.size * SEEN_CHARS;
		return this.inOrder ? this.inOrderEnd : this.textChars;
	}

	/** One row's values in the header row's order; `given` is the row object when the caller has one. */
	private follow(values: readonly unknown[], given: Row | undefined): void {
		const header = this.header!;
		let row = given;
		const rowNow = () => (row ??= rowOf(header, values));
		const single = this.keyAt < 0 ? undefined : values[this.keyAt];
		// One key column (portfolio, invitations): its text, as keyOf reads it, without building the row.
		const key = typeof single === 'string' && single.trim() !== '' ? single.trim() : keyOf(rowNow(), this.columnsOfKey);
		const before = this.earlier?.rows.get(key);
		if (before === MET || (before === undefined && this.fresh.has(key))) {
			// Identical rows under a fingerprint key are one row; a key column listed twice is not.
			if (this.columnsOfKey === undefined) return;
			throw new ChangesError(
				`The ${this.next.export} export lists ${this.columnsOfKey.join(' and ')} ${JSON.stringify(key)} twice (row ${this.rowCount}): it probably changed while it was read page by page, so this reading is not used`,
			);
		}
		if (before === undefined) {
			this.leaveOrder();
			// A key cut from the page's text would keep the whole page alive: a copy of its own.
			const own = ownCopy(key);
			this.fresh.add(own);
			this.keepText(values, own, this.emit.has('added') ? 'added' : undefined, given);
			return;
		}
		const earlier = this.earlier!;
		earlier.rows.set(key, MET);
		// The common case, the same columns and values: the same text, compared where it is stored.
		const end = this.sameColumns ? sameRowText(earlier.text, before, values) : -1;
		if (end >= 0) {
			if (this.inOrder && before === this.inOrderEnd) {
				this.inOrderEnd = end + 1;
				return;
			}
			this.leaveOrder();
			this.pageTexts.push(earlier.text.slice(before, end));
			this.textChars += end - before + 1;
			return;
		}
		this.leaveOrder();
		const previous = this.emit.has('changed') ? this.previousOf(rowNow(), storedValues(earlier.text, before)) : undefined;
		if (previous === undefined) this.keepText(values, key);
		else this.keepText(values, ownCopy(key), 'changed', given, previous);
	}

	/** A row that is not the earlier state's next one unchanged: the rows so far become text of their own. */
	private leaveOrder(): void {
		if (!this.inOrder) return;
		this.inOrder = false;
		if (this.inOrderEnd > 1) this.texts.push(this.earlier!.text.slice(1, this.inOrderEnd - 1));
		this.textChars += this.inOrderEnd;
	}

	/** The fields whose values differ from the earlier row (columns added or gone included), or undefined. */
	private previousOf(row: Row, before: unknown[]): Row | undefined {
		const earlierColumns = this.earlier!.columns;
		let previous: Row | undefined;
		const note = (column: string, value: unknown) => {
			previous ??= {};
			// A Service column named like an Object.prototype member must stay a plain field.
			Object.defineProperty(previous, column, { value, enumerable: true, writable: true, configurable: true });
		};
		for (const column of this.header!) {
			const index = this.earlierAt.get(column);
			const was = index === undefined ? null : before[index];
			if (!same(was ?? null, row[column] ?? null)) note(column, was ?? null);
		}
		const now = new Set(this.header);
		earlierColumns.forEach((column, i) => {
			if (!now.has(column)) note(column, before[i]);
		});
		return previous;
	}

	private collect(row: Row): void {
		const columns = keyColumns(this.next.export, Object.keys(row), [], this.keyColumn);
		const key = keyOf(row, columns);
		const seen = fingerprint(key);
		if (this.next.seen.has(seen)) return;
		this.next.seen.add(seen);
		const isNew = this.earlier === undefined || !this.earlier.seen.has(seen);
		// Held as JSON text (a parsed row's objects cost several times its text), parsed again in `finish`.
		if (isNew && this.emit.has('added')) this.kept.add('added', ownCopy(key), -1, { json: JSON.stringify(row) });
	}

	/** The export was read whole: the changes in order (added and changed as read, then removed) and the next state. */
	finish(): { changes: Change[]; state: ExportState } {
		this.endPage();
		const changes = this.kept.changes(this.texts, this.header);
		if (this.keeps && this.earlier !== undefined && this.emit.has('removed')) {
			for (const [key, start] of this.earlier.rows) {
				if (start !== MET) changes.push({ change: 'removed', key, row: rowOf(this.earlier.columns, storedValues(this.earlier.text, start)) });
			}
		}
		if (!this.keeps) return { changes, state: this.next };
		// Every earlier row again, unchanged and in order (the common poll): the earlier text as it is.
		if (this.inOrder && this.inOrderEnd === this.earlier!.text.length) this.next.text = this.earlier!.text;
		else {
			this.leaveOrder();
			this.next.text = `[${this.texts.join(',')}]`;
		}
		return { changes, state: this.next };
	}
}

/** Characters a new-only export's state keeps per row: 16 of fingerprint, 2 quotes, a comma. */
const SEEN_CHARS = 19;

/** A copy of `text` that does not point into a larger string (V8 slices share their parent's characters). */
function ownCopy(text: string): string {
	return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

const sameKey = (a: readonly string[] | null, b: readonly string[] | null) =>
	a === null || b === null ? a === b : a.length === b.length && a.every((column, i) => column === b[i]);
