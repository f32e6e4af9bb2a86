/** The reader organisations the sandbox knows, one access token each. */
export type ReaderKey = 'reader' | 'other' | 'noExports' | 'noAdmin';
export const readerKeys: readonly ReaderKey[] = ['reader', 'other', 'noExports', 'noAdmin'];

export type Severity = 'high' | 'medium' | 'low' | 'info';
export type InvitationStatus = 'sent' | 'opened' | 'accepted' | 'declined' | 'bounced' | 'expired';
export const observableInvitationStatuses: readonly InvitationStatus[] = [
	'opened', 'accepted', 'declined', 'bounced', 'expired',
];

export interface Company {
	ke: string;
	ks: string;
	name: string;
	registrationNumber: string;
	/** Register status, e.g. active, struck_off. */
	status: string;
}

export type ShareState = 'shared' | 'revoked' | 'ended';

export interface Share {
	ke: string;
	state: ShareState;
	grantedAt: string;
	changedAt: string;
	/** Date (YYYY-MM-DD) the share ends, if it has an end. */
	endsOn?: string;
	/** The reader's own tier for the company under its rules. */
	tier: string;
	decisionDue: boolean;
}

export interface Invitation {
	id: string;
	company_name: string;
	registration_number: string;
	work_email: string;
	reader_reference: string;
	status: InvitationStatus;
	created_at: string;
	updated_at: string;
	/** Date (YYYY-MM-DD) an unanswered invitation expires. */
	expires_on: string;
}

export interface Decision {
	id: string;
	ke: string;
	decision: string;
	notes: string;
	decided_by: string;
	decided_at: string;
	pack_id: string;
}

export interface Statement {
	id: string;
	run_id: string;
	ke: string;
	findings: Finding[];
	created_at: string;
}

export interface Finding {
	code: string;
	text: string;
}

export interface PolicyRun {
	id: string;
	ke: string;
	status: 'completed';
	statement_id: string;
	created_at: string;
	/** Extra fields the reader sent, kept as given. */
	parameters: Record<string, unknown>;
}

/** A dated item of the expiries export that is not derived from shares or invitations. */
export interface ExpiryItem {
	kind: 'request' | 'review';
	reference: string;
	ke: string;
	endsOn: string;
}

export interface SsoConfig {
	provider_type: 'OIDC' | 'SAML';
	email_domains: string[];
	group_role_mapping: Array<{ group: string; role: string }>;
	updated_at: string;
}

export interface WebhookEndpoint {
	id: string;
	url: string;
	secret: string;
	created_at: string;
}

export interface AccessLogEntry {
	at: string;
	reader: ReaderKey;
	/** Which export: record, portfolio, expiries, decisions, statements, invitations, audit_pack. */
	export: string;
	path: string;
	ke?: string;
	format?: string;
	page?: number;
}

export interface ReaderOrg {
	key: ReaderKey;
	name: string;
	token: string;
	exportsEnabled: boolean;
	readerAdmin: boolean;
	/** Epoch ms of the reader admin's last passkey confirmation. */
	passkeyConfirmedAt?: number;
	sso?: SsoConfig;
	shares: Map<string, Share>;
	invitations: Invitation[];
	decisions: Decision[];
	statements: Statement[];
	policyRuns: PolicyRun[];
	expiryItems: ExpiryItem[];
	endpoints: WebhookEndpoint[];
	accessLog: AccessLogEntry[];
}

export interface ReceivedRequest {
	at: string;
	method: string;
	path: string;
	query: Record<string, string>;
	/** Request headers without Authorization (tokens are never kept). */
	headers: Record<string, string | string[] | undefined>;
	body: string;
	/** Which reader's token authenticated the request, if any. */
	reader?: ReaderKey;
	/** Status code answered; undefined for a dropped connection. */
	status?: number;
}
