/**
 * The names the nodes send where the spec shows none, as concepts: each a row the credential's
 * Request Names can map (docs/service-choices.md: "What the nodes send"). A table only: the
 * transport applies it (transport/requestNames.ts), the credential's fields list it (advancedSettings.ts).
 */
/** The requests whose names are settable: the call's `names`. */
export type RequestScope = 'invitation' | 'webhook' | 'policyRun' | 'sso' | 'export';

interface Concept {
	scope: RequestScope;
	/** Where the documented name sits: a body path of names (an array's entries share their parent's path), or the query. */
	path: readonly string[];
	/** `type`: not a name but the JSON:API `data.type` of the request's body (envelopes.ts); set, it sends the body as JSON:API. */
	where: 'body' | 'query' | 'type';
	label: string;
}

/** Every settable name: its id (the credential's stored value) and the documented name it stands for (the path's last part). */
export const REQUEST_CONCEPTS = {
	'invitation.company_name': { scope: 'invitation', path: ['company_name'], where: 'body', label: 'Invitation > Company Name' },
	'invitation.registration_number': { scope: 'invitation', path: ['registration_number'], where: 'body', label: 'Invitation > Registration Number' },
	'invitation.work_email': { scope: 'invitation', path: ['work_email'], where: 'body', label: 'Invitation > Work Email' },
	'invitation.reader_reference': { scope: 'invitation', path: ['reader_reference'], where: 'body', label: 'Invitation > Reader Reference' },
	'webhook.url': { scope: 'webhook', path: ['url'], where: 'body', label: 'Webhook Endpoint > URL' },
	'policyRun.ke': { scope: 'policyRun', path: ['ke'], where: 'body', label: 'Policy Run > KE' },
	'sso.provider_type': { scope: 'sso', path: ['provider_type'], where: 'body', label: 'SSO > Provider Type' },
	'sso.email_domains': { scope: 'sso', path: ['email_domains'], where: 'body', label: 'SSO > Email Domains' },
	'sso.group_role_mapping': { scope: 'sso', path: ['group_role_mapping'], where: 'body', label: 'SSO > Group to Role Mapping' },
	'sso.group_role_mapping.group': { scope: 'sso', path: ['group_role_mapping', 'group'], where: 'body', label: 'SSO > Mapping Group' },
	'sso.group_role_mapping.role': { scope: 'sso', path: ['group_role_mapping', 'role'], where: 'body', label: 'SSO > Mapping Role' },
	'export.window': { scope: 'export', path: ['window'], where: 'query', label: 'Expiries > Window Parameter' },
	'export.json_format': { scope: 'export', path: ['format'], where: 'query', label: 'Exports > JSON Format Parameter' },
	'invitation.type': { scope: 'invitation', path: ['data', 'type'], where: 'type', label: 'Invitation > JSON:API Type' },
	'webhook.type': { scope: 'webhook', path: ['data', 'type'], where: 'type', label: 'Webhook Endpoint > JSON:API Type' },
	'policyRun.type': { scope: 'policyRun', path: ['data', 'type'], where: 'type', label: 'Policy Run > JSON:API Type' },
	'sso.type': { scope: 'sso', path: ['data', 'type'], where: 'type', label: 'SSO > JSON:API Type' },
} as const satisfies Record<string, Concept>;

export type RequestConcept = keyof typeof REQUEST_CONCEPTS;
export const CONCEPT_IDS = Object.keys(REQUEST_CONCEPTS) as RequestConcept[];

export function conceptLabel(concept: RequestConcept): string {
	return REQUEST_CONCEPTS[concept].label;
}

/** The documented name of a concept: what is sent while Request Names does not map it. */
export function documentedName(concept: RequestConcept): string {
	const path = REQUEST_CONCEPTS[concept].path;
	return path[path.length - 1];
}

