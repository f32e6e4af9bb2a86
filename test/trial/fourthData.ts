// Seed data of the fourth Service: deterministic, with dates relative to the `now` it is given.

export const DAY_MS = 86_400_000;

export interface Finding {
	code: string;
	title: string;
	observed_on: string;
	source: string;
}

export interface ReportVersion {
	ks: string;
	version: number;
	issuedAt: string;
}

export interface Company {
	ke: string;
	name: string;
	registrationNumber: string;
	country: string;
	tier: 'A' | 'B' | 'C';
	registerStatus: 'active' | 'struck_off' | 'in_liquidation' | 'licence_suspended';
	decisionDue: boolean;
	sharedSince: string;
	/** false once the share was revoked or ended: reader routes answer 404 for the company. */
	shared: boolean;
	/** Oldest first; the last one is the current record. */
	reports: ReportVersion[];
	findings: Finding[];
}

export interface Invitation {
	invitationId: string;
	companyName: string;
	registrationNumber: string;
	contactEmail: string;
	reference: string;
	status: 'pending' | 'opened' | 'accepted' | 'declined' | 'bounced' | 'expired';
	sentAt: string;
	statusChangedAt: string;
	expiresOn: string;
}

export interface Expiry {
	kind: 'share' | 'invitation' | 'request' | 'review';
	ke: string;
	subject: string;
	endsOn: string;
}

export interface Decision {
	decisionId: string;
	ke: string;
	outcome: 'approved' | 'approved_with_conditions' | 'rejected' | 'on_hold';
	decidedAt: string;
	decidedBy: string;
	note: string;
	packId: string | null;
}

export interface AuditPack {
	packId: string;
	ke: string;
	decisionId: string;
	createdAt: string;
}

export interface Statement {
	statementId: string;
	runId: string;
	ke: string;
	ks: string;
	policy: string;
	createdAt: string;
	observations: Array<{ rule: string; observed: boolean; finding_codes: string[] }>;
}

export interface Seed {
	companies: Company[];
	invitations: Invitation[];
	expiries: Expiry[];
	decisions: Decision[];
	packs: AuditPack[];
	statements: Statement[];
}

// Names a spreadsheet would read as a formula are among them on purpose (CSV rule 2 of section 2).
const NAMES = [
	'Acme Fasteners Ltd', 'Birchwood Logistics', 'Castell Metals plc', '=Equals Partners LLP', 'Dunmore Textiles',
	'Elm Street Bakery', 'Fjord Shipping AS', '+Plus Components', 'Granite Works Ltd', 'Harbour Freight',
	'Iona Packaging', '@Home Supplies Ltd', 'Juniper Software', 'Kestrel Engineering', 'Lumen Lighting',
	'Marlow Chemicals', 'Northgate Foods', 'Oakridge Timber', '-Minus Tools Ltd', 'Pennine Plastics',
	'Quay Street Print', 'Rowan "Quoted" Co', 'Severn Cables', 'Tay\tTab Traders', 'Ulster Glass',
	// Shares that ended: reader routes answer 404 for these.
	'Vale Textiles', 'Wren Hauliers', 'Yarrow Mills',
];
const STATUSES: Company['registerStatus'][] = ['active', 'active', 'active', 'struck_off', 'active', 'in_liquidation', 'active', 'licence_suspended'];
const TIERS: Company['tier'][] = ['A', 'B', 'C', 'B', 'A'];

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const dateOnly = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const pad = (n: number, width: number) => String(n).padStart(width, '0');

export const keOf = (index: number) => `KE-${pad(40_001_000 + index * 7, 8)}`;
const ksOf = (index: number, version: number) => `KS-${pad(70_500_000 + index * 13, 8)}-v${version}`;

export function seed(now: Date): Seed {
	const t = now.getTime();
	const companies: Company[] = NAMES.map((name, i) => {
		const versions = i % 4 === 1 ? 2 : 1;
		const reports = Array.from({ length: versions }, (_, v) => ({
			ks: ksOf(i, v + 1),
			version: v + 1,
			issuedAt: iso(t - (200 - i * 3 - v * 60) * DAY_MS),
		}));
		const registerStatus = STATUSES[i % STATUSES.length];
		return {
			ke: keOf(i),
			name,
			registrationNumber: `${['GB', 'IE', 'NO', 'DE'][i % 4]}${pad(1_200_000 + i * 917, 8)}`,
			country: ['GB', 'IE', 'NO', 'DE'][i % 4],
			tier: TIERS[i % TIERS.length],
			registerStatus,
			decisionDue: i % 3 === 0,
			sharedSince: iso(t - (400 - i * 11) * DAY_MS),
			shared: i < 25,
			reports,
			findings: findingsFor(i, registerStatus, t),
		};
	});

	const invitationStatuses: Invitation['status'][] = ['pending', 'opened', 'accepted', 'declined', 'bounced', 'expired'];
	const invitations: Invitation[] = Array.from({ length: 14 }, (_, i) => {
		const status = invitationStatuses[i % invitationStatuses.length];
		return {
			invitationId: `inv_${pad(5300 + i, 6)}`,
			companyName: i === 4 ? '=cmd|calc Supplies' : `Prospect Supplier ${i + 1} Ltd`,
			registrationNumber: `GB${pad(3_400_000 + i * 71, 8)}`,
			contactEmail: `buyer.contact${i + 1}@prospect${i + 1}.example`,
			reference: `PO-${2026_000 + i}`,
			status,
			sentAt: iso(t - (40 - i) * DAY_MS),
			statusChangedAt: iso(t - (20 - i) * DAY_MS),
			expiresOn: dateOnly(t + (10 + i * 6) * DAY_MS),
		};
	});

	// Ends in 0–30, 31–60, 61–90 and beyond 90 days, and a few already past: the windows differ.
	const expiries: Expiry[] = [];
	const shared = companies.filter((company) => company.shared);
	shared.forEach((company, i) => {
		expiries.push({ kind: 'review', ke: company.ke, subject: `Annual review of ${company.name}`, endsOn: dateOnly(t + (2 + i * 4) * DAY_MS) });
		if (i % 3 === 0) expiries.push({ kind: 'share', ke: company.ke, subject: `Share granted by ${company.name}`, endsOn: dateOnly(t + (45 + i * 2) * DAY_MS) });
		if (i % 5 === 2) expiries.push({ kind: 'request', ke: company.ke, subject: `Document request to ${company.name}`, endsOn: dateOnly(t + (i * 5 - 20) * DAY_MS) });
	});
	for (const invitation of invitations.filter((inv) => inv.status === 'pending' || inv.status === 'opened')) {
		expiries.push({ kind: 'invitation', ke: '', subject: `Invitation ${invitation.invitationId} to ${invitation.companyName}`, endsOn: invitation.expiresOn });
	}
	expiries.sort((a, b) => (a.endsOn === b.endsOn ? a.subject.localeCompare(b.subject) : a.endsOn < b.endsOn ? -1 : 1));

	const outcomes: Decision['outcome'][] = ['approved', 'approved_with_conditions', 'rejected', 'on_hold'];
	const decisions: Decision[] = [];
	const packs: AuditPack[] = [];
	for (let i = 0; i < 27; i += 2) {
		const decisionId = `dec_${pad(880 + i, 5)}`;
		const packId = i % 4 === 0 || i === 26 ? `pk_${(0x3a7f00 + i * 0x111).toString(16)}` : null;
		decisions.push({
			decisionId, ke: companies[i].ke, outcome: outcomes[(i / 2) % outcomes.length],
			decidedAt: iso(t - (90 - i) * DAY_MS), decidedBy: `reviewer${(i % 3) + 1}@reader.example`,
			note: i === 6 ? '=SUM(A1:A9) looked fine' : `Reviewed ${companies[i].reports.at(-1)?.ks}`, packId,
		});
		if (packId) packs.push({ packId, ke: companies[i].ke, decisionId, createdAt: iso(t - (89 - i) * DAY_MS) });
	}

	const statements: Statement[] = [0, 5, 10].map((i, n) => runPolicy(companies[i], 'standard-onboarding', `run_${pad(100 + n, 6)}`, `st_${pad(100 + n, 6)}`, iso(t - (30 - n) * DAY_MS)));
	return { companies, invitations, expiries, decisions, packs, statements };
}

function findingsFor(i: number, status: Company['registerStatus'], t: number): Finding[] {
	const findings: Finding[] = [];
	if (status !== 'active') findings.push({ code: `register.${status}`, title: `Company register shows ${status.replace('_', ' ')}`, observed_on: dateOnly(t - (5 + i) * DAY_MS), source: 'company register' });
	if (i % 2 === 0) findings.push({ code: 'accounts.overdue', title: 'Annual accounts filed late', observed_on: dateOnly(t - (60 + i) * DAY_MS), source: 'filing history' });
	if (i % 7 === 3) findings.push({ code: 'sanctions.name_match', title: 'Possible name match on a sanctions list', observed_on: dateOnly(t - 14 * DAY_MS), source: 'sanctions screening' });
	return findings;
}

/** The reader's own policy run on the company's current record: which rules its findings meet, no verdict. */
export function runPolicy(company: Company, policy: string, runId: string, statementId: string, createdAt: string): Statement {
	const codes = company.findings.map((finding) => finding.code);
	const rule = (name: string, prefix: string) => {
		const matched = codes.filter((code) => code.startsWith(prefix));
		return { rule: name, observed: matched.length > 0, finding_codes: matched };
	};
	return {
		statementId, runId, ke: company.ke, ks: company.reports.at(-1)?.ks ?? '', policy, createdAt,
		observations: [rule('register_status_not_active', 'register.'), rule('late_accounts', 'accounts.'), rule('sanctions_screening_hit', 'sanctions.')],
	};
}
