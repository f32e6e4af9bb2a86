/**
 * Policy Run > Create's wait for the run's statement at the statements export (spec section 4: "Its
 * statement is listed at the statements export"). Matching is pure; the wait reads the export's pages.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { findId, findRecordWith, isRecord, type Fields } from '../../../shared/answerShape';
import { pageRows } from '../../../shared/exportRows';
import { cursorPages } from '../../../shared/paging';
import { exportPaging, pageFetcher } from '../../../shared/transport/pageFetch';
import { getServiceSettings } from '../../../shared/transport/serviceRequest';

/** What the node says it did: `statement_wait` of its output. */
/** `no_identifier`: the run's answer names nothing to match its statement by; the run is passed on, never failed. */
export type StatementWait = 'found' | 'did_not_wait' | 'gave_up' | 'no_identifier';

const RUN_ID = ['run_id', 'policy_run_id', 'runId', 'policyRunId', 'id'];
const STATEMENT_ID = ['statement_id', 'statementId'];
const ROW_STATEMENT_ID = ['id', 'statement_id', 'statementId'];
const ROW_RUN_ID = ['run_id', 'policy_run_id', 'runId', 'policyRunId', 'run'];

export interface RunIdentifiers {
	runId?: string;
	statementId?: string;
}

/** The run's identifier and its statement's, when named: by name, the outermost first. */
export function runIdentifiers(run: unknown): RunIdentifiers {
	const statementId = findRecordWith(run, STATEMENT_ID);
	const runRecord = findRecordWith(run, RUN_ID);
	return {
		runId: runRecord ? findId(runRecord, RUN_ID) : undefined,
		statementId: statementId ? findId(statementId, STATEMENT_ID) : undefined,
	};
}

/** Whether `value` is `id` at any depth (a run named as `{"run": {"id": ...}}`, or under a name not known). */
function holds(value: unknown, id: string, depth = 0): boolean {
	if ((typeof value === 'string' || typeof value === 'number') && String(value).trim() === id) return true;
	if (depth >= 3 || value === null || typeof value !== 'object') return false;
	return Object.values(value as Fields).some((inner) => holds(inner, id, depth + 1));
}

/** The run's statement among `rows`: by its statement id or a run field by name first, then by the run id anywhere in a row. */
export function matchStatement(rows: readonly unknown[], ids: RunIdentifiers): Fields | undefined {
	const records = rows.filter(isRecord);
	const byName = records.find(
		(row) =>
			(ids.statementId !== undefined && findId(row, ROW_STATEMENT_ID) === ids.statementId) ||
			(ids.runId !== undefined && ROW_RUN_ID.some((name) => holds(row[name], ids.runId!, 2))),
	);
	if (byName || ids.runId === undefined) return byName;
	return records.find((row) => holds(row, ids.runId!));
}

/**
 * Reads the statements export (every page, up to Max Pages) until the run's statement is listed, with
 * 1, 2, 4... s (at most 10 s) between readings, for at most `boundMs`, pages included (the page on its way
 * at `boundMs` ends the wait).
 */
export async function waitForStatement(
	this: IExecuteFunctions,
	itemIndex: number,
	run: unknown,
	boundMs: number,
): Promise<{ wait: StatementWait; statement?: Fields; readings: number }> {
	const ids = runIdentifiers(run);
	// The run was made: passed on, saying the wait could not match it (statement_wait), never reported failed.
	if (ids.runId === undefined && ids.statementId === undefined) return { wait: 'no_identifier', readings: 0 };
	const settings = await getServiceSettings.call(this, itemIndex);
	const startedAt = Date.now();
	for (let readings = 1; ; readings++) {
		const fetch = pageFetcher.call(this, 'statements', { settings, itemIndex }, 'json');
		for await (const page of cursorPages(fetch, exportPaging(settings, {}))) {
			const statement = matchStatement(pageRows(page.content, undefined, settings), ids);
			if (statement) return { wait: 'found', statement, readings };
			// The wait bounds every page too: an export whose cursors never end is not read up to Max Pages.
			if (Date.now() - startedAt > boundMs) return { wait: 'gave_up', readings };
		}
		const pause = Math.min(1000 * 2 ** (readings - 1), 10_000);
		if (Date.now() - startedAt + pause > boundMs) return { wait: 'gave_up', readings };
		await sleep(pause);
	}
}
