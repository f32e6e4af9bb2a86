/**
 * Checks a single sign-on configuration before it is sent with PUT /v1/reader/sso (docs/service-choices.md:
 * SSO). Pure: no n8n types. Every problem is named, so the user can fix them all at once.
 * Role names are not shown in the spec, so roles are free text; only emptiness is refused.
 */

export type SsoProviderType = 'OIDC' | 'SAML';

export interface SsoConfigInput {
	providerType: unknown;
	emailDomains: unknown[];
	mapping: Array<{ group?: unknown; role?: unknown }>;
}

export interface SsoConfiguration {
	provider_type: SsoProviderType;
	email_domains: string[];
	group_role_mapping: Array<{ group: string; role: string }>;
}

export type SsoCheck = { ok: true; config: SsoConfiguration } | { ok: false; problems: string[] };

// Letters, digits and hyphens per label, at least two labels, a letters-only top-level label.
// Internationalised domains must be entered in their xn-- form, as identity providers send them.
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

function text(value: unknown): string {
	if (typeof value === 'string') return value.trim();
	if (typeof value === 'number') return String(value);
	return '';
}

/** Why `value` is not a plain email domain, or undefined when it is one. */
export function emailDomainProblem(value: string): string | undefined {
	if (value === '') return 'is empty';
	if (value.includes('@')) return 'contains "@": enter only the part after the @, e.g. buyer.example';
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return 'is a web address: enter only the domain, e.g. buyer.example';
	if (/\s|,|;/.test(value)) return 'contains spaces, commas or semicolons: enter one domain per entry';
	if (!DOMAIN.test(value.toLowerCase())) return 'is not a domain name such as buyer.example';
	return undefined;
}

export function checkSsoConfiguration(input: SsoConfigInput): SsoCheck {
	const problems: string[] = [];

	const provider = text(input.providerType).toUpperCase();
	if (provider !== 'OIDC' && provider !== 'SAML') {
		problems.push(`Provider Type must be OIDC or SAML, not "${text(input.providerType)}".`);
	}

	const domains: string[] = [];
	if (input.emailDomains.length === 0) {
		problems.push('Email Domains is empty: add at least one domain your staff sign in with, e.g. buyer.example.');
	}
	input.emailDomains.forEach((raw, index) => {
		const domain = text(raw);
		const problem = emailDomainProblem(domain);
		const label = `Email domain ${index + 1}${domain ? ` "${domain}"` : ''}`;
		if (problem) {
			problems.push(`${label} ${problem}.`);
			return;
		}
		const normalised = domain.toLowerCase();
		const earlier = domains.indexOf(normalised);
		if (earlier >= 0) {
			problems.push(`${label} repeats email domain ${earlier + 1}: list each domain once.`);
			return;
		}
		domains.push(normalised);
	});

	const mapping: Array<{ group: string; role: string }> = [];
	const groupAt = new Map<string, number>();
	input.mapping.forEach((entry, index) => {
		const group = text(entry.group);
		const role = text(entry.role);
		const label = `Mapping ${index + 1}`;
		if (group === '') problems.push(`${label} has an empty group: enter the group name exactly as your identity provider sends it.`);
		if (role === '') {
			problems.push(`${label}${group ? ` (group "${group}")` : ''} has an empty role: enter the reader role this group grants.`);
		}
		if (group === '') return;
		const earlier = groupAt.get(group);
		if (earlier !== undefined) {
			problems.push(`${label} maps the group "${group}" again (already mapped in mapping ${earlier + 1}): map each group once.`);
			return;
		}
		groupAt.set(group, index);
		if (role !== '') mapping.push({ group, role });
	});

	if (problems.length > 0) return { ok: false, problems };
	return {
		ok: true,
		config: { provider_type: provider as SsoProviderType, email_domains: domains, group_role_mapping: mapping },
	};
}
