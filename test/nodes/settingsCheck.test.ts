import { applyFindings, checkSettings, PROBE_LIMITS, settingsMessage, type Finding } from '../../nodes/shared/settingsCheck';
import { useSandbox } from '../sandbox/useSandbox';
import { startSandbox } from '../sandbox';
import { defaultDialect } from '../sandbox/dialect';
import { trustCa } from '../tls/trust';
import { settingsCheckProbe } from '../harness/settingsCheckProbe';

// Check Settings against the sandbox as a new user's credential holds it: Base URL and token only.
// test/nodes runs twice: the default dialect, then the alt one (SANDBOX_DIALECT).
const sandbox = useSandbox();

async function check(advanced: Record<string, unknown> = {}, baseUrl = sandbox.baseUrl) {
	const counting = settingsCheckProbe({ baseUrl, accessToken: sandbox.tokens.reader, ...(Object.keys(advanced).length ? { advancedSettings: true, ...advanced } : {}) }, sandbox.ca);
	try {
		const findings = await checkSettings(counting.probe, { baseUrl, advanced });
		return { findings, asked: counting.asked };
	} finally {
		counting.close();
	}
}

const byTopic = (findings: Finding[], topic: string) => findings.find((entry) => entry.topic === topic);
const changes = (findings: Finding[]) =>
	findings.filter((entry) => entry.verdict === 'change').flatMap((entry) => entry.settings.map((s) => [s.concept ? `${s.field}:${s.concept}` : s.field, s.value]));

describe('Check Settings against the sandbox', () => {
	test('a credential with only Base URL and token: what this dialect needs, within the bounds, GETs only, no token in any word', async () => {
		const { findings, asked } = await check();
		const text = JSON.stringify(findings);
		expect(text).not.toContain(sandbox.tokens.reader);
		expect(asked.length).toBeLessThanOrEqual(PROBE_LIMITS.requests);
		const received = sandbox.control.requests();
		expect(received.length).toBe(asked.length);
		expect(new Set(received.map((r) => r.method))).toEqual(new Set(['GET']));
		const { ok, message } = settingsMessage(findings);
		expect(message).not.toContain(sandbox.tokens.reader);
		expect(byTopic(findings, 'Sign-in')?.verdict).toBe('ok');
		expect(byTopic(findings, 'Base URL')?.verdict).toBe('ok');
		expect(findings.filter((entry) => entry.verdict === 'not_checked').map((entry) => entry.topic)).toEqual(
			expect.arrayContaining(['Webhook Signing', 'Invitation Import', 'Request Names of Writes']),
		);
		if (sandbox.dialect.name === 'default') {
			expect(changes(findings)).toEqual([]);
			expect(ok).toBe(true);
			expect(byTopic(findings, 'Cursor Parameter')).toMatchObject({ verdict: 'ok', found: 'cursor' });
			expect(byTopic(findings, 'Page Size Parameter')).toMatchObject({ verdict: 'info', found: 'page_size' });
			expect(byTopic(findings, 'Window Parameter')).toMatchObject({ verdict: 'ok', found: 'window' });
			expect(byTopic(findings, 'CSV Delimiter')).toMatchObject({ verdict: 'ok', found: 'comma' });
			expect(byTopic(findings, 'CSV Header Row on Later Pages')).toMatchObject({ verdict: 'ok', found: 'every' });
			expect(byTopic(findings, 'CSV Byte Order Mark and Line Ends')).toMatchObject({ verdict: 'info', found: 'no BOM, CRLF, utf-8' });
			expect(message).toMatch(/^The credential is right/);
		} else {
			expect(changes(findings)).toEqual([
				['cursorParameter', 'after'],
				['jsonFormat', 'application/json'],
				['requestNames:export.json_format', 'output'],
				['requestNames:export.window', 'within_days'],
			]);
			expect(ok).toBe(false);
			expect(byTopic(findings, 'Page Size Parameter')).toMatchObject({ verdict: 'info', found: 'limit' });
			expect(byTopic(findings, 'CSV Delimiter')).toMatchObject({ verdict: 'ok', found: 'semicolon' });
			expect(byTopic(findings, 'CSV Header Row on Later Pages')).toMatchObject({ verdict: 'ok', found: 'first' });
			expect(byTopic(findings, 'CSV Byte Order Mark and Line Ends')).toMatchObject({ verdict: 'info', found: 'BOM, CRLF, utf-8' });
			expect(byTopic(findings, 'Decisions List Shape')).toMatchObject({ verdict: 'info', found: 'JSON lines (one row a line)' });
			expect(byTopic(findings, 'Error Body Shape')).toMatchObject({ verdict: 'info', found: 'RFC 9457 problem details (application/problem+json)' });
			expect(message).toContain('Set Cursor Parameter to `after`');
			expect(message).toContain('Set JSON Format Value to `application/json`');
			expect(message).toContain('Set Request Names > Exports > JSON Format Parameter to `output`');
			expect(message).toContain('Set Request Names > Expiries > Window Parameter to `within_days`');
			expect(applyFindings({}, findings)).toEqual({
				advancedSettings: true,
				cursorParameter: 'after',
				jsonFormat: 'application/json',
				requestNames: { name: [{ concept: 'export.json_format', serviceName: 'output' }, { concept: 'export.window', serviceName: 'within_days' }] },
			});
		}
	});

	test('with the proposals applied, the check finds nothing more to change', async () => {
		const first = await check();
		const applied = applyFindings({}, first.findings);
		const { findings } = await check(applied);
		expect(changes(findings)).toEqual([]);
		expect(settingsMessage(findings).ok).toBe(true);
	});

	test('a Base URL pasted with /v1/reader: the Base URL to enter, and every later request sent there', async () => {
		const { findings, asked } = await check({}, `${sandbox.baseUrl}/v1/reader`);
		expect(byTopic(findings, 'Base URL')).toMatchObject({ verdict: 'change', found: sandbox.baseUrl, current: `${sandbox.baseUrl}/v1/reader` });
		expect(byTopic(findings, 'Sign-in')?.verdict).toBe('ok');
		expect(settingsMessage(findings).message).toContain(`Set Base URL to \`${sandbox.baseUrl}\``);
		const received = sandbox.control.requests();
		expect(received.slice(0, 3).map((r) => [r.path, r.status])).toEqual([
			['/v1/reader/v1/reader/webhooks/catalogue', 404],
			['/v1/reader/v1/reader/exports/portfolio', 404],
			['/v1/reader/webhooks/catalogue', 200],
		]);
		expect(received.slice(3).every((r) => !r.path.startsWith('/v1/reader/v1/'))).toBe(true);
		expect(asked.length).toBeLessThanOrEqual(PROBE_LIMITS.requests);
	});

	test.each([
		['ignores', 'ignore', 'unknown'],
		['refuses', 'refuse', 'change'],
	] as const)('a window named __proto__ by a Service that %s unknown names: %s', async (_words, unknownNames, verdict) => {
		const own = await startSandbox({ dialect: { ...defaultDialect, request: { ...defaultDialect.request, names: { 'export.window': '__proto__' }, unknownNames } } });
		try {
			trustCa(own.ca);
			const counting = settingsCheckProbe({ baseUrl: own.baseUrl, accessToken: own.tokens.reader }, own.ca);
			const findings = await checkSettings(counting.probe, { baseUrl: own.baseUrl, advanced: {} }).finally(() => counting.close());
			const window = byTopic(findings, 'Window Parameter')!;
			expect(window.verdict).toBe(verdict);
			if (verdict === 'change') {
				// Found because the refusal quotes it, and proposed because its answer differs.
				expect(window.found).toBe('__proto__');
				expect(applyFindings({}, findings)).toEqual({ advancedSettings: true, requestNames: { name: [{ concept: 'export.window', serviceName: '__proto__' }] } });
			} else {
				expect(window.evidence).toContain('cannot be told from these answers');
				expect(applyFindings({}, findings)).toEqual({});
			}
		} finally {
			await own.close();
		}
	});
});
