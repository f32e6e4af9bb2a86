import { useSandboxWithClient } from './useSandbox';

let clockMs = Date.parse('2026-06-01T09:00:00.000Z');
const { sandbox, client } = useSandboxWithClient({ now: () => clockMs, passkeyWindowMinutes: 5 });

const validSso = {
	provider_type: 'OIDC',
	email_domains: ['Buyer.example', 'buyer-group.example'],
	group_role_mapping: [
		{ group: 'procurement-admins', role: 'reader_admin' },
		{ group: 'procurement', role: 'analyst' },
	],
};

const putSso = (body: unknown) => client.request('/v1/reader/sso', { method: 'PUT', body: body as object });

describe('PUT /v1/reader/sso', () => {
	it('refuses with 403 passkey_required when no passkey was confirmed', async () => {
		const reply = await putSso(validSso);
		expect(reply.status).toBe(403);
		expect(reply.json()).toEqual({
			error: {
				code: 'passkey_required',
				message: 'Setting single sign-on needs a recent passkey: a reader admin must confirm their passkey (within the last 5 minutes), then retry.',
			},
		});
		expect(sandbox.control.sso()).toBeUndefined();
	});

	it('refuses when the passkey confirmation is older than the window', async () => {
		sandbox.control.confirmPasskey({ minutesAgo: 6 });
		expect((await putSso(validSso)).json().error.code).toBe('passkey_required');
	});

	it('stores the configuration after a recent passkey and returns it', async () => {
		sandbox.control.confirmPasskey({ minutesAgo: 4 });
		const reply = await putSso(validSso);
		expect(reply.status).toBe(200);
		const stored = {
			provider_type: 'OIDC',
			email_domains: ['buyer.example', 'buyer-group.example'],
			group_role_mapping: validSso.group_role_mapping,
			updated_at: '2026-06-01T09:00:00.000Z',
		};
		expect(reply.json()).toEqual(stored);
		expect(sandbox.control.sso()).toEqual(stored);
		expect((await client.request('/v1/reader/sso')).json()).toEqual(stored);
	});

	it('stops counting the passkey as recent once the window has passed', async () => {
		sandbox.control.confirmPasskey();
		clockMs += 5 * 60_000 + 1000;
		expect((await putSso({ ...validSso, provider_type: 'SAML' })).json().error.code).toBe('passkey_required');
		expect(sandbox.control.sso()?.provider_type).toBe('OIDC');
	});

	it('grants nothing to an unmapped group', () => {
		expect(sandbox.control.rolesForGroups(['procurement'])).toEqual(['analyst']);
		expect(sandbox.control.rolesForGroups(['procurement', 'procurement-admins'])).toEqual(['reader_admin', 'analyst']);
		expect(sandbox.control.rolesForGroups(['finance', 'everyone'])).toEqual([]);
		expect(sandbox.control.rolesForGroups(['procurement'], 'other')).toEqual([]);
	});

	it.each([
		['an unknown provider type', { ...validSso, provider_type: 'LDAP' }, 'provider_type must be "OIDC" or "SAML"; got "LDAP".'],
		['a lower-case provider type', { ...validSso, provider_type: 'oidc' }, 'provider_type must be "OIDC" or "SAML"; got "oidc".'],
		['no email domains', { ...validSso, email_domains: [] }, 'email_domains must be a non-empty list of your email domains, e.g. ["buyer.example"].'],
		['an email address as domain', { ...validSso, email_domains: ['admin@buyer.example'] }, 'email_domains: "admin@buyer.example" is not a domain name (no @, e.g. buyer.example).'],
		['a free-mail domain', { ...validSso, email_domains: ['gmail.com'] }, "email_domains: gmail.com is a public free-mail domain, not your organisation's."],
		['a mapping without role', { ...validSso, group_role_mapping: [{ group: 'a' }] }, 'group_role_mapping[0] needs a non-empty "group" and "role".'],
		['a group mapped twice', { ...validSso, group_role_mapping: [{ group: 'a', role: 'x' }, { group: 'a', role: 'y' }] }, 'group_role_mapping: the group "a" is mapped twice; map each group once.'],
		['a mapping that is not a list', { ...validSso, group_role_mapping: 'a=x' }, 'group_role_mapping must be a list of {"group", "role"} pairs.'],
		['an unknown field', { ...validSso, default_role: 'viewer' }, 'Unknown field default_role: the fields are provider_type, email_domains, group_role_mapping.'],
	])('refuses %s with 422', async (_label, body, message) => {
		sandbox.control.confirmPasskey();
		const reply = await putSso(body);
		expect(reply.status).toBe(422);
		expect(reply.json()).toEqual({ error: { code: 'invalid_sso', message } });
	});

	it('names every problem at once', async () => {
		sandbox.control.confirmPasskey();
		const reply = await putSso({ provider_type: 'X', email_domains: 'buyer.example', group_role_mapping: [] });
		expect(reply.json().error.message).toBe(
			'provider_type must be "OIDC" or "SAML"; got "X". email_domains must be a non-empty list of your email domains, e.g. ["buyer.example"].',
		);
	});
});

describe('POST /v1/reader/policy-runs', () => {
	it('creates a run whose statement appears at the statements export, with findings and no verdict', async () => {
		const reply = await client.request('/v1/reader/policy-runs', { method: 'POST', body: { ke: 'KE-1010', policy: 'tier-1 suppliers' } });
		expect(reply.status).toBe(201);
		const run = reply.json();
		expect(run).toEqual({
			id: expect.stringMatching(/^RUN-/), ke: 'KE-1010', status: 'completed', statement_id: expect.stringMatching(/^STM-/), created_at: expect.any(String),
		});
		const statements = (await client.request('/v1/reader/exports/statements')).json().data;
		const statement = statements.find((s: { id: string }) => s.id === run.statement_id);
		expect(statement).toMatchObject({ run_id: run.id, ke: 'KE-1010' });
		expect(statement.findings.map((f: { code: string }) => f.code)).toEqual(['register_status', 'accounts_filed', 'register_change', 'policy_applied']);
		expect(JSON.stringify(statement)).not.toMatch(/\b(pass|fail|approve|reject|verdict|score|grade)/i);
		expect(sandbox.control.policyRuns()[0].parameters).toEqual({ policy: 'tier-1 suppliers' });
	});

	it('answers 404 for a company that does not share and 422 without a KE', async () => {
		const unshared = await client.request('/v1/reader/policy-runs', { method: 'POST', body: { ke: 'KE-1011' } });
		expect(unshared.status).toBe(404);
		expect(unshared.json().error.code).toBe('not_shared');
		const missing = await client.request('/v1/reader/policy-runs', { method: 'POST', body: { policy: 'x' } });
		expect(missing.status).toBe(422);
		expect(missing.json().error.message).toBe('Send the company as "ke": the KE of a company that shares with you.');
	});
});
