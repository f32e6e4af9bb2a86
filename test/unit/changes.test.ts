import { ExportReading } from '../../nodes/ServiceChangesTrigger/diff';
import type { ChangeKind, Row } from '../../nodes/ServiceChangesTrigger/keys';
import { ChangesError, fingerprint, keyColumns } from '../../nodes/ServiceChangesTrigger/keys';
import { restoreState, storeState } from '../../nodes/ServiceChangesTrigger/state';

const ALL = new Set<ChangeKind>(['added', 'changed', 'removed']);

/** Two complete readings of an export, the second against the stored (JSON) state of the first, each with its Key Column. */
function twoPolls(name: Parameters<typeof keyColumns>[0], first: Row[], second: Row[], window?: string, keyColumn: [string, string] = ['', '']) {
	const baseline = new ExportReading(name, window, undefined, new Set(), keyColumn[0]);
	baseline.add(first, first[0] ? Object.keys(first[0]) : []);
	const stored = JSON.parse(JSON.stringify(storeState(baseline.finish().state))) as unknown;
	const next = new ExportReading(name, window, restoreState(stored, name, window, keyColumn[1]), ALL, keyColumn[1]);
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
});

describe('changes: the key column, detected or set (Key Column)', () => {
	const acme = { company_ke: 'KE-1', company_name: 'Acme Ltd', tier: 'tier-1' };
	const beta = { company_ke: 'KE-2', company_name: 'Beta plc', tier: 'tier-1' };

	it('a KE column named otherwise is found by name, the changes keyed by the KE', () => {
		expect(keyColumns('portfolio', ['Company Name', 'KE_Number'])).toEqual(['KE_Number']);
		expect(twoPolls('portfolio', [acme, beta], [{ ...acme, tier: 'tier-2' }])).toEqual([
			{ change: 'changed', key: 'KE-1', row: { ...acme, tier: 'tier-2' }, previous: { tier: 'tier-1' } },
			{ change: 'removed', key: 'KE-2', row: beta },
		]);
	});

	it('else by the first page\'s values, when exactly one column can be the KE; several are refused naming Key Column', () => {
		const code = (row: Row) => ({ code: row.company_ke, company_name: row.company_name, tier: row.tier });
		expect(keyColumns('portfolio', ['code', 'company_name', 'tier'], [code(acme), code(beta)])).toEqual(['code']);
		expect(twoPolls('portfolio', [code(acme), code(beta)], [code(acme)])).toEqual([{ change: 'removed', key: 'KE-2', row: code(beta) }]);
		expect(() => keyColumns('portfolio', ['code', 'company_name', 'tier'], [code(acme)])).toThrow(
			new ChangesError(
				'The portfolio has no column named ke, and 2 columns whose values on the first page could each be the KE ("code", "tier"), so which one holds it cannot be told. Set Key Column to the column that holds the KE',
			),
		);
	});

	it('Key Column names the column, as typed or differing only in case and separators; a missing one is refused listing the columns', () => {
		expect(keyColumns('portfolio', ['ke', 'company_ke'], [], 'company_ke')).toEqual(['company_ke']);
		expect(keyColumns('portfolio', ['Company KE', 'tier'], [], 'company_ke')).toEqual(['Company KE']);
		expect(keyColumns('invitations', ['ref', 'status'], [], 'ref')).toEqual(['ref']);
		expect(() => keyColumns('portfolio', ['ke', 'tier'], [], 'kee')).toThrow(
			new ChangesError('Key Column is "kee", but the portfolio export has no such column: its columns are "ke", "tier". Set Key Column to one of them, or leave it empty to detect it'),
		);
		expect(() => keyColumns('invitations', ['ref', 'status'])).toThrow(/its columns are "ref", "status"\. Set Key Column/);
		// Decisions by a field the Service names: a row without it has no key.
		expect(twoPolls('decisions', [{ ref: 'D1' }], [{ ref: 'D1' }, { ref: 'D2' }], undefined, ['ref', 'ref'])).toEqual([{ change: 'added', key: 'D2', row: { ref: 'D2' } }]);
		expect(() => twoPolls('decisions', [{ ref: 'D1' }], [{ id: 'D2' }], undefined, ['ref', 'ref'])).toThrow(/Key Column is "ref", but the decisions export has no such column/);
	});

	it('Key Column set or changed between polls keys the earlier rows again: only real changes are emitted', () => {
		const both = (row: Row, kes: string) => ({ ...row, ke: kes });
		// Detected `ke`, then Key Column company_ke: the same rows, nothing changed.
		expect(twoPolls('portfolio', [both(acme, 'X-1'), both(beta, 'X-2')], [both(acme, 'X-1'), both(beta, 'X-2')], undefined, ['', 'company_ke'])).toEqual([]);
		expect(twoPolls('portfolio', [both(acme, 'X-1'), both(beta, 'X-2')], [both({ ...acme, tier: 'tier-3' }, 'X-1')], undefined, ['', 'company_ke'])).toEqual([
			{ change: 'changed', key: 'KE-1', row: both({ ...acme, tier: 'tier-3' }, 'X-1'), previous: { tier: 'tier-1' } },
			{ change: 'removed', key: 'KE-2', row: both(beta, 'X-2') },
		]);
	});

	it('a key column the earlier state did not have cannot be compared: a new baseline, emitting nothing (or the rows when asked)', () => {
		const first = new ExportReading('portfolio', undefined, undefined, new Set());
		first.add([acme], Object.keys(acme));
		const stored = JSON.parse(JSON.stringify(storeState(first.finish().state))) as unknown;
		expect(stored).toMatchObject({ key: ['company_ke'] });
		const renamed = { ke_id: 'KE-1', company_name: 'Acme Ltd', tier: 'tier-9' };
		const quiet = new ExportReading('portfolio', undefined, restoreState(stored, 'portfolio', undefined), ALL, '', new Set());
		quiet.add([renamed], Object.keys(renamed));
		expect(quiet.finish()).toMatchObject({ changes: [], state: { key: ['ke_id'] } });
		const asked = new ExportReading('portfolio', undefined, restoreState(stored, 'portfolio', undefined), ALL, '', new Set(['added']));
		asked.add([renamed], Object.keys(renamed));
		expect(asked.finish().changes).toEqual([{ change: 'added', key: 'KE-1', row: renamed }]);
	});

	it('a detected key stays while its column does: a later first page that leaves the shape open does not move it', () => {
		const code = (ke: string, tier: string) => ({ code: ke, company_name: `Company ${ke}`, tier });
		// Baseline: only `code` is distinct identifiers; then one company, whose every column could be the KE.
		expect(twoPolls('portfolio', [code('KE-1', 'tier-1'), code('KE-2', 'tier-1')], [code('KE-2', 'tier-2')])).toEqual([
			{ change: 'changed', key: 'KE-2', row: code('KE-2', 'tier-2'), previous: { tier: 'tier-1' } },
			{ change: 'removed', key: 'KE-1', row: code('KE-1', 'tier-1') },
		]);
	});

	it('a state stored without its key (before it was kept) is keyed by name', () => {
		const state = restoreState({ v: 1, export: 'portfolio', columns: ['ke', 'tier'], rows: '[["KE-1","1"]]' }, 'portfolio', undefined);
		expect(state?.key).toEqual(['ke']);
		expect([...state!.rows.keys()]).toEqual(['KE-1']);
	});

	it('decisions and statements keep the Key Column they were fingerprinted with: another is a new baseline', () => {
		const reading = new ExportReading('decisions', undefined, undefined, new Set(), 'ref');
		reading.add([{ ref: 'D1' }]);
		const stored = storeState(reading.finish().state);
		expect(stored).toMatchObject({ keyColumn: 'ref' });
		expect(restoreState(stored, 'decisions', undefined, 'ref')?.seen.size).toBe(1);
		expect(restoreState(stored, 'decisions', undefined, '')).toBeUndefined();
	});

	it('a column named like an Object.prototype member stays a plain field of row and previous', () => {
		const changes = twoPolls('portfolio', [{ ke: 'KE-1', __proto__x: 'a', constructor: 'a' } as Row], [{ ke: 'KE-1', __proto__x: 'a', constructor: 'b' } as Row]);
		expect(changes).toHaveLength(1);
		expect(Object.getPrototypeOf(changes[0].previous)).toBe(Object.prototype);
		expect(Object.entries(changes[0].previous!)).toEqual([['constructor', 'a']]);
	});

	it('rows read in another order, or with rows gone or added between them, keep the whole state: the next poll sees exactly the next change', () => {
		const row = (ke: string, tier = 't1') => ({ ke, tier });
		const poll = (stored: unknown, rows: Row[]) => {
			const reading = new ExportReading('portfolio', undefined, restoreState(stored, 'portfolio', undefined), ALL);
			reading.add(rows, ['ke', 'tier']);
			const { changes, state } = reading.finish();
			return { changes, stored: JSON.parse(JSON.stringify(storeState(state))) as unknown };
		};
		const first = new ExportReading('portfolio', undefined, undefined, new Set());
		first.add([row('A'), row('B'), row('C'), row('D')], ['ke', 'tier']);
		let stored = JSON.parse(JSON.stringify(storeState(first.finish().state))) as unknown;
		const sequences: Array<[Row[], string[]]> = [
			[[row('B'), row('A'), row('C'), row('D')], []],
			[[row('B'), row('A'), row('C')], ['removed D']],
			[[row('B'), row('E'), row('A'), row('C')], ['added E']],
			[[row('B'), row('E'), row('A'), row('C')], []],
			[[row('B'), row('A'), row('C')], ['removed E']],
			[[row('B'), row('A', 't2'), row('C')], ['changed A']],
			[[row('C'), row('A', 't2'), row('B')], []],
		];
		for (const [rows, expected] of sequences) {
			const next = poll(stored, rows);
			expect(next.changes.map((c) => `${c.change} ${c.key}`)).toEqual(expected);
			expect(restoreState(next.stored, 'portfolio', undefined)!.rows.size).toBe(rows.length);
			stored = next.stored;
		}
		expect((stored as { rows: string }).rows).toBe('[["C","t1"],["A","t2"],["B","t1"]]');
	});

	it('a KE with spaces around it is the same company after the state is read back: nothing emitted', () => {
		const row = { ke: ' KE-1 ', tier: 'tier-1' };
		expect(twoPolls('portfolio', [row, { ke: 'KE-2', tier: 'tier-2' }], [row, { ke: 'KE-2', tier: 'tier-3' }])).toEqual([
			{ change: 'changed', key: 'KE-2', row: { ke: 'KE-2', tier: 'tier-3' }, previous: { tier: 'tier-2' } },
		]);
	});

	it('a stored state not written as the node writes it (spaces, numbers, escapes) is read as JSON; one that is not JSON is no state', () => {
		const read = restoreState({ v: 1, export: 'portfolio', columns: ['ke', 'n'], rows: ' [ ["KE-1", 2], ["KE-\\u0032","x"] ] ' }, 'portfolio', undefined);
		expect([...read!.rows.keys()]).toEqual(['KE-1', 'KE-2']);
		expect(storeState(read!).rows).toBe('[["KE-1",2],["KE-2","x"]]');
		const escaped = restoreState({ v: 1, export: 'portfolio', columns: ['ke', 'n'], rows: '[["KE-\\u0031","a"],["KE-2",3]]' }, 'portfolio', undefined);
		expect([...escaped!.rows.keys()]).toEqual(['KE-1', 'KE-2']);
		expect(restoreState({ v: 1, export: 'portfolio', columns: ['ke', 'n'], rows: '[["KE-1",x]]' }, 'portfolio', undefined)).toBeUndefined();
		expect(restoreState({ v: 1, export: 'portfolio', columns: ['ke', 'n'], rows: '[["KE-1","a"],["KE-2"]]' }, 'portfolio', undefined)).toBeUndefined();
		expect(restoreState({ v: 1, export: 'portfolio', columns: ['ke', 'n'], rows: '[["KE-1","a"]["KE-2","b"]]' }, 'portfolio', undefined)).toBeUndefined();
		expect(restoreState({ v: 1, export: 'portfolio', columns: ['ke', 'n'], rows: '[]' }, 'portfolio', undefined)?.rows.size).toBe(0);
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
