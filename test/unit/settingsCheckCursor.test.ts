import { applyFindings, checkSettings, type Finding } from '../../nodes/shared/settingsCheck';
import { cursorHeadersNamed } from '../../nodes/shared/settingsCheck/cursor';
import { PROBE_LIMITS } from '../../nodes/shared/settingsCheck/types';
import { fakeService, jsonAnswer } from './settingsCheckFakes';

// Check Settings on a Service that reads the cursor from a header (issue 44 item 5): every query name gives
// page 1 again, the common headers and one the Service's words name are tried, within the budget.

const BASE = 'https://svc.example';
const cursorFinding = (findings: Finding[]) => findings.find((entry) => entry.topic === 'Cursor Parameter')!;
const headersTried = (asked: Array<{ headers?: Readonly<Record<string, string>> }>) => asked.flatMap((r) => Object.keys(r.headers ?? {}));

describe('the cursor in a header', () => {
	test.each(['X-Service-Cursor', 'Service-Cursor', 'X-Service-Next-Cursor', 'Cursor'])('%s: proposed as Send Cursor As Header with its name, after every query name gave page 1 again', async (header) => {
		const service = fakeService({ rows: 7, pageSize: 3, cursorHeader: header });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		const cursor = cursorFinding(findings);
		expect(cursor).toMatchObject({ verdict: 'change', found: `${header} (header)` });
		expect(cursor.settings.map((entry) => [entry.field, entry.value])).toEqual([['cursorPlacement', 'header'], ['cursorHeaderName', header]]);
		expect(cursor.evidence).toContain('under cursor the first page came again (ignored)');
		expect(applyFindings({}, findings)).toMatchObject({ advancedSettings: true, cursorPlacement: 'header', cursorHeaderName: header });
		expect(service.asked.length).toBeLessThanOrEqual(PROBE_LIMITS.requests);
	});

	test('a header the Service names in its words is tried after the common ones', async () => {
		const service = fakeService({
			rows: 7,
			pageSize: 3,
			cursorHeader: 'Page-Cursor',
			before: (request) => (new Map(request.query ?? []).has('cursor') ? jsonAnswer(400, { error: { code: 'invalid_parameter', message: 'The cursor goes in the Page-Cursor header.' } }) : undefined),
		});
		const cursor = cursorFinding(await checkSettings(service, { baseUrl: BASE, advanced: {} }));
		expect(cursor).toMatchObject({ verdict: 'change', found: 'Page-Cursor (header)' });
		expect(headersTried(service.asked)).toEqual(['X-Service-Cursor', 'Service-Cursor', 'X-Service-Next-Cursor', 'Cursor', 'Page-Cursor']);
	});

	test('set already: ok after one request; set while the Service reads the query: back to the query', async () => {
		const header = fakeService({ rows: 7, pageSize: 3, cursorHeader: 'Service-Cursor' });
		expect(cursorFinding(await checkSettings(header, { baseUrl: BASE, advanced: { cursorPlacement: 'header', cursorHeaderName: 'Service-Cursor' } }))).toMatchObject({ verdict: 'ok' });
		expect(headersTried(header.asked)).toEqual(['Service-Cursor']);

		const query = fakeService({ rows: 7, pageSize: 3 });
		const back = cursorFinding(await checkSettings(query, { baseUrl: BASE, advanced: { cursorPlacement: 'header', cursorHeaderName: 'Service-Cursor' } }));
		expect(back.verdict).toBe('change');
		expect(back.settings.map((entry) => [entry.field, entry.value])).toEqual([['cursorPlacement', 'query'], ['cursorParameter', 'cursor']]);
	});

	test('header names in words: only names speaking of a cursor, with a hyphen, read in one pass', () => {
		expect(cursorHeadersNamed('Send it in Page-Cursor or X-Next-Cursor, not cursor or X-Page.')).toEqual(['Page-Cursor', 'X-Next-Cursor']);
		expect(cursorHeadersNamed(`${'-'.repeat(100_000)}cursor`)).toEqual([]);
	});
});
