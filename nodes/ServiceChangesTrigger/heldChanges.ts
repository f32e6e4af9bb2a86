/**
 * The changes one reading will emit, held until the export was read whole (diff.ts): per change its
 * kind, its key and where its row's text is in the next state's texts, in parallel lists (about 40
 * bytes a change, where an object per change cost about 100 and a row object several times its text).
 * Row objects are built only in `changes`. Pure.
 */
import type { Change, ChangeKind, Row } from './keys';
import { rowOf } from './keys';

/** What few changes carry besides: the row object the caller gave, a JSON row's text, a changed row's `previous`. */
export interface HeldExtra {
	row?: Row;
	json?: string;
	previous?: Row;
}

export class HeldChanges {
	private readonly kinds: ChangeKind[] = [];
	private readonly keys: string[] = [];
	/** Index of the text holding the row (of the page's texts until `placePage`), -1 for none; then its start and end. */
	private readonly at: number[] = [];
	private readonly start: number[] = [];
	private readonly end: number[] = [];
	private readonly extras = new Map<number, HeldExtra>();
	/** The first change of the page being read. */
	private pageFrom = 0;

	get length(): number {
		return this.kinds.length;
	}

	/** A change whose row is the page's text `at` (-1: none, the row or its JSON text in `extra`); `key` its own copy. */
	add(kind: ChangeKind, key: string, at: number, extra?: HeldExtra): void {
		if (extra !== undefined && (extra.row !== undefined || extra.json !== undefined || extra.previous !== undefined)) this.extras.set(this.kinds.length, extra);
		this.kinds.push(kind);
		this.keys.push(key);
		this.at.push(at);
		this.start.push(0);
		this.end.push(0);
	}

	/** The page's texts were joined (with commas) into the texts at `index`: each of its changes' place in that text. */
	placePage(pageTexts: readonly string[], index: number): void {
		if (this.pageFrom < this.kinds.length) {
			const starts: number[] = [];
			let offset = 0;
			for (const text of pageTexts) {
				starts.push(offset);
				offset += text.length + 1;
			}
			for (let i = this.pageFrom; i < this.kinds.length; i++) {
				const at = this.at[i];
				if (at < 0) continue;
				this.start[i] = starts[at];
				this.end[i] = starts[at] + pageTexts[at].length;
				this.at[i] = index;
			}
		}
		this.pageFrom = this.kinds.length;
	}

	/** Every change in order, as emitted: rows read back from their text (`header` the columns), or as given. */
	changes(texts: readonly string[], header: readonly string[] | undefined): Change[] {
		const out: Change[] = [];
		for (let i = 0; i < this.kinds.length; i++) {
			const extra = this.extras.get(i);
			let row = extra?.row;
			if (row === undefined && extra?.json !== undefined) row = asRow(JSON.parse(extra.json));
			row ??= rowOf(header ?? [], JSON.parse(texts[this.at[i]].slice(this.start[i], this.end[i])) as unknown[]);
			const change: Change = { change: this.kinds[i], key: this.keys[i], row };
			if (extra?.previous !== undefined) change.previous = extra.previous;
			out.push(change);
		}
		return out;
	}
}

/** A parsed JSON value as a row (a list or a value alone in `value`), as readPages reads JSON rows. */
function asRow(value: unknown): Row {
	return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Row) : { value };
}
