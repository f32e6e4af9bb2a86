import type { Alert, EmitOptions, ProbeOptions } from './alerts';
import type { SandboxContext } from './context';
import type { Delivery } from './deliveries';
import type { PageFault, RouteFault } from './faults';
import { ksFor } from './seed';
import { randomToken } from './state';
import { tamperedCopy } from './records';
import { rolesForGroups } from './ssoRules';
import { newEndpoint, targetUrlProblem } from './routes/webhooks';
import {
	observableInvitationStatuses,
	type AccessLogEntry, type Company, type Invitation, type InvitationStatus, type PolicyRun, type ReaderKey,
	type ReceivedRequest, type Share, type SsoConfig, type Statement, type WebhookEndpoint,
} from './types';

export interface GrantOptions {
	reader?: ReaderKey;
	tier?: string;
	decisionDue?: boolean;
	/** Days from today until the share ends (shows in the expiries export). */
	endsInDays?: number;
}

export interface RecordView {
	ke: string;
	ks: string;
	/** Bytes the export route serves now. */
	bytes: Buffer;
	/** Bytes that were signed (differ from `bytes` after tamperRecord). */
	signedBytes: Buffer;
	sha256: string;
	signature: string;
}

/** In-process control of the sandbox: drive the Service's side and observe what it received and sent. */
export interface SandboxControl {
	addCompany(input: { name: string; registrationNumber?: string; status?: string; ke?: string }): Company;
	companies(): Company[];
	/** The company grants a share to the reader: emits share_granted. */
	grantShare(ke: string, options?: GrantOptions): Alert;
	/** The company revokes the share: emits share_revoked; reader routes for the KE answer 404 from then on. */
	revokeShare(ke: string, reader?: ReaderKey): Alert;
	/** The share reaches its end: emits share_revoked; reader routes for the KE answer 404 from then on. */
	endShare(ke: string, reader?: ReaderKey): Alert;
	shares(reader?: ReaderKey): Share[];
	/**
	 * The reader's rules move a shared company to another tier (emits reader_tier_changed) or make its
	 * review due (emits reader_decision_due): the portfolio row changes, the share stays.
	 */
	changeShare(ke: string, change: { tier?: string; decisionDue?: boolean }, reader?: ReaderKey): Alert[];
	setReaderFlags(flags: { exportsEnabled?: boolean; readerAdmin?: boolean }, reader?: ReaderKey): void;
	/** The reader admin confirms their passkey, `minutesAgo` minutes ago (default now). */
	confirmPasskey(options?: { minutesAgo?: number; reader?: ReaderKey }): void;
	/** Moves an invitation to a new status: emits reader_invitation_status (with ids.organisation when `ke` is given). */
	setInvitationStatus(invitationId: string, status: InvitationStatus, options?: { ke?: string }): Alert;
	invitations(reader?: ReaderKey): Invitation[];
	statements(reader?: ReaderKey): Statement[];
	policyRuns(reader?: ReaderKey): PolicyRun[];
	sso(reader?: ReaderKey): SsoConfig | undefined;
	/** Roles an identity-provider user in these groups gets; unmapped groups grant nothing. */
	rolesForGroups(groups: string[], reader?: ReaderKey): string[];
	/** Registers an endpoint without HTTP (e.g. a test receiver); returns it with its secret. */
	addWebhookEndpoint(url: string, reader?: ReaderKey): WebhookEndpoint;
	removeWebhookEndpoint(endpointId: string, reader?: ReaderKey): void;
	/** A reader admin rotates the access token (to `token`, or a new random one): only the new one works from now on. Returns it. */
	rotateToken(reader?: ReaderKey, token?: string): string;
	/** Registered endpoints, secrets included (test fixture). */
	webhookEndpoints(reader?: ReaderKey): WebhookEndpoint[];
	failPage(fault: PageFault): void;
	/** Any route answers as a hostile or broken Service would (redirect, hang, stall, oversize, ...). */
	failRoute(fault: RouteFault): void;
	clearFaults(): void;
	emit(eventType: string, ids?: Record<string, string>, options?: EmitOptions): Alert;
	/** Sends an alert again, same alert_id and body, freshly signed. */
	redeliver(alertId: string): Alert;
	/** One delivery signed correctly but with a timestamp `ageSeconds` (default 600) in the past. */
	sendStale(eventType: string, ids: Record<string, string>, options?: ProbeOptions): Alert;
	/** One delivery whose body is changed after signing (mode body) or whose v1 is corrupted (mode signature). */
	sendTampered(eventType: string, ids: Record<string, string>, options?: ProbeOptions): Alert;
	deliveries(filter?: { alertId?: string; reader?: ReaderKey }): Delivery[];
	/** Resolves when every delivery of the alert has succeeded or given up. */
	whenSettled(alertId: string): Promise<Delivery[]>;
	/** Resolves once `check` holds for the delivery list (re-checked after every attempt). */
	waitForDeliveries(check: (deliveries: Delivery[]) => boolean): Promise<Delivery[]>;
	accessLog(reader?: ReaderKey): AccessLogEntry[];
	companyAccessLog(ke: string): AccessLogEntry[];
	/** Requests the Service received (Authorization removed), optionally filtered. */
	requests(filter?: { method?: string; path?: string }): ReceivedRequest[];
	clearRequests(): void;
	record(ke: string): RecordView;
	/** Makes the export route serve a modified copy of the record; the published signature stays the original. */
	tamperRecord(ke: string): void;
	/** Re-signs the record as a new version (new KS) and emits report_superseded to readers it is shared with. */
	supersedeRecord(ke: string): Alert[];
}

export function createControl(sandbox: SandboxContext): SandboxControl {
	const { state, alerts, deliveries, faults, routeFaults } = sandbox;
	const reader = (key: ReaderKey = 'reader') => {
		const found = state.readers[key];
		if (!found) throw new Error(`Unknown reader "${key}": use one of ${Object.keys(state.readers).join(', ')}.`);
		return found;
	};
	const endShare = (ke: string, key: ReaderKey, next: 'revoked' | 'ended'): Alert => {
		const share = reader(key).shares.get(ke);
		if (share?.state !== 'shared') throw new Error(`${ke} is not shared with reader ${key}; nothing to ${next === 'revoked' ? 'revoke' : 'end'}.`);
		state.setShare(key, { ...share, state: next, changedAt: state.nowIso() });
		return alerts.emit('share_revoked', { organisation: ke }, { reader: key });
	};

	return {
		addCompany(input) {
			const ke = input.ke ?? state.nextId('KE-N');
			return state.addCompany({
				ke,
				ks: ksFor(ke),
				name: input.name,
				registrationNumber: input.registrationNumber ?? `REG-${ke}`,
				status: input.status ?? 'active',
			});
		},
		companies: () => [...state.companies.values()].map((c) => ({ ...c })),
		grantShare(ke, options = {}) {
			const key = options.reader ?? 'reader';
			state.company(ke);
			const previous = reader(key).shares.get(ke);
			if (previous?.state === 'shared') throw new Error(`${ke} is already shared with reader ${key}.`);
			state.setShare(key, {
				ke,
				state: 'shared',
				grantedAt: state.nowIso(),
				changedAt: state.nowIso(),
				endsOn: options.endsInDays === undefined ? undefined : state.dateInDays(options.endsInDays),
				tier: options.tier ?? 'tier-2',
				decisionDue: options.decisionDue ?? false,
			});
			return alerts.emit('share_granted', { organisation: ke }, { reader: key });
		},
		revokeShare: (ke, key = 'reader') => endShare(ke, key, 'revoked'),
		endShare: (ke, key = 'reader') => endShare(ke, key, 'ended'),
		shares: (key) => [...reader(key).shares.values()].map((s) => ({ ...s })),
		changeShare(ke, change, key = 'reader') {
			const share = reader(key).shares.get(ke);
			if (share?.state !== 'shared') throw new Error(`${ke} is not shared with reader ${key}; nothing to change.`);
			// A field left out (or undefined) keeps its value.
			state.setShare(key, { ...share, tier: change.tier ?? share.tier, decisionDue: change.decisionDue ?? share.decisionDue, changedAt: state.nowIso() });
			const sent: Alert[] = [];
			if (change.tier !== undefined && change.tier !== share.tier) {
				sent.push(alerts.emit('reader_tier_changed', { organisation: ke }, { reader: key }));
			}
			if (change.decisionDue === true && !share.decisionDue) {
				sent.push(alerts.emit('reader_decision_due', { organisation: ke }, { reader: key }));
			}
			return sent;
		},
		setReaderFlags(flags, key) {
			const org = reader(key);
			if (flags.exportsEnabled !== undefined) org.exportsEnabled = flags.exportsEnabled;
			if (flags.readerAdmin !== undefined) org.readerAdmin = flags.readerAdmin;
		},
		confirmPasskey(options = {}) {
			reader(options.reader).passkeyConfirmedAt = state.clock() - (options.minutesAgo ?? 0) * 60_000;
		},
		setInvitationStatus(invitationId, status, options = {}) {
			if (!observableInvitationStatuses.includes(status)) {
				throw new Error(`Invitation status must be one of ${observableInvitationStatuses.join(', ')}; got "${status}".`);
			}
			for (const org of Object.values(state.readers)) {
				const invitation = org.invitations.find((i) => i.id === invitationId);
				if (!invitation) continue;
				invitation.status = status;
				invitation.updated_at = state.nowIso();
				const ids: Record<string, string> = { invitation: invitationId };
				if (options.ke) ids.organisation = options.ke;
				return alerts.emit('reader_invitation_status', ids, { reader: org.key });
			}
			throw new Error(`No invitation ${invitationId} in the sandbox.`);
		},
		invitations: (key) => reader(key).invitations.map((i) => ({ ...i })),
		statements: (key) => reader(key).statements.map((s) => ({ ...s })),
		policyRuns: (key) => reader(key).policyRuns.map((r) => ({ ...r })),
		sso: (key) => reader(key).sso,
		rolesForGroups: (groups, key) => rolesForGroups(reader(key).sso, groups),
		addWebhookEndpoint(url, key) {
			const problem = targetUrlProblem(url);
			if (problem) throw new Error(problem);
			const endpoint = newEndpoint(url, state.nowIso(), sandbox.dialect);
			reader(key).endpoints.push(endpoint);
			return { ...endpoint };
		},
		removeWebhookEndpoint(endpointId, key) {
			const endpoints = reader(key).endpoints;
			const index = endpoints.findIndex((e) => e.id === endpointId);
			if (index < 0) throw new Error(`Reader ${key ?? 'reader'} has no webhook endpoint ${endpointId}.`);
			endpoints.splice(index, 1);
		},
		rotateToken(key, token) {
			const found = reader(key);
			found.token = token ?? randomToken(`svc_${found.key}`);
			return found.token;
		},
		webhookEndpoints: (key) => reader(key).endpoints.map((e) => ({ ...e })),
		failPage: (fault) => faults.add(fault),
		failRoute: (fault) => routeFaults.add(fault),
		clearFaults: () => {
			faults.clear();
			routeFaults.clear();
		},
		emit: (eventType, ids, options) => alerts.emit(eventType, ids, options),
		redeliver: (alertId) => alerts.redeliver(alertId),
		sendStale: (eventType, ids, options) => alerts.stale(eventType, ids, options),
		sendTampered: (eventType, ids, options) => alerts.tampered(eventType, ids, options),
		deliveries: (filter) => deliveries.list(filter),
		whenSettled: (alertId) => deliveries.whenSettled(alertId),
		waitForDeliveries: (check) => deliveries.waitFor(() => {
			const list = deliveries.list();
			return check(list) ? list : undefined;
		}),
		accessLog: (key) => reader(key).accessLog.map((e) => ({ ...e })),
		companyAccessLog: (ke) => state.companyLog(ke),
		requests(filter = {}) {
			return state.requests
				.filter((r) => (filter.method === undefined || r.method === filter.method)
					&& (filter.path === undefined || r.path === filter.path))
				.map((r) => ({ ...r }));
		},
		clearRequests: () => {
			state.requests.length = 0;
		},
		record(ke) {
			const signed = state.recordForKe(ke);
			return { ke, ks: signed.ks, bytes: signed.servedBytes, signedBytes: signed.signedBytes, sha256: signed.sha256, signature: signed.signature };
		},
		tamperRecord(ke) {
			const signed = state.recordForKe(ke);
			state.replaceRecord({ ...signed, servedBytes: tamperedCopy(signed.signedBytes) });
		},
		supersedeRecord(ke) {
			const { ks } = state.company(ke);
			const version = Number(/-v(\d+)$/.exec(ks)?.[1] ?? '1') + 1;
			const updated = state.supersede(ke, `${ks.replace(/-v\d+$/, '')}-v${version}`);
			return Object.values(state.readers)
				.filter((org) => state.isShared(org.key, ke))
				.map((org) => alerts.emit('report_superseded', { organisation: ke, report: updated.ks }, { reader: org.key }));
		},
	};
}
