import fc from 'fast-check';

import { askedWait, parseRateLimitPolicyMs, parseRateLimitResetMs, parseRetryAfterMs, waitWords, ABSURD_WAIT_MS } from '../../nodes/shared/transport/retry';
import { runs } from '../property/fc';

/**
 * The waits a Service asks for, in every form it may say them (issue 44 item 6, issue 45): Retry-After as
 * seconds or an HTTP-date, RateLimit in the structured-field form of draft-ietf-httpapi-ratelimit-headers
 * and the older dictionary, RateLimit-Reset / X-RateLimit-Reset, RateLimit-Policy's window; read the same
 * whatever the spacing, case and order, and said in words, never Infinity or NaN.
 */

const NOW = Date.UTC(2026, 10, 29, 0, 0, 0);
const headers = (values: Record<string, string>) => (name: string) => {
	const found = Object.entries(values).find(([key]) => key.toLowerCase() === name.toLowerCase());
	return found?.[1];
};
const space = fc.constantFrom('', ' ', '  ', '\t');
const seconds = fc.integer({ min: 0, max: 100_000 });
const policyName = fc.constantFrom('"default"', '"burst"', '"daily"', 'default');

describe('the wait a rate-limited answer asks for', () => {
	test('Retry-After as seconds or as an HTTP-date (IMF-fixdate, RFC 850, asctime) is that many milliseconds from now', () => {
		fc.assert(
			fc.property(seconds, fc.constantFrom('seconds', 'imf', 'rfc850', 'asctime'), space, space, (wait, form, before, after) => {
				const at = new Date(NOW + wait * 1000);
				const day = at.toUTCString().slice(0, 3);
				const [, dd, mon, yyyy, time] = at.toUTCString().split(' ');
				const text =
					form === 'seconds' ? String(wait)
						: form === 'imf' ? at.toUTCString()
							: form === 'rfc850' ? `${({ Sun: 'Sunday', Mon: 'Monday', Tue: 'Tuesday', Wed: 'Wednesday', Thu: 'Thursday', Fri: 'Friday', Sat: 'Saturday' } as Record<string, string>)[day]}, ${dd}-${mon}-${yyyy.slice(2)} ${time} GMT`
								: `${day} ${mon} ${dd.replace(/^0/, ' ')} ${time} ${yyyy}`;
				// RFC 850's two-digit year is read as 19xx or 20xx; only forms that keep the century are held to the exact wait.
				const got = parseRetryAfterMs(`${before}${text}${after}`, NOW);
				if (form === 'rfc850') expect(got).toBeDefined();
				else expect(got).toBe(wait * 1000);
			}),
			runs(200),
		);
	});

	test('RateLimit in the structured-field form: the longest t= of the policies with r=0, whatever the order, spacing and other parameters', () => {
		const member = fc.record({ name: policyName, r: fc.integer({ min: 0, max: 3 }), t: seconds, extra: fc.constantFrom('', ';q=100', ';pk=:Zm9v:', ';partition="a,b;c"') });
		fc.assert(
			fc.property(fc.array(member, { minLength: 1, maxLength: 4 }), space, fc.boolean(), (members, gap, rFirst) => {
				const text = members.map((m) => `${m.name}${rFirst ? `;r=${m.r};t=${m.t}` : `;t=${m.t};r=${m.r}`}${m.extra}`).join(`,${gap}`);
				const exhausted = members.filter((m) => m.r === 0).map((m) => m.t * 1000);
				// Quota left in every policy: no wait asked by RateLimit; a 429 then waits RateLimit-Policy's window, a 503 its backoff.
				const expected = exhausted.length ? Math.max(...exhausted) : undefined;
				expect(parseRateLimitResetMs(text, NOW)).toBe(expected);
				const both = headers({ RateLimit: text, 'RateLimit-Policy': '"default";q=100;w=3600' });
				expect(askedWait(both, NOW)).toEqual(expected === undefined ? { header: 'RateLimit-Policy', ms: 3_600_000, value: '"default";q=100;w=3600' } : { header: 'RateLimit', ms: expected, value: text });
				expect(askedWait(both, NOW, 503)).toEqual(expected === undefined ? undefined : { header: 'RateLimit', ms: expected, value: text });
			}),
			runs(300),
		);
	});

	test('the older forms: RateLimit-Remaining/RateLimit-Reset seconds, X-RateLimit-Reset as a Unix time, RateLimit as limit, remaining, reset', () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 3600 }), space, fc.constantFrom('RateLimit-Reset', 'X-RateLimit-Reset', 'RateLimit'), fc.boolean(), (wait, gap, header, unix) => {
				const value = header === 'RateLimit' ? `limit=100,${gap}remaining=0,${gap}reset=${wait}` : unix ? String(NOW / 1000 + wait) : String(wait);
				expect(askedWait(headers({ [header]: value, 'RateLimit-Remaining': '0' }), NOW)).toEqual({ header, ms: wait * 1000, value });
			}),
			runs(200),
		);
	});

	test('RateLimit-Policy alone: its longest window is waited for on a 429, never on a 5xx', () => {
		expect(askedWait(headers({ 'RateLimit-Policy': '"burst";q=5;w=10' }), NOW, 503)).toBeUndefined();
		expect(parseRateLimitPolicyMs('"default";q=100;w=60, "daily";q=1000;w=86400')).toBe(86_400_000);
		expect(askedWait(headers({ 'RateLimit-Policy': '"burst";q=5;w=10' }), NOW)).toEqual({ header: 'RateLimit-Policy', ms: 10_000, value: '"burst";q=5;w=10' });
		expect(askedWait(headers({ 'RateLimit-Policy': 'nonsense' }), NOW)).toBeUndefined();
	});

	test('Retry-After wins over the rate-limit headers', () => {
		expect(askedWait(headers({ 'Retry-After': '3', RateLimit: '"default";r=0;t=30' }), NOW)).toEqual({ header: 'Retry-After', ms: 3000, value: '3' });
	});

	test('any text: never a throw, never NaN or Infinity, never negative; words never Infinity or NaN', () => {
		const text = fc.oneof(fc.string({ maxLength: 200 }), fc.stringMatching(/^[0-9 ;,=rtw"a-z.:-]{0,200}$/), fc.nat({ max: 500 }).map((n) => '9'.repeat(n)));
		fc.assert(
			fc.property(text, (value) => {
				for (const ms of [parseRetryAfterMs(value, NOW), parseRateLimitResetMs(value, NOW), parseRateLimitPolicyMs(value)]) {
					if (ms === undefined) continue;
					expect(Number.isFinite(ms)).toBe(true);
					expect(ms).toBeGreaterThanOrEqual(0);
					expect(waitWords(ms)).not.toMatch(/Infinity|NaN/);
				}
			}),
			runs(500),
		);
	});

	test('absurd waits (400 digits, the year 9999) are "more than a year"; a sane one in whole seconds', () => {
		expect(waitWords(parseRetryAfterMs('9'.repeat(400), NOW)!)).toBe('more than a year');
		expect(waitWords(parseRetryAfterMs('Fri, 31 Dec 9999 23:59:59 GMT', NOW)!)).toBe('more than a year');
		expect(waitWords(parseRateLimitResetMs(`"default";r=0;t=${'9'.repeat(400)}`, NOW)!)).toBe('more than a year');
		expect(waitWords(ABSURD_WAIT_MS + 1)).toBe('more than a year');
		expect(waitWords(61_000)).toBe('61 seconds');
		expect(waitWords(1000)).toBe('1 second');
	});

	test('a header of 100,000 characters of separators is read in linear time', () => {
		const started = process.hrtime.bigint();
		for (const value of [';'.repeat(100_000), `${'"'.repeat(50_000)}`, `${'a=;'.repeat(33_000)}`, `${' '.repeat(100_000)}x`]) {
			parseRateLimitResetMs(value.slice(0, 4096), NOW);
			parseRetryAfterMs(value, NOW);
		}
		expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(500);
	});
});
