import fc from 'fast-check';

import { checkSettings, PROBE_LIMITS, settingsMessage, type ProbeAnswer, type ProbeRequest } from '../../nodes/shared/settingsCheck';
import { runs } from '../property/fc';
import { answer } from './settingsCheckFakes';

/**
 * Check Settings against a hostile Service: every answer drawn (status, content type, body of CSV,
 * JSON, markup or noise, cut or whole, headers such as a next cursor or a challenge), or a failure
 * without an answer. The check never throws, never asks more than PROBE_LIMITS.requests, proposes a
 * change only with a value, and the message is one text whatever came back.
 */
const body = fc.oneof(
	fc.string({ maxLength: 300 }),
	fc.constant('ke,name\r\nKE-1,A\r\nKE-2,B\r\nKE-3,C\r\n'),
	fc.constant('\uFEFFke;name\nKE-1;"a ""quoted"" ; name"\nKE-2;B\n'),
	fc.constant('"unclosed,quote\r\n'),
	fc.json({ maxDepth: 3 }),
	fc.constant('{"data": [{"a": 1}, {"a": 2}]}'),
	fc.constant('{"a":1}\n{"a":2}\n'),
	fc.constant('<!doctype html><html><body>Sign in</body></html>'),
	fc.constant(''),
);
const drawnAnswer: fc.Arbitrary<ProbeAnswer | 'fail'> = fc.oneof(
	{ weight: 1, arbitrary: fc.constant<'fail'>('fail') },
	{
		weight: 12,
		arbitrary: fc.record({
			status: fc.constantFrom(200, 200, 200, 204, 301, 302, 400, 401, 403, 404, 410, 422, 429, 500),
			type: fc.constantFrom('text/csv', 'application/json', 'application/x-ndjson', 'application/problem+json', 'text/html', 'text/plain', ''),
			body,
			truncated: fc.boolean(),
			cursor: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
			challenge: fc.option(fc.constantFrom('Bearer', 'ApiKey header="X-Api-Key"', 'Token', 'Passkey', 'Key realm="x"', 'Negotiate', ', ,="'), { nil: undefined }),
			location: fc.option(fc.constantFrom('/v1/reader/webhooks/catalogue', 'https://elsewhere.example/x', '../up/v1/reader/webhooks/catalogue', 'not a url'), { nil: undefined }),
			rateLimit: fc.boolean(),
		}).map(({ status, type, body: text, truncated, cursor, challenge, location, rateLimit }) =>
			answer(status, text, {
				...(type ? { 'content-type': type } : {}),
				...(cursor !== undefined ? { 'x-service-next-cursor': cursor } : {}),
				...(challenge !== undefined ? { 'www-authenticate': challenge } : {}),
				...(location !== undefined ? { location } : {}),
				...(rateLimit ? { 'ratelimit-remaining': '3' } : {}),
			}, truncated),
		),
	},
);

test('any answers: no throw, within the request bound, changes with values, one message', async () => {
	await fc.assert(
		fc.asyncProperty(fc.array(drawnAnswer, { minLength: 1, maxLength: 60 }), fc.constantFrom('https://svc.example', 'https://svc.example/api/v1/reader', 'https://svc.example/a/b/'), async (answers, baseUrl) => {
			const asked: ProbeRequest[] = [];
			const probe = async (request: ProbeRequest) => {
				const drawn = answers[asked.length % answers.length];
				asked.push(request);
				if (drawn === 'fail') throw new Error('connection reset');
				return drawn;
			};
			const findings = await checkSettings(probe, { baseUrl, advanced: {} });
			expect(asked.length).toBeLessThanOrEqual(PROBE_LIMITS.requests);
			for (const request of asked) {
				// Only the Base URL's origin, by path or absolute URL there.
				expect(request.path.startsWith('/v1/') || request.path.startsWith('https://svc.example/')).toBe(true);
			}
			for (const entry of findings.filter((f) => f.verdict === 'change')) {
				expect(entry.settings.length).toBeGreaterThan(0);
				expect(entry.found).toBeDefined();
			}
			// Every answer is read by the checks themselves: none falls back to "could not read".
			expect(findings.filter((f) => f.evidence.includes('the check could not read')).map((f) => f.evidence)).toEqual([]);
			const { ok, message } = settingsMessage(findings);
			expect(typeof message).toBe('string');
			if (ok) expect(findings.some((f) => f.verdict === 'change')).toBe(false);
		}),
		runs(300),
	);
});
