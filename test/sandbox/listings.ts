import type { CsvValue } from './csv';
import type { Listing } from './paging';
import type { SandboxState } from './state';
import type { ReaderOrg } from './types';

export interface ListingQuery {
	/** Expiries only: 30, 60 or 90. */
	window?: number;
}

export interface ListingSpec {
	columns: readonly string[];
	/** Rows as JSON objects whose keys are the columns (statements add nested findings). */
	rows(state: SandboxState, reader: ReaderOrg, query: ListingQuery): ReadonlyArray<Record<string, unknown>>;
	csv(row: Record<string, unknown>): CsvValue[];
}

const byColumns = (columns: readonly string[]) => (row: Record<string, unknown>): CsvValue[] =>
	columns.map((c) => row[c] as CsvValue);

export const expiryWindows = [30, 60, 90] as const;

const portfolioColumns = ['ke', 'company_name', 'tier', 'status', 'decision_due'] as const;
const expiryColumns = ['kind', 'reference', 'ke', 'ends_on', 'window_days'] as const;
const decisionColumns = ['id', 'ke', 'decision', 'notes', 'decided_by', 'decided_at', 'pack_id'] as const;
const invitationColumns = [
	'invitation_id', 'company_name', 'registration_number', 'work_email', 'reader_reference', 'status', 'updated_at',
] as const;
const statementColumns = ['id', 'run_id', 'ke', 'findings', 'created_at'] as const;

// Portfolio rows are cached per reader until shares change, so paging through 100,000 rows stays linear.
const portfolioCache = new WeakMap<ReaderOrg, { version: number; rows: Array<Record<string, unknown>> }>();

export const listingSpecs: Record<Listing, ListingSpec> = {
	portfolio: {
		columns: portfolioColumns,
		rows(state, reader) {
			const cached = portfolioCache.get(reader);
			if (cached && cached.version === state.shareVersion) return cached.rows;
			const rows: Array<Record<string, unknown>> = [];
			for (const share of reader.shares.values()) {
				if (share.state !== 'shared') continue;
				const company = state.company(share.ke);
				rows.push({
					ke: share.ke, company_name: company.name, tier: share.tier, status: company.status, decision_due: share.decisionDue,
				});
			}
			portfolioCache.set(reader, { version: state.shareVersion, rows });
			return rows;
		},
		csv: byColumns(portfolioColumns),
	},
	expiries: {
		columns: expiryColumns,
		rows(state, reader, query) {
			const limit = query.window ?? 90;
			const items: Array<{ kind: string; reference: string; ke: string; ends_on: string }> = [];
			for (const share of reader.shares.values()) {
				if (share.state === 'shared' && share.endsOn) {
					items.push({ kind: 'share', reference: `SHARE-${share.ke}`, ke: share.ke, ends_on: share.endsOn });
				}
			}
			for (const invitation of reader.invitations) {
				if (invitation.status === 'sent' || invitation.status === 'opened') {
					items.push({ kind: 'invitation', reference: invitation.id, ke: '', ends_on: invitation.expires_on });
				}
			}
			for (const item of reader.expiryItems) {
				if (state.isShared(reader.key, item.ke)) {
					items.push({ kind: item.kind, reference: item.reference, ke: item.ke, ends_on: item.endsOn });
				}
			}
			return items
				.map((item) => ({ ...item, days: state.daysUntil(item.ends_on) }))
				.filter((item) => item.days >= 0 && item.days <= limit)
				.sort((a, b) => a.ends_on.localeCompare(b.ends_on) || a.reference.localeCompare(b.reference))
				.map(({ days, ...item }) => ({ ...item, window_days: expiryWindows.find((w) => days <= w) }));
		},
		csv: byColumns(expiryColumns),
	},
	decisions: {
		columns: decisionColumns,
		rows: (state, reader) => reader.decisions.filter((d) => state.isShared(reader.key, d.ke)).map((d) => ({ ...d })),
		csv: byColumns(decisionColumns),
	},
	invitations: {
		columns: invitationColumns,
		rows: (_state, reader) => reader.invitations.map((i) => ({
			invitation_id: i.id,
			company_name: i.company_name,
			registration_number: i.registration_number,
			work_email: i.work_email,
			reader_reference: i.reader_reference,
			status: i.status,
			updated_at: i.updated_at,
		})),
		csv: byColumns(invitationColumns),
	},
	statements: {
		columns: statementColumns,
		rows: (state, reader) => reader.statements.filter((s) => state.isShared(reader.key, s.ke)).map((s) => ({ ...s })),
		// Nested findings become one text cell in CSV.
		csv: (row) => statementColumns.map((c) => c === 'findings'
			? (row.findings as Array<{ text: string }>).map((f) => f.text).join(' | ')
			: row[c] as CsvValue),
	},
};
