import type { ChangeKind, Row } from '../../nodes/ServiceChangesTrigger/changes';
import { ChangesError, ExportReading, fingerprint, keyColumns, restoreState, storeState } from '../../nodes/ServiceChangesTrigger/changes';

const ALL = new Set<ChangeKind>(['added', 'changed', 'removed']);

/** Two complete readings of an export, the second against the stored (JSON) state of the first. */
function twoPolls(name: Parameters<typeof keyColumns>[0], first: Row[], second: Row[], window?: string) {
	const baseline = new ExportReading(name, window, undefined, new Set());
	baseline.add(first, first[0] ? Object.keys(first[0]) : []);
	const stored = JSON.parse(JSON.stringify(storeState(baseline.finish().state))) as unknown;
	const next = new ExportReading(name, window, restoreState(stored, name, window), ALL);
	next.add(second, second[0] ? Object.keys(second[0]) : []);
	return next.finish().changes;
}

describe('changes: keys per export', () => {
	it('expiries are keyed by kind and reference: a later end date is a change, a new reference an addition', () => {
		const a = { kind: 'share', reference: 'SHARE-KE-1', ke: 'KE-1', ends_on: '2026-12-01', window_days: '30' };
		const b = { kind: 'invitation', reference: 'INV-1', ke: '', ends_on: '2026-12-05', window_days: '30' };
		expect(twoPolls('expiries', [a], [{ ...a, ends_on: '2026-12-20' }, b], '30')).toEqual([
			{ change: 'changed', key: '["share","SHARE-KE-1"]', row: { ...a, ends_on: '2026-12-20' }, previous: { ends_on: '2026-12-01' } },
			{ change: 'added', key: '["invitation","INV-1"]', row: b },
		]);
	});

	it('expiries without a reference column are keyed by a fingerprint of the row: added and removed only', () => {
		const a = { kind: 'share', ends_on: '2026-12-01' };
		const b = { kind: 'share', ends_on: '2026-12-02' };
		expect(twoPolls('expiries', [a], [b], '30')).toEqual([
			{ change: 'added', key: fingerprint(b), row: b },
			{ change: 'removed', key: fingerprint(a), row: a },
		]);
	});

	it('decisions report new ones only, by id, else by fingerprint', () => {
		const d1 = { id: 'DEC-1', ke: 'KE-1', decision: 'approve' };
		const d2 = { id: 'DEC-2', ke: 'KE-2', decision: 'reject' };
		const noId = { ke: 'KE-3', decision: 'hold' };
		// DEC-1 changed and gone is not reported: decisions are new rows only.
		expect(twoPolls('decisions', [d1], [d2, noId])).toEqual([
			{ change: 'added', key: 'DEC-2', row: d2 },
			{ change: 'added', key: fingerprint(noId), row: noId },
		]);
	});

	it('the portfolio without a ke column, or with a blank KE, is refused rather than guessed', () => {
		expect(() => keyColumns('portfolio', ['company', 'tier'])).toThrow(ChangesError);
		expect(() => twoPolls('portfolio', [{ ke: 'KE-1', tier: '1' }], [{ ke: ' ', tier: '1' }])).toThrow(/A row has no ke/);
	});

	it('a column named like an Object.prototype member stays a plain field of row and previous', () => {
		const changes = twoPolls('portfolio', [{ ke: 'KE-1', __proto__x: 'a', constructor: 'a' } as Row], [{ ke: 'KE-1', __proto__x: 'a', constructor: 'b' } as Row]);
		expect(changes).toHaveLength(1);
		expect(Object.getPrototypeOf(changes[0].previous)).toBe(Object.prototype);
		expect(Object.entries(changes[0].previous!)).toEqual([['constructor', 'a']]);
	});

	it('a state kept for another export or window is not used: the next poll is a new baseline', () => {
		const reading = new ExportReading('expiries', '30', undefined, new Set());
		reading.add([{ kind: 'share', reference: 'R', ends_on: 'x' }], ['kind', 'reference', 'ends_on']);
		const stored = storeState(reading.finish().state);
		expect(restoreState(stored, 'expiries', '30')?.rows.size).toBe(1);
		expect(restoreState(stored, 'expiries', '60')).toBeUndefined();
		expect(restoreState(stored, 'portfolio', undefined)).toBeUndefined();
		expect(restoreState({ v: 1, export: 'portfolio', columns: ['ke'], rows: '[["KE-1","extra"]]' }, 'portfolio', undefined)).toBeUndefined();
		expect(restoreState({ v: 1, export: 'portfolio', columns: ['ke'], rows: '[["KE-1"' }, 'portfolio', undefined)).toBeUndefined();
	});
});
