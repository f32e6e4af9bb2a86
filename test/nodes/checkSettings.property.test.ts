import fc from 'fast-check';
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

import { applyFindings, checkSettings, PROBE_LIMITS, type Finding } from '../../nodes/shared/settingsCheck';
import { CURSOR_CANDIDATES, CURSOR_HEADER_CANDIDATES } from '../../nodes/shared/settingsCheck/cursor';
import { JSON_FORMAT_NAMES, JSON_FORMAT_VALUES } from '../../nodes/shared/settingsCheck/jsonFormat';
import { WINDOW_CANDIDATES } from '../../nodes/shared/settingsCheck/window';
import { READER, readerWorkflow, runWorkflow, trustCa } from '../harness';
import { settingsCheckProbe } from '../harness/settingsCheckProbe';
import { dialect } from '../property/dialects';
import { runs } from '../property/fc';
import { startSandbox } from '../sandbox';
import { cursorSettings, dialogFields, requestSettings, signInSettings } from '../sandbox/credential';
import type { Dialect } from '../sandbox/dialect';
import { nameFor } from '../sandbox/requestDialect';
import { getMany, portfolioCsvRows, serviceJsonRows } from './reader/exportHelpers';

/**
 * Check Settings on generated Service dialects: a credential holding only Base URL, token and what
 * only writing would tell (Secret Encoding, Import Upload, the write Request Names); every `change`
 * is what the dialect needs, a needed setting not found is `unknown`, and with the changes applied
 * the real Service Reader reads the portfolio (paged), its JSON export and the expiries window.
 * Replay: FC_SEED (and FC_PATH) from the failure message; FC_RUNS for a longer run.
 */

/** What a new user has filled in before pressing Test: the settings no read can tell. */
function writeOnlySettings(drawn: Dialect): IDataObject {
	const request = requestSettings(drawn);
	const rows = ((request.requestNames as { name?: Array<{ concept: string }> } | undefined)?.name ?? []).filter((row) => !row.concept.startsWith('export.'));
	const { requestNames: _names, ...rest } = request;
	return { ...(drawn.name === 'alt' ? { signingKeyEncoding: 'hex' } : {}), ...rest, ...(rows.length ? { requestNames: { name: rows } } : {}) };
}

/** What the dialect needs for each setting a change may go to (`requestNames:<concept>` for a row). */
function needed(drawn: Dialect): Map<string, unknown> {
	const sign = signInSettings(drawn);
	return new Map<string, unknown>([
		['tokenPlacement', sign.tokenPlacement ?? 'bearer'],
		['authHeaderName', sign.authHeaderName],
		['authScheme', sign.authScheme],
		['cursorParameter', drawn.cursorParameter],
		['cursorPlacement', drawn.cursorIn.in],
		['cursorHeaderName', drawn.cursorIn.in === 'header' ? drawn.cursorIn.header : undefined],
		['jsonFormat', drawn.jsonFormat],
		['requestNames:export.json_format', nameFor(drawn.request, 'export.json_format')],
		['requestNames:export.window', nameFor(drawn.request, 'export.window')],
	]);
}

const topic = (findings: Finding[], name: string) => findings.find((entry) => entry.topic === name)!;

async function reader(credential: ICredentialDataDecryptedObject, parameters: INodeParameters) {
	return await runWorkflow(readerWorkflow(parameters), { credentials: { serviceApi: credential } });
}

describe('Check Settings on generated Service dialects', () => {
	test('every change is what the dialect needs, what is not found is unknown, and with the changes applied the reads succeed', async () => {
		await fc.assert(
			fc.asyncProperty(dialect, async (drawn) => {
				const sandbox = await startSandbox({ dialect: drawn });
				try {
					trustCa(sandbox.ca);
					const start = writeOnlySettings(drawn);
					const credential = { baseUrl: sandbox.baseUrl, accessToken: sandbox.tokens.reader, ...dialogFields(start) };
					const counting = settingsCheckProbe(credential, sandbox.ca);
					const findings = await checkSettings(counting.probe, { baseUrl: sandbox.baseUrl, advanced: start }).finally(() => counting.close());

					// Bounded, GETs only, no token in any word.
					expect(counting.asked.length).toBeLessThanOrEqual(PROBE_LIMITS.requests);
					expect(new Set(sandbox.control.requests().map((r) => r.method))).toEqual(new Set(['GET']));
					expect(JSON.stringify(findings)).not.toContain(sandbox.tokens.reader);

					// (a) Every change is what the dialect needs; nothing else is ever proposed.
					const needs = needed(drawn);
					for (const entry of findings.filter((f) => f.verdict === 'change')) {
						for (const change of entry.settings) {
							const key = change.concept ? `${change.field}:${change.concept}` : change.field;
							expect([key, change.value]).toEqual([key, needs.get(key)]);
						}
					}
					// (b) Each of them is found, or unknown: an `ok` only where the credential already says what the dialect needs.
					expect(topic(findings, 'Sign-in').verdict).toBe(drawn.signIn.form === 'bearer' ? 'ok' : 'change');
					const cursor = topic(findings, 'Cursor Parameter');
					// A cursor read from a header: found among the headers tried, else unknown (the query names all gave page 1 again).
					const cursorIn = drawn.cursorIn;
					if (cursorIn.in === 'header') expect(cursor.verdict).toBe((CURSOR_HEADER_CANDIDATES as readonly string[]).includes(cursorIn.header) ? 'change' : 'unknown');
					else expect(cursor.verdict).toBe(drawn.cursorParameter === 'cursor' ? 'ok' : (CURSOR_CANDIDATES as readonly string[]).includes(drawn.cursorParameter) ? 'change' : 'unknown');
					const windowName = nameFor(drawn.request, 'export.window');
					const window = topic(findings, 'Window Parameter');
					// A name not among those tried (`__proto__`, `constructor`) is found only where the Service's refusal quotes it.
					const windowHeard = drawn.request.unknownNames === 'refuse';
					expect(window.verdict).toBe(windowName === 'window' ? 'ok' : (WINDOW_CANDIDATES as readonly string[]).includes(windowName) || windowHeard ? 'change' : 'unknown');
					const jsonName = nameFor(drawn.request, 'export.json_format');
					const jsonFound = (JSON_FORMAT_NAMES as readonly string[]).includes(jsonName) && (JSON_FORMAT_VALUES as readonly string[]).includes(drawn.jsonFormat);
					expect(topic(findings, 'JSON Format Parameter').verdict).toBe(!jsonFound ? 'unknown' : jsonName === 'format' ? 'ok' : 'change');
					expect(topic(findings, 'JSON Format Value').verdict).toBe(!jsonFound ? 'unknown' : drawn.jsonFormat === 'json' ? 'ok' : 'change');

					// (c) With the changes applied (and the page size found, to page by 3), the real node reads.
					// What the check could not find, the user sets from the Service's documentation (the cursor's header).
					const applied = { ...applyFindings(start, findings), ...(cursor.verdict === 'unknown' ? cursorSettings(drawn) : {}) };
					const pageSize = topic(findings, 'Page Size Parameter');
					expect(pageSize.found).toBe(drawn.pageSizeParameter);
					const fixed: ICredentialDataDecryptedObject = {
						baseUrl: sandbox.baseUrl,
						accessToken: sandbox.tokens.reader,
						...applied,
						advancedSettings: true,
						pageSizeParameter: pageSize.found!,
						pageSize: 3,
					};
					const items = await reader(fixed, getMany('portfolio', { returnAll: true }));
					expect(items.error(READER)).toBeUndefined();
					expect(items.output(READER).map((item) => item.json)).toEqual(portfolioCsvRows(sandbox));
					if (jsonFound) {
						const json = await reader(fixed, getMany('portfolio', { returnAll: true, format: 'json' }));
						expect(json.error(READER)).toBeUndefined();
						expect(json.output(READER).map((item) => item.json)).toEqual(await serviceJsonRows(sandbox, '/v1/reader/exports/portfolio?format=json'));
					}
					if (window.verdict !== 'unknown') {
						const expiries = await reader(fixed, getMany('expiry', { returnAll: true, window: '30' }));
						expect(expiries.error(READER)).toBeUndefined();
						const in30 = await serviceJsonRows(sandbox, '/v1/reader/exports/expiries?format=json&window=30');
						expect(expiries.output(READER).length).toBe(in30.length);
						expect(expiries.output(READER).every((item) => item.json.window_days === '30')).toBe(true);
					}
				} finally {
					await sandbox.close();
				}
			}),
			runs(12),
		);
	}, 600_000);
});
