import fc from 'fast-check';

import { probeAnswer } from '../../nodes/shared/transport/probe';
import { PROBE_LIMITS } from '../../nodes/shared/settingsCheck/types';
import { runs } from '../property/fc';
import { expectNoToken, expectNoTokenPart } from '../property/tokenDecoders';
import { encodeToken, TOKEN_FORMS } from '../sandbox/tokenForms';

/**
 * Check Settings parses what the Service sent and quotes it. A token written in any form inside a JSON
 * string, whose escapes JSON escapes again (`\\u005F` is the text `\u005F`, which is `_`), shows only
 * once parsed: the probe's answer holds it in no form after parsing, and what else the answer held
 * (a 20-digit integer as written, other strings) is as the Service sent it.
 */

const ALPHABET = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/+_-.=~'];
const token = fc.array(fc.constantFrom(...ALPHABET), { minLength: 8, maxLength: 40 }).map((chars) => chars.join(''));
const BIG = '12345678901234567890123';

const textOf = async (body: string, secret: string) => Buffer.from((await probeAnswer(400, {}, Buffer.from(body, 'latin1'), 5_000, Date.now(), secret)).body).toString('latin1');

describe('a token behind a JSON escape of an escape', () => {
	test('parsed, the answer holds the token in no form; the rest is as sent', async () => {
		await fc.assert(
			fc.asyncProperty(token, fc.constantFrom(...TOKEN_FORMS), fc.string({ maxLength: 30 }), async (secret, form, around) => {
				const message = `${around} ${encodeToken(secret, form)} ${around}`;
				const body = `{"code":"bad_token","count":${BIG},"message":${JSON.stringify(message)},"other":"a\\\\b"}`;
				const text = await textOf(body, secret);
				const parsed = JSON.parse(text) as Record<string, string>;
				expectNoToken(parsed.message, secret);
				expect(text).toContain(`"count":${BIG}`);
				expect(parsed.code).toBe('bad_token');
				expect(parsed.other).toBe('a\\b');
			}),
			runs(300),
		);
	});

	test('a body cut inside the literal keeps no start of the token as typed', async () => {
		await fc.assert(
			fc.asyncProperty(token, fc.nat(60), async (secret, into) => {
				const head = '{"message":"';
				const escaped = JSON.stringify(secret).slice(1, -1);
				const cutAt = Math.min(into, escaped.length - 1);
				const pad = PROBE_LIMITS.bodyBytes - head.length - cutAt;
				const body = `${head}${' '.repeat(pad)}${escaped}"}`;
				const text = await textOf(body, secret);
				expectNoTokenPart(text.slice(-200), secret);
			}),
			runs(50),
		);
	});

	test('an answer without the token is the bytes the Service sent', async () => {
		const body = '{"message":"caf\\u00e9 \\\\u005F \\"quoted\\"","n":00012345678901234567890}';
		expect(await textOf(body, 'svc_reader_Zk9/p+Q2xR7wLm4T')).toBe(body);
	});
});
