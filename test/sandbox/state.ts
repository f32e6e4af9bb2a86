import { randomBytes } from 'node:crypto';

import { signRecord, type SignedRecord } from './records';
import type { AccessLogEntry, Company, ReaderKey, ReaderOrg, ReceivedRequest, Share } from './types';

const dayMs = 24 * 60 * 60 * 1000;

/** Everything the sandbox Service holds, in memory. */
export class SandboxState {
	readonly companies = new Map<string, Company>();
	private readonly keByKs = new Map<string, string>();
	private readonly records = new Map<string, SignedRecord>();
	private readonly supersededRecords = new Map<string, SignedRecord>();
	private readonly companyLogs = new Map<string, AccessLogEntry[]>();
	readonly requests: ReceivedRequest[] = [];
	private readonly counters = new Map<string, number>();
	/** Bumped on every share change so cached listings know to rebuild. */
	shareVersion = 0;

	constructor(
		readonly readers: Record<ReaderKey, ReaderOrg>,
		readonly clock: () => number,
	) {}

	nowIso(): string {
		return new Date(this.clock()).toISOString();
	}

	/** Date (YYYY-MM-DD, UTC) a number of days from today. */
	dateInDays(days: number): string {
		return new Date(this.clock() + days * dayMs).toISOString().slice(0, 10);
	}

	/** Whole days from today (UTC) to a YYYY-MM-DD date. */
	daysUntil(date: string): number {
		const today = Date.parse(new Date(this.clock()).toISOString().slice(0, 10));
		return Math.round((Date.parse(date) - today) / dayMs);
	}

	nextId(prefix: string): string {
		const n = (this.counters.get(prefix) ?? 0) + 1;
		this.counters.set(prefix, n);
		return `${prefix}-${String(n).padStart(4, '0')}`;
	}

	addCompany(company: Company): Company {
		if (this.companies.has(company.ke)) throw new Error(`Company ${company.ke} already exists in the sandbox.`);
		this.companies.set(company.ke, company);
		this.keByKs.set(company.ks, company.ke);
		return company;
	}

	company(ke: string): Company {
		const company = this.companies.get(ke);
		if (!company) throw new Error(`No company with KE ${ke} in the sandbox; add it with control.addCompany first.`);
		return company;
	}

	/** The signed record of a company, signed on first use so big generated portfolios stay cheap. */
	recordForKe(ke: string): SignedRecord {
		let record = this.records.get(ke);
		if (!record) {
			record = signRecord(this.company(ke), this.nowIso());
			this.records.set(ke, record);
		}
		return record;
	}

	recordForKs(ks: string): SignedRecord | undefined {
		const ke = this.keByKs.get(ks);
		if (ke === undefined) return undefined;
		const current = this.recordForKe(ke);
		return current.ks === ks ? current : this.supersededRecords.get(ks);
	}

	/** Replaces the served bytes of the current record (tampering tests). */
	replaceRecord(record: SignedRecord): void {
		this.records.set(record.ke, record);
	}

	/** Publishes a new record version under a new KS; the old KS keeps verifying its own file. */
	supersede(ke: string, newKs: string): SignedRecord {
		const previous = this.recordForKe(ke);
		this.supersededRecords.set(previous.ks, previous);
		const company = { ...this.company(ke), ks: newKs };
		this.companies.set(ke, company);
		this.keByKs.set(newKs, ke);
		const record = signRecord(company, this.nowIso());
		this.records.set(ke, record);
		return record;
	}

	setShare(reader: ReaderKey, share: Share): void {
		this.readers[reader].shares.set(share.ke, share);
		this.shareVersion++;
	}

	isShared(reader: ReaderKey, ke: string): boolean {
		return this.readers[reader].shares.get(ke)?.state === 'shared';
	}

	logAccess(entry: Omit<AccessLogEntry, 'at'>): void {
		const full: AccessLogEntry = { at: this.nowIso(), ...entry };
		this.readers[entry.reader].accessLog.push(full);
		if (entry.export === 'record' && entry.ke) {
			const log = this.companyLogs.get(entry.ke) ?? [];
			log.push(full);
			this.companyLogs.set(entry.ke, log);
		}
	}

	companyLog(ke: string): AccessLogEntry[] {
		return [...(this.companyLogs.get(ke) ?? [])];
	}
}

export function randomToken(prefix: string): string {
	return `${prefix}_${randomBytes(24).toString('base64url')}`;
}

export function emptyReader(key: ReaderKey, name: string, token: string): ReaderOrg {
	return {
		key,
		name,
		token,
		exportsEnabled: key !== 'noExports',
		readerAdmin: key !== 'noAdmin',
		shares: new Map(),
		invitations: [],
		decisions: [],
		statements: [],
		policyRuns: [],
		expiryItems: [],
		endpoints: [],
		accessLog: [],
	};
}
