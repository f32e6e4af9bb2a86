import { applyFindings, checkSettings, PROBE_LIMITS, type Finding } from '../../nodes/shared/settingsCheck';
import { settingsCheckProbe } from '../harness/settingsCheckProbe';
import { dialectFromEnvironment, dialectNamed } from '../sandbox/dialect';
import { useSandbox } from '../sandbox/useSandbox';
import type { Sandbox } from '../sandbox';

// Check Settings against a sandbox that publishes its API document (/openapi.json in its own request
// names) and one that does not. test/nodes runs twice: the default dialect, then the alt one.
const dialect = dialectNamed(dialectFromEnvironment());
const alt = dialect.name === 'alt';

async function check(sandbox: Sandbox, advanced: Record<string, unknown> = {}) {
	const counting = settingsCheckProbe({ baseUrl: sandbox.baseUrl, accessToken: sandbox.tokens.reader, ...(Object.keys(advanced).length ? { advancedSettings: true, ...advanced } : {}) }, sandbox.ca);
	try {
		const findings = await checkSettings(counting.probe, { baseUrl: sandbox.baseUrl, advanced });
		return { findings, asked: counting.asked };
	} finally {
		counting.close();
	}
}

const byTopic = (findings: Finding[], topic: string) => findings.find((entry) => entry.topic === topic)!;
const row = (concept: string, label: string, value: string) => ({ field: 'requestNames', concept, label: `Request Names > ${label}`, value });
const BODIES = 'The API document at /openapi.json shows the request bodies of /v1/reader/invitations, /v1/reader/webhooks, /v1/reader/policy-runs, /v1/reader/sso.';
const WRITES_NOT_CHECKED =
	'Invitation > Company Name, Invitation > Registration Number, Invitation > Work Email, Invitation > Reader Reference, Webhook Endpoint > URL, Policy Run > KE, SSO > Provider Type, SSO > Email Domains, SSO > Group to Role Mapping, SSO > Mapping Group, SSO > Mapping Role: only sending a body shows the names the Service reads; the check sends none. A refusal naming a field names the Request Names row.';
const SIGNING_NOT_CHECKED =
	'Secret Encoding, Signature Encoding, Signature Timestamp Unit: only creating a webhook endpoint shows the secret, and only a delivery its signature; the check creates nothing. On Detect (the default) the Service Trigger learns them from the first genuine delivery, and names a set one that does not fit.';

describe('with the API document published', () => {
	const sandbox = useSandbox({ dialect: { ...dialect, answers: { ...dialect.answers, apiDocument: true } } });

	test('Request Names of Writes: the rows to set with the document\'s names, or that they match; asked last, within the bounds', async () => {
		const { findings, asked } = await check(sandbox);
		expect(asked.length).toBeLessThanOrEqual(PROBE_LIMITS.requests);
		const received = sandbox.control.requests();
		expect(received.slice(-1).map((r) => [r.method, r.path, r.status])).toEqual([['GET', '/openapi.json', 200]]);
		const mapping = 'SSO > Mapping Group (group), SSO > Mapping Role (role)';
		if (!alt) {
			expect(byTopic(findings, 'Request Names of Writes')).toEqual({
				topic: 'Request Names of Writes',
				verdict: 'ok',
				settings: [],
				found: 'as documented',
				evidence: `${BODIES} Sent as documented: Invitation > Company Name (company_name), Invitation > Registration Number (registration_number), Invitation > Work Email (work_email), Invitation > Reader Reference (reader_reference), Webhook Endpoint > URL (url), Policy Run > KE (ke), SSO > Provider Type (provider_type), SSO > Email Domains (email_domains), SSO > Group to Role Mapping (group_role_mapping), ${mapping}.`,
			});
			return;
		}
		const settings = [
			row('invitation.company_name', 'Invitation > Company Name', 'companyName'),
			row('invitation.registration_number', 'Invitation > Registration Number', 'registrationNumber'),
			row('invitation.work_email', 'Invitation > Work Email', 'workEmail'),
			row('invitation.reader_reference', 'Invitation > Reader Reference', 'readerReference'),
			row('webhook.url', 'Webhook Endpoint > URL', 'target'),
			row('policyRun.ke', 'Policy Run > KE', 'company'),
			row('sso.provider_type', 'SSO > Provider Type', 'providerType'),
			row('sso.email_domains', 'SSO > Email Domains', 'emailDomains'),
			row('sso.group_role_mapping', 'SSO > Group to Role Mapping', 'groupRoles'),
		];
		expect(byTopic(findings, 'Request Names of Writes')).toEqual({
			topic: 'Request Names of Writes',
			verdict: 'change',
			settings,
			found: settings.map((entry) => entry.value).join(', '),
			evidence: `${BODIES} Its names: ${settings.map((entry) => `${entry.label.slice('Request Names > '.length)} "${entry.value}"`).join(', ')}. Sent as documented: ${mapping}.`,
		});
		// Applied, the rows are the dialect's names, and a second check finds nothing more to set for the writes.
		const applied = applyFindings({}, findings);
		expect(applied.requestNames).toEqual({
			name: expect.arrayContaining(settings.map((entry) => ({ concept: entry.concept, serviceName: entry.value }))),
		});
		const again = await check(sandbox, applied);
		expect(byTopic(again.findings, 'Request Names of Writes')).toMatchObject({ verdict: 'ok', found: 'as documented' });
	});

	test('Webhook Signing: the example secret\'s likely encoding, as a hint only (Detect stays)', async () => {
		const { findings } = await check(sandbox);
		const [value, shown, why] = alt ? ['hex', 'Hex', 'it is 64 hex characters'] : ['base64', 'Base64 (Optional Whsec_ Prefix)', 'it starts with whsec_ followed by base64 text'];
		expect(byTopic(findings, 'Webhook Signing')).toEqual({
			topic: 'Webhook Signing',
			verdict: 'not_checked',
			current: 'Detect; Detect (Hex or Base64); Detect (Seconds or Milliseconds)',
			settings: [{ field: 'signingKeyEncoding', label: 'Secret Encoding', value, shown }],
			found: value,
			evidence: `${SIGNING_NOT_CHECKED} An example secret in the API document at /openapi.json is likely ${shown} (${why}): Secret Encoding may be set to it, but Detect (the default) finds it from the first delivery.`,
		});
		expect(applyFindings({}, findings).signingKeyEncoding).toBeUndefined();
	});
});

describe('without an API document (as the default and alt dialects are)', () => {
	const sandbox = useSandbox();

	test('the conventional paths asked last, each 404; both findings word for word as before', async () => {
		const { findings } = await check(sandbox);
		const received = sandbox.control.requests();
		expect(received.slice(-4).map((r) => [r.path, r.status])).toEqual([
			['/openapi.json', 404],
			['/v1/openapi.json', 404],
			['/.well-known/openapi.json', 404],
			['/swagger.json', 404],
		]);
		expect(byTopic(findings, 'Request Names of Writes')).toEqual({ topic: 'Request Names of Writes', verdict: 'not_checked', settings: [], evidence: WRITES_NOT_CHECKED });
		expect(byTopic(findings, 'Webhook Signing')).toEqual({ topic: 'Webhook Signing', verdict: 'not_checked', settings: [], current: 'Detect; Detect (Hex or Base64); Detect (Seconds or Milliseconds)', evidence: SIGNING_NOT_CHECKED });
	});
});
