// The write routes of the fourth Service: webhook endpoints, invitations (single and CSV import), policy runs, SSO.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import { runPolicy, type Company, type Invitation, type Seed } from './fourthData';
import { Fault, mediaType, readBody, readJsonObject } from './fourthWire';

export const EVENT_TYPES = [
	'share_granted', 'share_revoked', 'report_superseded', 'finding_new', 'ledger_high', 'ledger_medium', 'ledger_low',
	'reader_tier_changed', 'reader_decision_due', 'reader_invitation_status', 'questionnaire_answered',
];
export const READER_ROLES = ['reader_viewer', 'reader_analyst', 'reader_admin'];

export interface WebhookEndpoint {
	endpointId: string;
	endpointUrl: string;
	eventTypes: string[];
	createdAt: string;
	/** Kept to sign deliveries; answered once, at creation. */
	secret: string;
}

export interface WriteState {
	seed: Seed;
	now: () => Date;
	endpoints: WebhookEndpoint[];
	sso: Record<string, unknown> | null;
	serial: number;
}

const iso = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
const nextId = (state: WriteState, prefix: string) => `${prefix}_${String(++state.serial).padStart(6, '0')}${randomBytes(2).toString('hex')}`;

function onlyFields(body: Record<string, unknown>, allowed: string[]): void {
	const unknown = Object.keys(body).filter((name) => !allowed.includes(name));
	if (unknown.length > 0) throw new Fault(422, 'unknown_field', `Unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. This route takes: ${allowed.join(', ')}.`, { fields: unknown });
}

function text(body: Record<string, unknown>, field: string, required: boolean): string | undefined {
	const value = body[field];
	if (value === undefined && !required) return undefined;
	if (typeof value !== 'string' || value.trim() === '') throw new Fault(422, 'invalid_field', `${field} is required and must be a non-empty string.`, { field });
	return value.trim();
}

export async function createWebhook(state: WriteState, req: IncomingMessage) {
	const body = await readJsonObject(req);
	onlyFields(body, ['endpoint_url', 'event_types']);
	const endpointUrl = text(body, 'endpoint_url', true) as string;
	let url: URL;
	try {
		url = new URL(endpointUrl);
	} catch {
		throw new Fault(422, 'invalid_field', 'endpoint_url is not a URL.', { field: 'endpoint_url' });
	}
	if (url.protocol !== 'https:') throw new Fault(422, 'https_required', 'endpoint_url must use https: this Service delivers events over HTTPS only.', { field: 'endpoint_url' });
	let eventTypes = EVENT_TYPES;
	if (body.event_types !== undefined) {
		if (!Array.isArray(body.event_types) || body.event_types.length === 0 || body.event_types.some((type) => typeof type !== 'string')) {
			throw new Fault(422, 'invalid_field', 'event_types must be a non-empty list of event type names from the catalogue.', { field: 'event_types' });
		}
		const unknown = (body.event_types as string[]).filter((type) => !EVENT_TYPES.includes(type));
		if (unknown.length > 0) throw new Fault(422, 'unknown_event_type', `Not in the catalogue: ${unknown.join(', ')}.`, { field: 'event_types' });
		eventTypes = body.event_types as string[];
	}
	const endpoint: WebhookEndpoint = { endpointId: nextId(state, 'wep'), endpointUrl, eventTypes, createdAt: iso(state.now()), secret: `whsec_${randomBytes(32).toString('base64')}` };
	state.endpoints.push(endpoint);
	return {
		endpoint: {
			endpoint_id: endpoint.endpointId, endpoint_url: endpoint.endpointUrl, event_types: endpoint.eventTypes,
			created_at: endpoint.createdAt, signing_secret: endpoint.secret,
		},
		notice: 'signing_secret is shown this once. Store it now: it cannot be read again.',
	};
}

const FREE_MAIL = new Set(['gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'yahoo.com', 'icloud.com', 'proton.me']);
const REGISTRATION = /^[A-Z]{2}\d{6,10}$/;

interface InvitationInput {
	company_name?: string;
	registration_number?: string;
	contact_email?: string;
	reference?: string;
}

/** Every problem with one would-be invitation, each in a sentence. */
function invitationProblems(state: WriteState, input: InvitationInput): string[] {
	const problems: string[] = [];
	if (!input.company_name) problems.push('The company name is missing.');
	const registration = (input.registration_number ?? '').replace(/\s/g, '').toUpperCase();
	if (!registration) problems.push('The registration number is missing.');
	else if (!REGISTRATION.test(registration)) problems.push(`The registration number "${input.registration_number}" is not a two-letter country code followed by 6 to 10 digits.`);
	const email = input.contact_email ?? '';
	const at = email.lastIndexOf('@');
	if (!email) problems.push("The contact's work email is missing.");
	else if (at < 1 || !email.slice(at + 1).includes('.')) problems.push(`"${email}" is not an email address.`);
	else if (FREE_MAIL.has(email.slice(at + 1).toLowerCase())) problems.push(`"${email}" is a personal mailbox; give a work email at the company's own domain.`);
	if (registration && state.seed.companies.some((company) => company.shared && company.registrationNumber === registration)) {
		problems.push('This company already shares its record with you; no invitation is needed.');
	} else if (registration && state.seed.invitations.some((inv) => inv.registrationNumber === registration && (inv.status === 'pending' || inv.status === 'opened'))) {
		problems.push('An open invitation to this company already exists.');
	}
	return problems;
}

function addInvitation(state: WriteState, input: InvitationInput): Invitation {
	const now = state.now();
	const invitation: Invitation = {
		invitationId: nextId(state, 'inv'),
		companyName: input.company_name ?? '',
		registrationNumber: (input.registration_number ?? '').replace(/\s/g, '').toUpperCase(),
		contactEmail: input.contact_email ?? '',
		reference: input.reference ?? '',
		status: 'pending',
		sentAt: iso(now),
		statusChangedAt: iso(now),
		expiresOn: new Date(now.getTime() + 30 * 86_400_000).toISOString().slice(0, 10),
	};
	state.seed.invitations.push(invitation);
	return invitation;
}

export function invitationJson(inv: Invitation) {
	return {
		invitation_id: inv.invitationId, company_name: inv.companyName, registration_number: inv.registrationNumber,
		contact_email: inv.contactEmail, reference: inv.reference, status: inv.status, sent_at: inv.sentAt,
		status_changed_at: inv.statusChangedAt, expires_on: inv.expiresOn,
	};
}

export async function createInvitation(state: WriteState, req: IncomingMessage) {
	const body = await readJsonObject(req);
	const fields = ['company_name', 'registration_number', 'contact_email', 'reference'];
	onlyFields(body, fields);
	const bad = fields.filter((field) => body[field] !== undefined && typeof body[field] !== 'string');
	if (bad.length > 0) throw new Fault(422, 'invalid_field', `${bad.join(', ')} must be text.`, { fields: bad });
	const input = body as InvitationInput;
	const problems = invitationProblems(state, input);
	if (problems.length > 0) throw new Fault(422, 'invitation_refused', problems.join(' '), { problems });
	return { invitation: invitationJson(addInvitation(state, input)) };
}

/** A comma- or tab-separated file with quotes ("" inside quotes), without a regular expression. */
export function parseDelimited(source: string, delimiter: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let cell = '';
	let quoted = false;
	for (let i = 0; i < source.length; i++) {
		const ch = source[i];
		if (quoted) {
			if (ch === '"' && source[i + 1] === '"') (cell += '"'), i++;
			else if (ch === '"') quoted = false;
			else cell += ch;
		} else if (ch === '"' && cell === '') quoted = true;
		else if (ch === delimiter) row.push(cell), (cell = '');
		else if (ch === '\n' || ch === '\r') {
			if (ch === '\r' && source[i + 1] === '\n') i++;
			row.push(cell), rows.push(row), (row = []), (cell = '');
		} else cell += ch;
	}
	if (cell !== '' || row.length > 0) row.push(cell), rows.push(row);
	return rows.filter((cells) => cells.some((value) => value.trim() !== ''));
}

export async function importInvitations(state: WriteState, req: IncomingMessage) {
	const type = mediaType(req);
	const delimiter = type === 'text/csv' ? ',' : type === 'text/tab-separated-values' ? '\t' : '';
	if (!delimiter) throw new Fault(415, 'unsupported_media_type', 'Send the import as Content-Type: text/csv (comma-separated) or text/tab-separated-values, with a header line.');
	const source = (await readBody(req)).toString('utf8').replace(/^\uFEFF/, '');
	const [header, ...lines] = parseDelimited(source, delimiter);
	const columns = ['company_name', 'registration_number', 'contact_email', 'reference'];
	const names = (header ?? []).map((name) => name.trim().toLowerCase());
	const missing = columns.filter((column) => column !== 'reference' && !names.includes(column));
	if (missing.length > 0) throw new Fault(422, 'missing_columns', `The header line lacks ${missing.join(', ')}. Columns: ${columns.join(', ')} (reference is optional).`, { columns: missing });
	if (lines.length === 0) throw new Fault(422, 'empty_import', 'The file has a header line but no rows.');
	if (lines.length > 1000) throw new Fault(422, 'too_many_rows', `The file has ${lines.length} rows; import at most 1000 at once.`);
	const rows = lines.map((cells, index) => {
		const input: InvitationInput = {};
		columns.forEach((column) => {
			const at = names.indexOf(column);
			const value = at >= 0 ? (cells[at] ?? '').trim() : '';
			if (value) (input as Record<string, string>)[column] = value;
		});
		const problems = invitationProblems(state, input);
		const line = index + 2;
		if (problems.length > 0) return { line, company_name: input.company_name ?? null, outcome: 'refused', problems };
		return { line, company_name: input.company_name ?? null, outcome: 'invited', invitation_id: addInvitation(state, input).invitationId, problems: [] };
	});
	return {
		import_id: nextId(state, 'imp'),
		invited: rows.filter((row) => row.outcome === 'invited').length,
		refused: rows.filter((row) => row.outcome === 'refused').length,
		rows,
	};
}

export async function createPolicyRun(state: WriteState, req: IncomingMessage, sharedCompany: (ke: string) => Company) {
	const body = await readJsonObject(req);
	onlyFields(body, ['ke', 'policy']);
	const ke = text(body, 'ke', true) as string;
	const policy = text(body, 'policy', false) ?? 'standard-onboarding';
	const company = sharedCompany(ke);
	const statement = runPolicy(company, policy, nextId(state, 'run'), nextId(state, 'st'), iso(state.now()));
	state.seed.statements.push(statement);
	return {
		run: { run_id: statement.runId, ke, ks: statement.ks, policy, state: 'completed', created_at: statement.createdAt, statement_id: statement.statementId },
	};
}

export async function putSso(state: WriteState, req: IncomingMessage) {
	const body = await readJsonObject(req);
	onlyFields(body, ['provider', 'email_domains', 'group_roles']);
	const provider = body.provider;
	if (provider !== 'oidc' && provider !== 'saml') throw new Fault(422, 'invalid_field', 'provider must be "oidc" or "saml".', { field: 'provider' });
	const domains = body.email_domains;
	if (!Array.isArray(domains) || domains.length === 0 || domains.some((domain) => typeof domain !== 'string' || !domain.includes('.'))) {
		throw new Fault(422, 'invalid_field', 'email_domains must be a non-empty list of domain names.', { field: 'email_domains' });
	}
	const roles = body.group_roles;
	if (typeof roles !== 'object' || roles === null || Array.isArray(roles)) throw new Fault(422, 'invalid_field', 'group_roles must map group names to reader roles.', { field: 'group_roles' });
	const badRoles = Object.entries(roles).filter(([, role]) => typeof role !== 'string' || !READER_ROLES.includes(role));
	if (badRoles.length > 0) throw new Fault(422, 'unknown_role', `Groups mapped to no known role: ${badRoles.map(([group]) => group).join(', ')}. Roles: ${READER_ROLES.join(', ')}.`, { field: 'group_roles' });
	state.sso = { provider, email_domains: domains, group_roles: roles, unmapped_groups_grant: 'nothing', updated_at: iso(state.now()) };
	return { sso: state.sso };
}
