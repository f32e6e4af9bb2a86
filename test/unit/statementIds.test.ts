import fc from 'fast-check';

import { idShaped, matchStatement, runIdentifiers, statementsHolding } from '../../nodes/ServiceReader/actions/policyRun/statementWait';
import { runs } from '../property/fc';

/**
 * A policy run's id and its statement's, read by name first and by shape where the Service names them
 * otherwise (docs/service-choices.md: "Policy runs"): the statement holding the run's id-shaped value is
 * the run's; the KE the node sent is never taken for the id; two statements found so are named.
 */

test('ids by name first; where none is named, values shaped like an id, the KE sent left out', () => {
	expect(runIdentifiers({ id: 'run-1', statement_id: 'st-1' })).toEqual({ runId: 'run-1', statementId: 'st-1' });
	expect(runIdentifiers({ ref: 'R-77', ke: 'KE-1001', status: 'running', created_at: '2026-11-29T01:00:00Z', url: 'https://x.example/runs/R-77' }, ['KE-1001'])).toEqual({
		runId: undefined,
		statementId: undefined,
		idValues: [{ path: 'ref', value: 'R-77' }],
	});
	expect(runIdentifiers({ status: 'running' })).toEqual({ runId: undefined, statementId: undefined });
});

test('what is shaped like an id, and what is not', () => {
	for (const id of ['R-77', '123e4567-e89b-12d3-a456-426614174000', 'pr_01HXYZ9', 18446744073709551084, 1001]) expect([id, idShaped(id)]).toEqual([id, true]);
	for (const other of ['running', '2026-11-29', '2026-11-29T01:02:03Z', '01:02', 'https://x.example/1', 'two words 1', 7, true, null, '']) expect([other, idShaped(other)]).toEqual([other, false]);
});

test('property: a statement holding the run id under any name at any depth is found; two such are both named', () => {
	const names = fc.constantFrom('ref', 'handle', 'run_ref', 'token', 'key');
	fc.assert(
		fc.property(names, names, fc.array(fc.constantFrom('run', 'meta', 'source'), { maxLength: 2 }), fc.integer({ min: 1, max: 9999 }), (runName, rowName, wrappers, n) => {
			const id = `R-${n}`;
			let run: Record<string, unknown> = { [runName]: id };
			for (const wrapper of wrappers) run = { [wrapper]: run };
			const ids = runIdentifiers({ ...run, ke: 'KE-1001', status: 'running' }, ['KE-1001']);
			const mine = { sid: 'S-1', ke: 'KE-1001', source: { [rowName]: id } };
			const other = { sid: 'S-2', ke: 'KE-1001', source: { [rowName]: `R-${n + 1}` } };
			expect(matchStatement([other, mine], ids)).toBeUndefined();
			expect(statementsHolding([other, mine], ids)).toEqual([{ statement: mine, paths: [[...(wrappers as string[])].reverse().concat(runName).join('.')] }]);
			// A second statement holding the same value: both found, for the caller to name.
			expect(statementsHolding([mine, { ...mine, sid: 'S-3' }], ids)).toHaveLength(2);
		}),
		runs(100),
	);
});
