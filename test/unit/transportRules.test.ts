import { describeServiceError, readErrorBody } from '../../nodes/shared/transport/errors';
import { httpsUrlProblem, normalisedUrl, pathSegmentProblem } from '../../nodes/shared/validation';
import { listFromBody } from '../../nodes/shared/answerShape';
import { isRetryableStatus, parseRetryAfterMs, retryDelayMs } from '../../nodes/shared/transport/retry';
import { readServiceSettings } from '../../nodes/shared/transport/settings';

const NOW = Date.parse('2026-11-22T12:00:00Z');

describe('retry rules', () => {
	test.each([
		[429, true],
		[500, true],
		[503, true],
		[599, true],
		[400, false],
		[401, false],
		[404, false],
		[600, false],
	])('status %i retryable: %s', (status, expected) => {
		expect(isRetryableStatus(status)).toBe(expected);
	});

	test('Retry-After in seconds or as an HTTP date wins over backoff', () => {
		expect(parseRetryAfterMs('7', NOW)).toBe(7000);
		expect(parseRetryAfterMs(' 0 ', NOW)).toBe(0);
		expect(parseRetryAfterMs(new Date(NOW + 3000).toUTCString(), NOW)).toBe(3000);
		expect(parseRetryAfterMs(new Date(NOW - 3000).toUTCString(), NOW)).toBe(0);
		expect(retryDelayMs(3, '2', NOW)).toBe(2000);
	});

	test('unreadable or missing Retry-After falls back to doubling backoff, capped', () => {
		expect(parseRetryAfterMs(undefined, NOW)).toBeUndefined();
		expect(parseRetryAfterMs('soon', NOW)).toBeUndefined();
		expect(parseRetryAfterMs('', NOW)).toBeUndefined();
		expect([0, 1, 2, 3].map((attempt) => retryDelayMs(attempt, 'soon', NOW))).toEqual([500, 1000, 2000, 4000]);
		expect(retryDelayMs(20, undefined, NOW)).toBe(60_000);
		expect(retryDelayMs(0, '86400', NOW)).toBe(60_000);
	});
});

describe('Service errors in words', () => {
	test('reads {error: {code, message}}, {message} and raw JSON bytes; ignores anything else', () => {
		expect(readErrorBody({ error: { code: 'x', message: 'y' } })).toEqual({ code: 'x', message: 'y' });
		expect(readErrorBody({ message: 'plain' })).toEqual({ code: undefined, message: 'plain' });
		expect(readErrorBody(Buffer.from('{"error":{"code":"c"}}'))).toEqual({ code: 'c', message: undefined });
		// A page is not words: its title, when it has one, is (pageWords.ts).
		expect(readErrorBody('<html>oops</html>')).toEqual({ page: '' });
		expect(readErrorBody('<html><title>502 Bad Gateway</title></html>')).toEqual({ page: '502 Bad Gateway' });
		expect(readErrorBody(null)).toEqual({});
	});

	test('each status and code gets words that tell the user what to do', () => {
		expect(describeServiceError(401, {}).message).toBe('The Service rejected the access token (401)');
		expect(describeServiceError(401, {}).description).toMatch(/Check the Access Token/);
		expect(describeServiceError(403, { error: { code: 'passkey_required' } }).description).toMatch(/confirm their passkey/);
		expect(describeServiceError(403, { error: { code: 'exports_disabled' } }).message).toMatch(/Exports are not switched on/);
		expect(describeServiceError(403, { error: { code: 'no_reader_admin' } }).message).toMatch(/no reader admin/);
		expect(describeServiceError(429, {}, 4).message).toBe('The Service kept rate-limiting the request (429 after 4 attempts)');
		expect(describeServiceError(500, {}, 1).message).toBe('The Service failed to answer (500 after 1 attempt)');
		expect(describeServiceError(422, { error: { message: 'bad email' } }).message).toBe(
			'The Service refused the request (422): bad email',
		);
		// Plain text is the Service's words too; markup is not.
		expect(describeServiceError(400, 'not json').message).toBe('The Service refused the request (400): not json');
		expect(describeServiceError(400, '<html>oops</html>').message).toBe('The Service refused the request (400)');
	});
});

describe('identifiers in paths', () => {
	test('accepts opaque ids of letters, digits, dot, underscore and dash', () => {
		for (const value of ['KE-1001', 'KS_2026.01', 'pack-7', ' KE1 ']) {
			expect(pathSegmentProblem('KE', value)).toBeUndefined();
		}
	});

	test('refuses what is empty or could change the path, naming the field', () => {
		expect(pathSegmentProblem('KE', '')).toBe('KE is empty. Enter the KE exactly as the Service shows it.');
		expect(pathSegmentProblem('KE', undefined)).toMatch(/^KE is empty/);
		for (const value of ['..', '.', 'KE/1', 'KE?x=1', 'KE 1', 'KÉ1', '%2F']) {
			expect(pathSegmentProblem('pack_id', value)).toMatch(/^pack_id ".*" is malformed/);
		}
	});

	test('webhook targets must be absolute https URLs', () => {
		expect(httpsUrlProblem('URL', 'https://n8n.example.com/webhook/x')).toBeUndefined();
		expect(httpsUrlProblem('URL', 'http://n8n.example.com/webhook/x')).toBe(
			'URL "http://n8n.example.com/webhook/x" uses http; the Service accepts https only.',
		);
		expect(httpsUrlProblem('URL', 'n8n.example.com')).toMatch(/is not a valid URL/);
		expect(httpsUrlProblem('URL', '')).toMatch(/is empty/);
	});

	test('a value of the wrong type is named as such, not as empty; an id longer than any id is refused before sending', () => {
		expect(pathSegmentProblem('KE', 1001)).toBe('KE must be text; got a number. Enter the KE exactly as the Service shows it (an expression may need .toString()).');
		expect(pathSegmentProblem('KE', { ke: 'KE-1' })).toMatch(/^KE must be text; got an object/);
		expect(pathSegmentProblem('KE', 'K'.repeat(1_000_000))).toBe(
			'KE is 1000000 characters long, longer than any identifier (at most 256): check what the field is mapped to.',
		);
		expect(httpsUrlProblem('URL', ['https://a.example'])).toMatch(/^URL must be text; got a list/);
	});

	test('a URL a parser would read differently than it is written is refused; what is sent is the parsed URL', () => {
		expect(httpsUrlProblem('URL', 'https://hooks.example\\@evil.example/x')).toMatch(/holds a backslash or a control character/);
		expect(httpsUrlProblem('URL', 'https://hooks.example/x\ty')).toMatch(/holds a backslash or a control character/);
		expect(httpsUrlProblem('URL', 'https://user:pass@hooks.example/x')).toMatch(/holds a user name or password/);
		expect(httpsUrlProblem('URL', 'https://hooks.example@evil.example/x')).toMatch(/holds a user name or password/);
		expect(normalisedUrl(' https://HOOKS.example:443/a/../b?x=1 ')).toBe('https://hooks.example/b?x=1');
	});
});

describe('list answers', () => {
	test('accepts {data}, {items}, {event_types} and bare arrays; refuses anything else', () => {
		expect(listFromBody({ data: [1] })).toEqual([1]);
		expect(listFromBody({ items: [2] })).toEqual([2]);
		expect(listFromBody({ event_types: [3] })).toEqual([3]);
		expect(listFromBody([4])).toEqual([4]);
		expect(() => listFromBody({ data: 'x' })).toThrow('The Service answered with something other than a list');
	});
});

describe('credential settings', () => {
	test('documented defaults when Advanced Settings is off', () => {
		expect(readServiceSettings({ baseUrl: 'https://svc.example.com//', accessToken: 't', advancedSettings: false })).toEqual({
			settings: {
				baseUrl: 'https://svc.example.com',
				cursorParameter: 'cursor',
				idempotencyHeader: 'Idempotency-Key',
				cursorHeader: undefined,
				pageSize: undefined,
				signingKeyEncoding: 'auto',
				signatureEncoding: 'auto',
				signatureTimestampUnit: 'auto',
				csvDelimiter: 'auto',
				csvHeaderRepeat: 'auto',
				jsonFormat: 'json',
				requestNames: new Map(),
				importUpload: { form: 'csv' },
				signIn: { form: 'bearer' },
				webhookSigningSecret: undefined,
				requestTimeoutMs: 60_000,
				jobWaitMs: 300_000,
				maxResponseBytes: 64 * 1024 * 1024,
				maxFileBytes: 10_240 * 1024 * 1024,
				maxPages: 100_000,
				redact: expect.any(Function),
				redactBytes: expect.any(Function),
				redactError: expect.any(Function),
				redactFileName: expect.any(Function),
				redactValue: expect.any(Function),
			},
		});
	});

	test('CSV Delimiter and CSV Header Row on Later Pages, stored by name, read as the characters and modes they stand for', () => {
		const read = (advanced: Record<string, unknown>) => {
			const result = readServiceSettings({ baseUrl: 'https://svc.example.com', advancedSettings: true, ...advanced });
			if (result.problem !== undefined) throw new Error(result.problem);
			return [result.settings.csvDelimiter, result.settings.csvHeaderRepeat];
		};
		expect(read({ csvDelimiter: 'tab', csvHeaderRepeat: 'first' })).toEqual(['\t', 'first']);
		expect(read({ csvDelimiter: 'semicolon', csvHeaderRepeat: 'every' })).toEqual([';', 'every']);
		expect(read({ csvDelimiter: 'pipe' })).toEqual(['|', 'auto']);
		expect(read({ csvDelimiter: 'comma' })).toEqual([',', 'auto']);
		expect(read({ csvDelimiter: ';', csvHeaderRepeat: 'sometimes' })).toEqual(['auto', 'auto']);
	});

	test('limits from Advanced: Request Timeout in seconds, Max Response Size in MiB, Max Pages; unusable values keep the default', () => {
		const read = (advanced: Record<string, unknown>) => {
			const result = readServiceSettings({ baseUrl: 'https://svc.example.com', advancedSettings: true, ...advanced });
			if (result.problem !== undefined) throw new Error(result.problem);
			return result.settings;
		};
		expect(read({ requestTimeout: 2.5, maxResponseSize: 1, maxPages: 7 })).toMatchObject({
			requestTimeoutMs: 2500,
			maxResponseBytes: 1024 * 1024,
			maxPages: 7,
		});
		expect(read({ requestTimeout: 0, maxResponseSize: -1, maxPages: 'x' })).toMatchObject({
			requestTimeoutMs: 60_000,
			maxResponseBytes: 64 * 1024 * 1024,
			maxPages: 100_000,
		});
	});

	test('Advanced Settings off: the fields left from when it was on do not apply', () => {
		const read = (credentials: Record<string, unknown>) => {
			const result = readServiceSettings({ baseUrl: 'https://svc.example.com', ...credentials });
			if (result.problem !== undefined) throw new Error(result.problem);
			return result.settings;
		};
		const fields = { cursorParameter: 'after', signingKeyEncoding: 'hex', jsonFormat: 'application/json', requestTimeout: 5 };
		expect(read({ advancedSettings: true, ...fields })).toMatchObject({
			cursorParameter: 'after',
			signingKeyEncoding: 'hex',
			jsonFormat: 'application/json',
			requestTimeoutMs: 5000,
		});
		expect(read({ advancedSettings: false, ...fields })).toMatchObject({ cursorParameter: 'cursor', signingKeyEncoding: 'auto', requestTimeoutMs: 60_000 });
	});

	test('the access token is replaced by *** in text and bytes the Service sent; short tokens are left alone', () => {
		const token = 'svc_live_5f3a9c1e';
		const result = readServiceSettings({ baseUrl: 'https://svc.example.com', accessToken: token });
		if (result.problem !== undefined) throw new Error(result.problem);
		const { redact, redactBytes } = result.settings;
		expect(redact(`token ${token} is not allowed; ${token}`)).toBe('token *** is not allowed; ***');
		expect(redact('nothing to hide')).toBe('nothing to hide');
		const clean = Buffer.from('ke,name\r\nKE-1,Acme\r\n');
		expect(redactBytes(clean)).toBe(clean);
		expect(redactBytes(Buffer.from(`ke,name\r\nKE-1,${token}\r\n`)).toString()).toBe('ke,name\r\nKE-1,***\r\n');
		const short = readServiceSettings({ baseUrl: 'https://svc.example.com', accessToken: 'abc' });
		expect(short.problem === undefined && short.settings.redact('abc def')).toBe('abc def');
	});

	test('overrides from Advanced; page size only with a parameter name', () => {
		const result = readServiceSettings({
			baseUrl: 'https://svc.example.com',
			advancedSettings: true,
			cursorParameter: ' after ',
			pageSizeParameter: 'limit',
			pageSize: 500,
			signingKeyEncoding: 'hex',
			signatureEncoding: 'base64',
			webhookSigningSecret: ' whsec_abc ',
		});
		expect(result.problem).toBeUndefined();
		expect(result.problem === undefined && result.settings).toMatchObject({
			cursorParameter: 'after',
			pageSize: { parameter: 'limit', size: 500 },
			signingKeyEncoding: 'hex',
			signatureEncoding: 'base64',
			webhookSigningSecret: 'whsec_abc',
		});
		const withoutName = readServiceSettings({ baseUrl: 'https://svc.example.com', advancedSettings: true, pageSize: 500 });
		expect(withoutName.problem ?? withoutName.settings.pageSize).toBeUndefined();
	});

	test('a Base URL that is not https, or not a URL, is a problem in words', () => {
		expect(readServiceSettings({ baseUrl: 'http://svc.example.com' }).problem).toBe(
			'The Base URL "http://svc.example.com" in the Service API credential must start with https://: the Service is reached over HTTPS only.',
		);
		expect(readServiceSettings({ baseUrl: 'svc.example.com' }).problem).toMatch(/is not a valid URL/);
		expect(readServiceSettings({}).problem).toMatch(/is not a valid URL/);
	});
});
