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
/**
 * `no_identifier`: the run's answer names nothing to match its statement by; `ambiguous`: it names no id
 * and its id-shaped values lead to two statements or more. Either way the run is passed on, never failed.
 */
export type StatementWait = 'found' | 'did_not_wait' | 'gave_up' | 'no_identifier' | 'ambiguous';

const RUN_ID = ['run_id', 'policy_run_id', 'runId', 'policyRunId', 'id'];
const STATEMENT_ID = ['statement_id', 'statementId'];
const ROW_STATEMENT_ID = ['id', 'statement_id', 'statementId'];
const ROW_RUN_ID = ['run_id', 'policy_run_id', 'runId', 'policyRunId', 'run'];

export interface RunIdentifiers {
	runId?: string;
	statementId?: string;
	/** Where no id is named: the values shaped like an id, and where they are (a statement holding one is the run's). */
	idValues?: Array<{ path: string; value: string }>;
}

/**
 * The run's identifier and its statement's: by name, the outermost first; where none is named, every
 * value shaped like an id (idShaped) that is not one the node sent (the KE), at any depth.
 */
export function runIdentifiers(run: unknown, sent: readonly unknown[] = []): RunIdentifiers {
	const statementId = findRecordWith(run, STATEMENT_ID);
	const runRecord = findRecordWith(run, RUN_ID);
	const named = {
		runId: runRecord ? findId(runRecord, RUN_ID) : undefined,
		statementId: statementId ? findId(statementId, STATEMENT_ID) : undefined,
	};
	if (named.runId !== undefined || named.statementId !== undefined) return named;
	const sentTexts = new Set(sent.filter((value) => typeof value === 'string' || typeof value === 'number').map((value) => String(value).trim()));
	const idValues: Array<{ path: string; value: string }> = [];
	const visit = (value: unknown, path: string, depth: number) => {
		if (idShaped(value) && !sentTexts.has(String(value).trim())) idValues.push({ path, value: String(value).trim() });
		else if (isRecord(value) && depth < 4) for (const [key, inner] of Object.entries(value)) visit(inner, path === '' ? key : `${path}.${key}`, depth + 1);
	};
	visit(run, '', 0);
	return idValues.length > 0 ? { ...named, idValues: idValues.slice(0, 10) } : named;
}

/**
 * A value shaped like an identifier: a text of one word holding a digit (`R-1001`, a UUID, `pr_01HX…`)
 * that is no date, time or URL, or a whole number of four digits or more. Never a status (`running`).
 */
export function idShaped(value: unknown): boolean {
	if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) >= 1000;
	if (typeof value !== 'string') return false;
	const text = value.trim();
	if (text.length === 0 || text.length > 100 || !/[0-9]/.test(text) || /\s/.test(text) || text.includes('://')) return false;
	// 2026-11-29, 2026-11-29T01:02:03Z, 01:02:03: when, not which.
	return !/^\d{4}-\d{2}-\d{2}/.test(text) && !/^\d{1,2}:\d{2}/.test(text);
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
	if (byName) return byName;
	if (ids.runId !== undefined) return records.find((row) => holds(row, ids.runId!));
	return undefined;
}

/**
 * Where the run names no id: the statements holding one of its id-shaped values, with the values each
 * holds. One statement is the run's; more are told apart by no name, so the caller names them.
 */
export function statementsHolding(rows: readonly unknown[], ids: RunIdentifiers): Array<{ statement: Fields; paths: string[] }> {
	if (ids.idValues === undefined) return [];
	return rows.filter(isRecord).flatMap((row) => {
		const paths = ids.idValues!.filter((id) => holds(row, id.value)).map((id) => id.path);
		return paths.length > 0 ? [{ statement: row, paths }] : [];
	});
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
	/** What the node sent (the KE): never taken for the run's id. */
	sent: readonly unknown[] = [],
): Promise<{ wait: StatementWait; statement?: Fields; readings: number; note?: string }> {
	const ids = runIdentifiers(run, sent);
	// The run was made: passed on, saying the wait could not match it (statement_wait), never reported failed.
	if (ids.runId === undefined && ids.statementId === undefined && ids.idValues === undefined) return { wait: 'no_identifier', readings: 0 };
	const settings = await getServiceSettings.call(this, itemIndex);
	const startedAt = Date.now();
	for (let readings = 1; ; readings++) {
		const fetch = pageFetcher.call(this, 'statements', { settings, itemIndex }, 'json');
		for await (const page of cursorPages(fetch, exportPaging(settings, {}))) {
			const rows = pageRows(page.content, undefined, settings);
			const statement = matchStatement(rows, ids);
			if (statement) return { wait: 'found', statement, readings };
			// No id named: a statement holding one of the run's id-shaped values; two such are named, never one picked.
			const holding = statementsHolding(rows, ids);
			if (holding.length === 1) return { wait: 'found', statement: holding[0].statement, readings };
			if (holding.length > 1) {
				const fields = [...new Set(holding.flatMap((entry) => entry.paths))];
				// The run was made: the statements that fit are named for the user, none picked, the run never failed.
				return { wait: 'ambiguous', readings, note: `The run's answer names no id, and ${holding.length} statements hold values of it (${fields.join(', ')}): read the run's statement with Statement > Get Many.` };
			}
			// The wait bounds every page too: an export whose cursors never end is not read up to Max Pages.
			if (Date.now() - startedAt > boundMs) return { wait: 'gave_up', readings };
		}
		const pause = Math.min(1000 * 2 ** (readings - 1), 10_000);
		if (Date.now() - startedAt + pause > boundMs) return { wait: 'gave_up', readings };
		await sleep(pause);
	}
}
