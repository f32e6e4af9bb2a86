import { applyFindings, checkSettings, settingsMessage, type Finding } from '../../nodes/shared/settingsCheck';
import { listedNames } from '../../nodes/shared/settingsCheck/answers';
import { pathsIn } from '../../nodes/shared/settingsCheck/baseUrl';
import { readErrorBody } from '../../nodes/shared/transport/errors';
import { answer, fakeService, jsonAnswer } from './settingsCheckFakes';

// Check Settings against hand-written Services: each test says what the Service answers and checks
// what the user is told (findings, the message) and what was asked.

const BASE = 'https://svc.example';
const topic = (findings: Finding[], name: string) => findings.find((entry) => entry.topic === name)!;
const changed = (findings: Finding[]) => findings.filter((entry) => entry.verdict === 'change').map((entry) => entry.topic);

describe('sign-in', () => {
	const wantsKey = (fields: Record<string, string> | undefined) => fields?.tokenPlacement === 'header' && fields.authHeaderName === 'X-Api-Key';

	test('a 401 naming a header, confirmed by one request sent that way, is a change; every later request is sent that way', async () => {
		const service = fakeService({
			before: (request) => (wantsKey(request.fields) ? undefined : answer(401, '', { 'WWW-Authenticate': 'ApiKey header="X-Api-Key"' })),
		});
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'Sign-in')).toMatchObject({ verdict: 'change', found: 'X-Api-Key: <token>', current: 'Authorization: Bearer <token>' });
		expect(settingsMessage(findings).message).toContain('Set Send Token As to `Another Header` and Token Header Name to `X-Api-Key`');
		expect(service.asked.slice(1).every((request) => wantsKey(request.fields))).toBe(true);
		expect(changed(findings)).toEqual(['Sign-in']);
		expect(applyFindings({}, findings)).toEqual({ advancedSettings: true, tokenPlacement: 'header', authHeaderName: 'X-Api-Key' });
	});

	test('a 401 whose proposal is refused too is unknown with the words seen; nothing else is asked', async () => {
		const service = fakeService({ before: () => jsonAnswer(401, { error: { code: 'unauthorized', message: 'Missing X-Service-Key header.' } }, { 'WWW-Authenticate': 'Key realm="service"' }) });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(service.asked.length).toBe(2);
		expect(service.asked[1].fields).toEqual({ tokenPlacement: 'header', authHeaderName: 'X-Service-Key' });
		expect(topic(findings, 'Sign-in').verdict).toBe('unknown');
		expect(topic(findings, 'Sign-in').evidence).toContain('Missing X-Service-Key header.');
		expect(topic(findings, 'Cursor Parameter')).toMatchObject({ verdict: 'unknown', evidence: 'Not checked: the check can read the exports only after sign-in works.' });
		expect(changed(findings)).toEqual([]);
		const { ok, message } = settingsMessage(findings);
		expect(ok).toBe(false);
		expect(message).toMatch(/^Sign-in: Check the Access Token: the Service refused it sent as Authorization: Bearer <token> and as X-Service-Key: <token>, which its answer asks for /);
	});

	test('a Bearer 401 to a Bearer token says to check the Access Token and proposes nothing', async () => {
		const service = fakeService({ before: () => answer(401, 'invalid token', { 'WWW-Authenticate': 'Bearer error="invalid_token"' }) });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(service.asked.length).toBe(1);
		expect(topic(findings, 'Sign-in').evidence).toContain('Check the Access Token');
		expect(settingsMessage(findings).ok).toBe(false);
	});

	test('a 403 at the catalogue: the token is accepted but lacks rights, said; the exports are still checked', async () => {
		const service = fakeService({ before: (request) => (request.path.endsWith('catalogue') ? jsonAnswer(403, { error: { code: 'forbidden', message: 'Reader admins only.' } }) : undefined) });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'Sign-in').verdict).toBe('unknown');
		expect(topic(findings, 'Sign-in').evidence).toMatch(/accepted, but it is not allowed .*Reader admins only\./);
		expect(topic(findings, 'Cursor Parameter')).toMatchObject({ verdict: 'ok', found: 'cursor' });
		expect(settingsMessage(findings).ok).toBe(false);
	});
});

describe('Base URL', () => {
	test('404 at the spec paths but a 2xx one level up (a pasted /v1): the exact Base URL to enter, used for the rest', async () => {
		const service = fakeService({
			before: (request) => {
				const base = request.fields?.baseUrl;
				if (request.path === `${BASE}/api/v1/reader/webhooks/catalogue`) return jsonAnswer(200, { data: [] });
				if (request.path.startsWith('https://')) return jsonAnswer(404, { error: { code: 'not_found', message: 'No such route.' } });
				return base === `${BASE}/api` ? undefined : jsonAnswer(404, { error: { code: 'not_found', message: 'No such route.' } });
			},
		});
		const findings = await checkSettings(service, { baseUrl: `${BASE}/api/v1`, advanced: {} });
		expect(topic(findings, 'Base URL')).toMatchObject({ verdict: 'change', found: `${BASE}/api`, settings: [{ field: 'baseUrl', label: 'Base URL', value: `${BASE}/api` }] });
		expect(service.asked.map((r) => r.path).slice(0, 3)).toEqual(['/v1/reader/webhooks/catalogue', '/v1/reader/exports/portfolio', `${BASE}/api/v1/reader/webhooks/catalogue`]);
		expect(service.asked.slice(3).every((r) => r.fields?.baseUrl === `${BASE}/api`)).toBe(true);
		expect(settingsMessage(findings).message).toContain(`Set Base URL to \`${BASE}/api\``);
		expect(applyFindings({}, findings)).toEqual({ baseUrl: `${BASE}/api` });
	});

	test('a login page (HTML 200) everywhere: the Base URL is unknown, nothing else is asked or proposed', async () => {
		const service = fakeService({ before: () => answer(200, '<!doctype html><title>Sign in</title>', { 'content-type': 'text/html' }) });
		const findings = await checkSettings(service, { baseUrl: `${BASE}/app`, advanced: {} });
		expect(topic(findings, 'Base URL').verdict).toBe('unknown');
		expect(topic(findings, 'Base URL').evidence).toContain('a web page rather than the Service');
		expect(service.asked.map((r) => r.path)).toEqual(['/v1/reader/webhooks/catalogue', `${BASE}/v1/reader/webhooks/catalogue`]);
		expect(changed(findings)).toEqual([]);
		expect(settingsMessage(findings).ok).toBe(false);
	});
});

describe('paging', () => {
	test('a portfolio that fits in one page under every page size name: the cursor is unknown, never guessed', async () => {
		const service = fakeService({ rows: 5, pageSizeName: 'pageSize' });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'Page Size Parameter').verdict).toBe('unknown');
		expect(topic(findings, 'Cursor Parameter')).toMatchObject({ verdict: 'unknown' });
		expect(topic(findings, 'Cursor Parameter').evidence).toContain('fits in one page');
		expect(topic(findings, 'CSV Header Row on Later Pages').verdict).toBe('unknown');
		expect(changed(findings)).toEqual([]);
	});

	test('a 400 refusing a cursor name rules it out and is said; the name the Service reads is proposed', async () => {
		const service = fakeService({ cursorName: 'page_token', refuses: ['cursor'] });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		const cursor = topic(findings, 'Cursor Parameter');
		expect(cursor).toMatchObject({ verdict: 'change', found: 'page_token', current: 'cursor', settings: [{ field: 'cursorParameter', value: 'page_token' }] });
		expect(cursor.evidence).toContain('under cursor it was refused (400: "invalid_parameter: Unknown query parameter "cursor".")');
		expect(topic(findings, 'Page Size Parameter')).toMatchObject({ verdict: 'info', found: 'page_size' });
	});

	test('a page size the user set that the Service refuses is a change to the name it reads', async () => {
		const service = fakeService({ pageSizeName: 'limit', refuses: ['per_page'] });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: { pageSizeParameter: 'per_page' } });
		expect(topic(findings, 'Page Size Parameter')).toMatchObject({ verdict: 'change', found: 'limit', current: 'per_page' });
	});

	test('a CSV answer cut at the size cap: only whole rows are counted, and the shapes still read', async () => {
		const service = fakeService({ rows: 40, delimiter: ';', cutAt: 200 });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: { csvDelimiter: 'comma' } });
		expect(topic(findings, 'CSV Delimiter')).toMatchObject({ verdict: 'change', found: 'semicolon', settings: [{ field: 'csvDelimiter', value: 'semicolon', shown: 'Semicolon' }] });
		expect(settingsMessage(findings).message).toContain('Set CSV Delimiter to `Semicolon`');
		expect(topic(findings, 'Cursor Parameter')).toMatchObject({ verdict: 'ok', found: 'cursor' });
	});
});

describe('JSON format and window', () => {
	test('a Service defaulting to JSON: a name it ignores is not proposed; the name it reads is', async () => {
		const service = fakeService({ jsonName: 'response_format', jsonValue: 'json', before: (request) => {
			const query = new Map(request.query ?? []);
			// No format asked: JSON, as some Services default to.
			if (request.path.endsWith('portfolio') && !query.has('format') && !query.has('response_format')) return jsonAnswer(200, { data: [] });
			return undefined;
		} });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'JSON Format Parameter')).toMatchObject({ verdict: 'change', found: 'response_format' });
		expect(topic(findings, 'JSON Format Parameter').evidence).toContain('output=json and output=settings-check both answered JSON (the name is ignored)');
		expect(topic(findings, 'JSON Format Value')).toMatchObject({ verdict: 'ok', found: 'json' });
	});

	test('a window under a name not tried is unknown, saying the answers cannot tell', async () => {
		const service = fakeService({ windowName: '__proto__', rows: 12 });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'Window Parameter').verdict).toBe('unknown');
		expect(topic(findings, 'Window Parameter').evidence).toContain("cannot be told from these answers");
		expect(applyFindings({}, findings)).toEqual({});
	});

	test('Request Names rows are merged by concept: the window row replaced, others kept', async () => {
		const service = fakeService({ windowName: 'days', rows: 12 });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: { requestNames: { name: [{ concept: 'export.window', serviceName: 'lookahead' }, { concept: 'webhook.url', serviceName: 'target' }] } } });
		expect(topic(findings, 'Window Parameter')).toMatchObject({ verdict: 'change', found: 'days', current: 'lookahead' });
		expect(applyFindings({ requestNames: { name: [{ concept: 'export.window', serviceName: 'lookahead' }, { concept: 'webhook.url', serviceName: 'target' }] } }, findings)).toEqual({
			advancedSettings: true,
			requestNames: { name: [{ concept: 'export.window', serviceName: 'days' }, { concept: 'webhook.url', serviceName: 'target' }] },
		});
	});
});

describe('bounds', () => {
	test('time spent: the checks the clock leaves no room for are unknown, saying so; no request starts after the deadline', async () => {
		let clock = 0;
		const service = fakeService();
		const slow = Object.assign(async (request: Parameters<typeof service>[0]) => {
			clock += 2_000;
			return await service(request);
		}, { asked: service.asked });
		const findings = await checkSettings(slow, { baseUrl: BASE, advanced: {} }, () => clock);
		expect(service.asked.length).toBe(8);
		// Eight requests start before 15 s (0, 2, ... 14 s): sign-in to the window and the unknown parameter; not the list shapes.
		expect(topic(findings, 'Window Parameter').verdict).toBe('ok');
		expect(topic(findings, 'Decisions List Shape')).toMatchObject({ verdict: 'unknown', evidence: "Not checked: the check's 15 seconds were used up before this could be asked." });
		expect(settingsMessage(findings).message).toContain("Could not tell: Decisions List Shape, Statements List Shape, Error Body Shape (the check's 15 seconds were used up before this could be asked).");
	});

	test('requests spent: never more than the limit, the rest unknown saying so', async () => {
		const service = fakeService();
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} }, () => 0, { requests: 6, totalMs: 15_000, requestMs: 5_000, bodyBytes: 262_144 });
		expect(service.asked.length).toBe(6);
		expect(topic(findings, 'JSON Format Value').verdict).toBe('ok');
		expect(findings.filter((entry) => entry.evidence.includes("the check's 6 requests were used up")).map((entry) => entry.topic)).toEqual(
			['Window Parameter', 'Unknown Query Parameters', 'Decisions List Shape', 'Statements List Shape', 'Error Body Shape'],
		);
		expect(service.asked.every((request) => request.timeoutMs !== undefined && request.timeoutMs <= 5_000)).toBe(true);
	});

	test('a request that fails without an answer is said, and the checks go on', async () => {
		const service = fakeService({ before: (request) => {
			if (request.path.endsWith('decisions')) throw new Error('socket hang up');
			return undefined;
		} });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'Decisions List Shape').evidence).toBe('Not checked: the request failed without an answer (socket hang up).');
		expect(topic(findings, 'Statements List Shape').verdict).toBe('info');
	});
});

describe('the message and the applied settings', () => {
	const signedIn: Finding = { topic: 'Sign-in', settings: [], verdict: 'ok', evidence: 'The token was accepted.', found: 'Authorization: Bearer <token>' };
	const clear: Finding = {
		topic: 'Page Size Parameter',
		settings: [{ field: 'pageSizeParameter', label: 'Page Size Parameter', value: '' }],
		verdict: 'change',
		evidence: 'Page Size Parameter `per_page` is refused and no other name was found.',
		current: 'per_page',
		found: '',
	};

	test('ok only with sign-in working and nothing to change; a cleared setting is said as cleared', () => {
		expect(settingsMessage([signedIn]).ok).toBe(true);
		expect(settingsMessage([{ ...signedIn, verdict: 'unknown' }]).ok).toBe(false);
		expect(settingsMessage([]).ok).toBe(false);
		const { ok, message } = settingsMessage([signedIn, clear]);
		expect(ok).toBe(false);
		// Each line ends with its own stop: n8n's dialog collapses the newlines.
		expect(message.split('\n')).toEqual([
			'Change one setting (Advanced Settings in the Service API credential):',
			'- Clear Page Size Parameter.',
			'Works: Sign-in (Authorization: Bearer <token>).',
			'What each finding is based on: Service Reader > Service > Check Settings.',
		]);
	});

	test('applyFindings sets changes only, keeps every other field, and leaves its input as it was', () => {
		const advanced = { cursorParameter: 'cursor', pageSizeParameter: 'per_page', maxPages: 5 };
		const applied = applyFindings(advanced, [signedIn, clear, { ...clear, verdict: 'unknown', settings: [{ field: 'cursorParameter', label: 'Cursor Parameter', value: 'next' }] }]);
		expect(applied).toEqual({ advancedSettings: true, cursorParameter: 'cursor', pageSizeParameter: '', maxPages: 5 });
		expect(advanced).toEqual({ cursorParameter: 'cursor', pageSizeParameter: 'per_page', maxPages: 5 });
	});
});

describe('sign-in behind a gateway', () => {
	test('a 403 whose words name a key header, confirmed by one request, is a change', async () => {
		const service = fakeService({
			before: (request) => (request.fields?.authHeaderName === 'X-Gateway-Key' ? undefined : jsonAnswer(403, { message: 'Forbidden: missing X-Gateway-Key header' })),
		});
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'Sign-in')).toMatchObject({ verdict: 'change', found: 'X-Gateway-Key: <token>' });
		expect(topic(findings, 'Cursor Parameter')).toMatchObject({ verdict: 'ok' });
	});
});

describe('names a refusal quotes', () => {
	test('a cursor name outside the list, quoted by the refusal, is tried next and proposed once its page differs', async () => {
		const service = fakeService({ cursorName: 'pageToken', refuses: ['cursor'], before: (request) => {
			const query = new Map(request.query ?? []);
			return query.has('cursor') ? jsonAnswer(400, { error: { code: 'invalid_parameter', message: 'Unknown parameter "cursor": send the cursor as "pageToken".' } }) : undefined;
		} });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'Cursor Parameter')).toMatchObject({ verdict: 'change', found: 'pageToken' });
		// Tried right after the refusal, before the common names.
		const cursorNames = service.asked.filter((r) => r.query?.some(([, value]) => value === '2') && r.query.length === 3).map((r) => r.query![2][0]);
		expect(cursorNames).toEqual(['cursor', 'pageToken']);
	});

	test('a quoted word that is no name (a number, a sentence) is not tried', async () => {
		const service = fakeService({ windowName: 'horizon', refuses: ['window'], rows: 12, before: (request) => {
			const query = new Map(request.query ?? []);
			return query.has('window') ? jsonAnswer(400, { error: { code: 'invalid', message: 'got "30"; see "the docs"' } }) : undefined;
		} });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'Window Parameter').verdict).toBe('unknown');
		expect(service.asked.some((r) => r.query?.some(([name]) => name === '30' || name === 'the docs'))).toBe(false);
	});
});

describe("what the Service's own words list", () => {
	test('names and values after "takes", "use", "one of", to the sentence\'s end; whole words only; no filler', () => {
		expect(listedNames('Unknown query parameter: window. This route takes: format, horizon_days, per_page, page_token.')).toEqual(['format', 'horizon_days', 'per_page', 'page_token']);
		expect(listedNames('format "json" is not offered: use csv (tab-separated) or ndjson.')).toEqual(['csv', 'tab-separated', 'ndjson']);
		expect(listedNames('window must be one of 30, 60 or 90; got 45')).toEqual([]);
		expect(listedNames('The cursor was used already. Start again.')).toEqual([]);
		expect(listedNames('x'.repeat(5000))).toEqual([]);
	});

	test('paths a 404 names, up to where /v1 starts', () => {
		expect(pathsIn('No route /v1/reader/webhooks/catalogue. Every route lives under /api (Base URL https://<host>/api).')).toEqual(['/api']);
		expect(pathsIn('Try /svc/reader-api/v1/reader/exports instead')).toEqual(['/svc/reader-api']);
		expect(pathsIn('a/b and 1/2 are not paths')).toEqual([]);
	});

	test('an error body under any wrapper is read by shape', () => {
		expect(readErrorBody({ fault: { code: 'unknown_parameter', message: 'Unknown query parameter: window.', trace_id: 't' } })).toEqual({ code: 'unknown_parameter', message: 'Unknown query parameter: window.' });
		expect(readErrorBody({ error: { code: 'a', message: 'b' } })).toEqual({ code: 'a', message: 'b' });
	});

	test('a value the refusal lists is tried for the JSON format; a value is never tried as a name', async () => {
		const service = fakeService({ jsonValue: 'ndjson', before: (request) => {
			const query = new Map(request.query ?? []);
			const format = query.get('format');
			if (format !== undefined && format !== 'csv' && format !== 'ndjson') return jsonAnswer(400, { fault: { code: 'invalid_parameter', message: `format "${format}" is not offered: use csv (tab-separated) or ndjson.` } });
			return undefined;
		} });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'JSON Format Value')).toMatchObject({ verdict: 'change', found: 'ndjson' });
		expect(service.asked.some((r) => r.query?.some(([name]) => ['csv', 'ndjson', 'tab-separated'].includes(name)))).toBe(false);
	});

	test('the route\'s listed names find the window; the page size it also lists is never proposed as the window', async () => {
		const takes = 'This route takes: format, per_page, horizon_days.';
		const service = fakeService({ pageSizeName: 'per_page', pageSize: 5, rows: 12, windowName: 'horizon_days', before: (request) => {
			const unknown = (request.query ?? []).map(([name]) => name).filter((name) => !['format', 'per_page', 'horizon_days', 'cursor'].includes(name));
			return unknown.length ? jsonAnswer(400, { fault: { code: 'unknown_parameter', message: `Unknown query parameter: ${unknown.join(', ')}. ${takes}` } }) : undefined;
		} });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'Page Size Parameter')).toMatchObject({ verdict: 'info', found: 'per_page' });
		expect(topic(findings, 'Window Parameter')).toMatchObject({ verdict: 'change', found: 'horizon_days' });
		expect(service.asked.some((r) => r.path.endsWith('expiries') && r.query?.some(([name, value]) => name === 'per_page' && value === '30'))).toBe(false);
	});

	test('a Base URL at the bare host where the 404 names the prefix: the prefixed Base URL is proposed', async () => {
		const service = fakeService();
		const missing = jsonAnswer(404, { fault: { code: 'no_such_route', message: 'Every route lives under /api.' } });
		const underApi = 'https://svc.example/api';
		const findings = await checkSettings(async (request) => {
			// Served under /api only: an absolute URL there, or a path once the Base URL is /api.
			if (request.path.startsWith(`${underApi}/`)) return await service({ ...request, path: request.path.slice(underApi.length) });
			if (!request.path.startsWith('https://') && request.fields?.baseUrl === underApi) return await service(request);
			return missing;
		}, { baseUrl: BASE, advanced: {} });
		expect(topic(findings, 'Base URL')).toMatchObject({ verdict: 'change', found: underApi });
		expect(topic(findings, 'Sign-in').verdict).toBe('ok');
	});
});
