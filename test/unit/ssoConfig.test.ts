import { checkSsoConfiguration, emailDomainProblem } from '../../nodes/ServiceReader/actions/sso/ssoConfig';

describe('checkSsoConfiguration', () => {
	it('normalises a good configuration: provider in capitals, domains trimmed and in lower case', () => {
		expect(
			checkSsoConfiguration({
				providerType: 'oidc',
				emailDomains: [' Buyer.Example ', 'xn--bcher-kva.example'],
				mapping: [
					{ group: ' admins ', role: ' reader_admin ' },
					{ group: 'Admins', role: 'reader_analyst' },
				],
			}),
		).toEqual({
			ok: true,
			config: {
				provider_type: 'OIDC',
				email_domains: ['buyer.example', 'xn--bcher-kva.example'],
				// Group names compare exactly: identity providers may treat case as significant.
				group_role_mapping: [
					{ group: 'admins', role: 'reader_admin' },
					{ group: 'Admins', role: 'reader_analyst' },
				],
			},
		});
	});

	it('allows an empty mapping: unmapped groups then grant nothing', () => {
		const check = checkSsoConfiguration({ providerType: 'SAML', emailDomains: ['buyer.example'], mapping: [] });
		expect(check).toEqual({
			ok: true,
			config: { provider_type: 'SAML', email_domains: ['buyer.example'], group_role_mapping: [] },
		});
	});

	it('names every problem, in field order', () => {
		expect(
			checkSsoConfiguration({
				providerType: 'LDAP',
				emailDomains: ['buyer.example', 'Buyer.Example', 42, null],
				mapping: [{ group: 'a', role: 'r1' }, { group: '', role: '' }, { group: 'a', role: 'r2' }, {}],
			}),
		).toEqual({
			ok: false,
			problems: [
				'Provider Type must be OIDC or SAML, not "LDAP".',
				'Email domain 2 "Buyer.Example" repeats email domain 1: list each domain once.',
				'Email domain 3 "42" is not a domain name such as buyer.example.',
				'Email domain 4 is empty.',
				'Mapping 2 has an empty group: enter the group name exactly as your identity provider sends it.',
				'Mapping 2 has an empty role: enter the reader role this group grants.',
				'Mapping 3 maps the group "a" again (already mapped in mapping 1): map each group once.',
				'Mapping 4 has an empty group: enter the group name exactly as your identity provider sends it.',
				'Mapping 4 has an empty role: enter the reader role this group grants.',
			],
		});
	});

	it('refuses a configuration without domains', () => {
		expect(checkSsoConfiguration({ providerType: 'OIDC', emailDomains: [], mapping: [] })).toEqual({
			ok: false,
			problems: ['Email Domains is empty: add at least one domain your staff sign in with, e.g. buyer.example.'],
		});
	});
});

describe('emailDomainProblem', () => {
	it.each(['buyer.example', 'mail.buyer.co.uk', 'a-b.example', 'x1.io', 'xn--bcher-kva.example'])('accepts %s', (domain) => {
		expect(emailDomainProblem(domain)).toBeUndefined();
	});

	it.each([
		['', 'is empty'],
		['ann@buyer.example', 'contains "@": enter only the part after the @, e.g. buyer.example'],
		['https://buyer.example', 'is a web address: enter only the domain, e.g. buyer.example'],
		['buyer.example, seller.example', 'contains spaces, commas or semicolons: enter one domain per entry'],
		['buyer', 'is not a domain name such as buyer.example'],
		['-buyer.example', 'is not a domain name such as buyer.example'],
		['buyer-.example', 'is not a domain name such as buyer.example'],
		['buyer..example', 'is not a domain name such as buyer.example'],
		['buyer.example.', 'is not a domain name such as buyer.example'],
		['buyer.123', 'is not a domain name such as buyer.example'],
		['büyer.example', 'is not a domain name such as buyer.example'],
		[`${'a'.repeat(64)}.example`, 'is not a domain name such as buyer.example'],
	])('refuses %j', (domain, problem) => {
		expect(emailDomainProblem(domain)).toBe(problem);
	});
});
