import type { SandboxState } from './state';
import type { Company, InvitationStatus, ReaderKey, Share } from './types';

/**
 * Demo companies. Several names would read as spreadsheet formulas or need CSV quoting, so every export
 * exercises the formula guard and the quoting of commas, quotes and line breaks.
 */
export const demoCompanies: ReadonlyArray<Omit<Company, 'ks'>> = [
	{ ke: 'KE-1001', name: 'Acme Supplies Ltd', registrationNumber: 'GB01234567', status: 'active' },
	{ ke: 'KE-1002', name: '=HYPERLINK("http://evil.example","click me")', registrationNumber: 'GB00000002', status: 'active' },
	{ ke: 'KE-1003', name: '+1 Logistics', registrationNumber: 'GB00000003', status: 'active' },
	{ ke: 'KE-1004', name: '-2 Components', registrationNumber: 'GB00000004', status: 'active' },
	{ ke: 'KE-1005', name: '@SUM(A1:A9) Trading', registrationNumber: 'GB00000005', status: 'active' },
	{ ke: 'KE-1006', name: '\tTabbed Holdings', registrationNumber: 'GB00000006', status: 'active' },
	{ ke: 'KE-1007', name: '\rCarriage Return Co', registrationNumber: 'GB00000007', status: 'active' },
	{ ke: 'KE-1008', name: 'Smith, Jones & "Partners"\nLLP', registrationNumber: 'GB00000008', status: 'active' },
	{ ke: 'KE-1009', name: "Société Générale d'Été", registrationNumber: 'FR00000009', status: 'in_liquidation' },
	{ ke: 'KE-1010', name: 'Struck Off Widgets Ltd', registrationNumber: 'GB00000010', status: 'struck_off' },
	{ ke: 'KE-1011', name: 'Never Shared Ltd', registrationNumber: 'GB00000011', status: 'active' },
	{ ke: 'KE-1012', name: 'Revoked Partner plc', registrationNumber: 'GB00000012', status: 'active' },
	{ ke: 'KE-1013', name: 'Other Reader Only Ltd', registrationNumber: 'GB00000013', status: 'active' },
];

/** KEs 1001-1010 are shared with the main reader (and the two restricted readers); 1012 was revoked. */
export const demoSharedKes = demoCompanies.slice(0, 10).map((c) => c.ke);

export function ksFor(ke: string): string {
	return `KS-${ke.slice(3)}-v1`;
}

const tiers = ['tier-1', 'tier-2', 'tier-3'];
const shareEnds: Array<number | undefined> = [12, 45, 80, 200, undefined];

function share(state: SandboxState, ke: string, index: number, shareState: Share['state'] = 'shared'): Share {
	const ends = shareEnds[index % shareEnds.length];
	return {
		ke,
		state: shareState,
		grantedAt: state.nowIso(),
		changedAt: state.nowIso(),
		endsOn: ends === undefined ? undefined : state.dateInDays(ends),
		tier: tiers[index % tiers.length],
		decisionDue: index % 2 === 0,
	};
}

export function seedDemo(state: SandboxState): void {
	for (const company of demoCompanies) state.addCompany({ ...company, ks: ksFor(company.ke) });
	const full: ReaderKey[] = ['reader', 'noExports', 'noAdmin'];
	for (const key of full) {
		const reader = state.readers[key];
		demoSharedKes.forEach((ke, i) => reader.shares.set(ke, share(state, ke, i)));
		reader.shares.set('KE-1012', share(state, 'KE-1012', 11, 'revoked'));
	}
	state.readers.other.shares.set('KE-1013', share(state, 'KE-1013', 0));
	state.readers.other.shares.set('KE-1001', share(state, 'KE-1001', 1));

	const main = state.readers.reader;
	const invitation = (
		name: string, registration: string, email: string, reference: string, status: InvitationStatus, expiresIn: number,
	) => {
		main.invitations.push({
			id: state.nextId('INV'),
			company_name: name,
			registration_number: registration,
			work_email: email,
			reader_reference: reference,
			status,
			created_at: state.nowIso(),
			updated_at: state.nowIso(),
			expires_on: state.dateInDays(expiresIn),
		});
	};
	invitation('Northwind Traders', 'GB10000001', 'procurement@northwind.example', 'SUP-001', 'sent', 25);
	invitation('=cmd|" /C calc"!A0', 'GB10000002', 'ops@evil.example', '+SUP-002', 'opened', 50);
	invitation('Globex, Inc.', 'US10000003', 'vendor@globex.example', 'SUP-003', 'accepted', 85);
	invitation('Initech', 'US10000004', 'it@initech.example', 'SUP-004', 'declined', 20);
	invitation('Hooli', 'US10000005', 'legal@hooli.example', 'SUP-005', 'bounced', 100);

	main.expiryItems.push(
		{ kind: 'review', reference: 'REV-0001', ke: 'KE-1002', endsOn: state.dateInDays(5) },
		{ kind: 'request', reference: 'REQ-0001', ke: 'KE-1001', endsOn: state.dateInDays(70) },
		{ kind: 'review', reference: 'REV-0002', ke: 'KE-1003', endsOn: state.dateInDays(150) },
		{ kind: 'request', reference: 'REQ-0002', ke: 'KE-1012', endsOn: state.dateInDays(10) },
	);

	const decision = (ke: string, value: string, notes: string) => {
		main.decisions.push({
			id: state.nextId('DEC'),
			ke,
			decision: value,
			notes,
			decided_by: 'reader.admin@buyer.example',
			decided_at: state.nowIso(),
			pack_id: `AP-${ke.slice(3)}-1`,
		});
	};
	decision('KE-1001', 'approved', 'Standard terms, review yearly');
	decision('KE-1002', 'on_hold', '=1+1 check the invoices, then decide');
	decision('KE-1012', 'approved', 'Share since revoked');
}

const generatedNames = ['Generated Supplier', '=SUM(1+1) Generated', 'Comma, Quote "and" Co', '-Minus Generated'];

/** Adds `count` generated companies shared with the main reader; cheap so 100,000 rows start quickly. */
export function seedPortfolioRows(state: SandboxState, count: number): void {
	const shares = state.readers.reader.shares;
	const now = state.nowIso();
	for (let i = 1; i <= count; i++) {
		const ke = `KE-P${String(i).padStart(7, '0')}`;
		state.addCompany({
			ke,
			ks: ksFor(ke),
			name: `${generatedNames[i % generatedNames.length]} ${i}`,
			registrationNumber: `GP${String(i).padStart(8, '0')}`,
			status: 'active',
		});
		shares.set(ke, { ke, state: 'shared', grantedAt: now, changedAt: now, tier: tiers[i % 3], decisionDue: i % 7 === 0 });
	}
}
