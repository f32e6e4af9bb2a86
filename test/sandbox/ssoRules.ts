import { freeMailDomains } from './invitationChecks';
import type { SsoConfig } from './types';

const domainPattern = /^(?!-)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})*\.[a-z]{2,}$/;
const knownFields = ['provider_type', 'email_domains', 'group_role_mapping'];

export type SsoInput = Omit<SsoConfig, 'updated_at'>;

/** Validates an SSO configuration; returns it normalised, or every problem in plain words. */
export function checkSsoConfig(body: Record<string, unknown>): { config?: SsoInput; problems: string[] } {
	const problems: string[] = [];
	const unknown = Object.keys(body).filter((k) => !knownFields.includes(k));
	if (unknown.length) problems.push(`Unknown field ${unknown.join(', ')}: the fields are ${knownFields.join(', ')}.`);

	const provider = body.provider_type;
	if (provider !== 'OIDC' && provider !== 'SAML') {
		problems.push(`provider_type must be "OIDC" or "SAML"; got ${JSON.stringify(provider ?? null)}.`);
	}

	const domains: string[] = [];
	if (!Array.isArray(body.email_domains) || body.email_domains.length === 0) {
		problems.push('email_domains must be a non-empty list of your email domains, e.g. ["buyer.example"].');
	} else {
		for (const value of body.email_domains) {
			const domain = typeof value === 'string' ? value.trim().toLowerCase() : '';
			if (!domainPattern.test(domain)) {
				problems.push(`email_domains: ${JSON.stringify(value)} is not a domain name (no @, e.g. buyer.example).`);
			} else if (freeMailDomains.has(domain)) {
				problems.push(`email_domains: ${domain} is a public free-mail domain, not your organisation's.`);
			} else if (!domains.includes(domain)) {
				domains.push(domain);
			}
		}
	}

	const mapping: Array<{ group: string; role: string }> = [];
	if (!Array.isArray(body.group_role_mapping)) {
		problems.push('group_role_mapping must be a list of {"group", "role"} pairs.');
	} else {
		body.group_role_mapping.forEach((entry: unknown, index: number) => {
			const item = entry as { group?: unknown; role?: unknown } | null;
			const group = typeof item?.group === 'string' ? item.group.trim() : '';
			const role = typeof item?.role === 'string' ? item.role.trim() : '';
			if (!group || !role) {
				problems.push(`group_role_mapping[${index}] needs a non-empty "group" and "role".`);
			} else if (mapping.some((m) => m.group === group)) {
				problems.push(`group_role_mapping: the group "${group}" is mapped twice; map each group once.`);
			} else {
				mapping.push({ group, role });
			}
		});
	}
	if (problems.length) return { problems };
	return { problems, config: { provider_type: provider as SsoInput['provider_type'], email_domains: domains, group_role_mapping: mapping } };
}

/** Roles granted to a member of these identity-provider groups; an unmapped group grants nothing. */
export function rolesForGroups(config: SsoConfig | undefined, groups: readonly string[]): string[] {
	if (!config) return [];
	const roles = config.group_role_mapping.filter((m) => groups.includes(m.group)).map((m) => m.role);
	return [...new Set(roles)];
}
