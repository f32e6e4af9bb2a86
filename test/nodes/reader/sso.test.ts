import { useSandbox } from '../../sandbox/useSandbox';
import { documentedBody } from '../../sandbox/requestDialect';
import { READER, runReader } from './helpers';

const sandbox = useSandbox();

const ssoSet = (
	providerType: string,
	domains: string[],
	mapping: Array<{ group: string; role: string }>,
) => ({
	resource: 'sso',
	operation: 'setConfiguration',
	providerType,
	emailDomains: { domain: domains.map((name) => ({ name })) },
	groupRoleMapping: { mapping },
});

const good = ssoSet('SAML', ['Buyer.example', 'buyer-group.example'], [
	{ group: 'procurement-admins', role: 'reader_admin' },
	{ group: 'procurement', role: 'reader_analyst' },
]);
const sentBody = {
	provider_type: 'SAML',
	email_domains: ['buyer.example', 'buyer-group.example'],
	group_role_mapping: [
		{ group: 'procurement-admins', role: 'reader_admin' },
		{ group: 'procurement', role: 'reader_analyst' },
	],
};

describe('SSO > Set Configuration', () => {
	// A Service may refuse with 403 and a code, or ask for the passkey as a 401 challenge (WWW-Authenticate: Passkey).
	const asked = () => sandbox.dialect.answers.passkeyStatus;
	const passkeyMessage = () =>
		asked() === 401
			? 'The Service asks for Passkey authentication for this request (401), not an access token'
			: 'Setting single sign-on needs a recent passkey confirmation (403)';

	it('without a recent passkey: the Service refuses and the node says a reader admin must confirm one (never "access token rejected")', async () => {
		const result = await runReader(sandbox, good);
		const error = result.error(READER)!;
		expect(error.message).toBe(passkeyMessage());
		const said =
			'The Service said: "Setting single sign-on needs a recent passkey: a reader admin must confirm their passkey (within the last 5 minutes), then retry." (PUT /v1/reader/sso)';
		expect(error.description).toBe(
			asked() === 401
				? `It answered "WWW-Authenticate: Passkey realm="service", max_age=300": the access token was not what it refused. Sensitive actions need a recent passkey confirmation: ask a reader admin to confirm their passkey in the Service, then run this node again soon after. ${said}`
				: `Ask a reader admin to confirm their passkey in the Service, then run this node again soon after. ${said}`,
		);
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(0);
		expect(sandbox.control.requests().map((r) => [r.method, r.path, r.reader, r.status])).toEqual([
			['PUT', '/v1/reader/sso', 'reader', asked()],
		]);
		expect(sandbox.control.sso()).toBeUndefined();
	});

	it('a passkey confirmed too long ago is still refused', async () => {
		sandbox.control.confirmPasskey({ minutesAgo: 6 });
		const result = await runReader(sandbox, good);
		expect(result.error(READER)?.message).toBe(passkeyMessage());
		expect(sandbox.control.sso()).toBeUndefined();
	});

	it('after a reader admin confirms the passkey, the configuration is stored and output', async () => {
		sandbox.control.confirmPasskey();
		const result = await runReader(sandbox, good);

		const stored = sandbox.control.sso()!;
		expect(stored).toEqual({ ...sentBody, updated_at: expect.any(String) });
		expect(result.output(READER)).toEqual([{ json: { ...stored }, pairedItem: { item: 0 } }]);
		const [request] = sandbox.control.requests();
		expect([request.method, request.path, request.status]).toEqual(['PUT', '/v1/reader/sso', 200]);
		expect(request.headers['content-type']).toBe('application/json');
		expect(documentedBody(sandbox.dialect.request, 'sso', request.body)).toEqual(sentBody);
		// Spec rule 1: a group that is not mapped grants nothing.
		expect(sandbox.control.rolesForGroups(['procurement', 'finance'])).toEqual(['reader_analyst']);
		expect(sandbox.control.rolesForGroups(['finance'])).toEqual([]);
	});

	it('names every problem before sending anything', async () => {
		sandbox.control.confirmPasskey();
		const before = sandbox.control.sso();
		const result = await runReader(
			sandbox,
			ssoSet('OIDC', ['buyer.example', 'admin@buyer.example', 'https://buyer.example', 'buyer', 'BUYER.example', ''], [
				{ group: 'procurement', role: 'reader_admin' },
				{ group: '', role: 'reader_analyst' },
				{ group: 'finance', role: ' ' },
				{ group: 'procurement', role: 'reader_analyst' },
			]),
		);
		const error = result.error(READER)!;
		expect(error.message).toBe(
			'The SSO configuration has 8 problems: Email domain 2 "admin@buyer.example" contains "@": enter only the part after the @, e.g. buyer.example. … [item 0]',
		);
		expect(error.description).toBe(
			'Fix them in the node\'s fields; nothing was sent. '
				+ 'Email domain 2 "admin@buyer.example" contains "@": enter only the part after the @, e.g. buyer.example. '
				+ 'Email domain 3 "https://buyer.example" is a web address: enter only the domain, e.g. buyer.example. '
				+ 'Email domain 4 "buyer" is not a domain name such as buyer.example. '
				+ 'Email domain 5 "BUYER.example" repeats email domain 1: list each domain once. '
				+ 'Email domain 6 is empty. '
				+ 'Mapping 2 has an empty group: enter the group name exactly as your identity provider sends it. '
				+ 'Mapping 3 (group "finance") has an empty role: enter the reader role this group grants. '
				+ 'Mapping 4 maps the group "procurement" again (already mapped in mapping 1): map each group once.',
		);
		expect(sandbox.control.requests()).toEqual([]);
		expect(sandbox.control.sso()).toEqual(before);
	});

	it('refuses a configuration without email domains before sending anything', async () => {
		const result = await runReader(sandbox, ssoSet('OIDC', [], [{ group: 'g', role: 'r' }]));
		expect(result.error(READER)?.message).toBe(
			'The SSO configuration has a problem: Email Domains is empty: add at least one domain your staff sign in with, e.g. buyer.example. [item 0]',
		);
		expect(sandbox.control.requests()).toEqual([]);
	});

	it('a wrong token is rejected (401) without showing the token', async () => {
		const token = 'svc_not_a_real_token_987';
		const result = await runReader(sandbox, good, { token });
		const error = result.error(READER)!;
		expect(error.message).toBe('The Service rejected the access token (401)');
		expect(JSON.stringify(error)).not.toContain(token);
		expect(sandbox.control.requests().map((r) => r.status)).toEqual([401]);
	});

	it('a reader organisation without a reader admin gets the Service\'s words', async () => {
		const result = await runReader(sandbox, good, { token: sandbox.tokens.noAdmin });
		expect(result.error(READER)?.message).toBe('This reader organisation has no reader admin (403)');
	});
});
