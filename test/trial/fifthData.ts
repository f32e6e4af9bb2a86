// Seed data of the fifth Service: deterministic, dates counted from the `now` it is given.
export const DAY_MS = 86_400_000;

export interface Company {
	ke: string;
	ks: string;
	name: string;
	/** JSON number of 19-20 digits on the wire (some just above 2^53, some near 2^64). */
	registryNumber: bigint;
	tier: 'gold' | 'silver' | 'bronze';
	status: 'active' | 'struck_off' | 'in_liquidation';
	decisionDue: boolean;
	shared: boolean;
}
export interface Decision { id: bigint; ke: string; registryNumber: bigint; outcome: string; decidedAt: string; packId: string }
export interface Statement { id: bigint; ke: string; registryNumber: bigint; policy: string; createdAt: string; observations: string[] }
export interface Expiry { kind: string; ke: string; subject: string; endsOn: string; window: 30 | 60 | 90 }
export interface Invitation { id: string; name: string; registrationNo: string; email: string; ref: string; status: string; sentAt: string }

export interface Seed { companies: Company[]; decisions: Decision[]; statements: Statement[]; expiries: Expiry[]; invitations: Invitation[] }

const NAMES = [
	'Müller Stahlbau GmbH', 'Société Générale d’Équipement', 'Œuvre Façades S.A.', 'Škoda Díly s.r.o.', 'Nørre Logistik ApS', 'Ångström Optik AB',
	'Café Crème Fournitures', '=Formula Holdings Ltd', 'Brødrene Dahl AS', 'Çelik Yapı A.Ş.', 'Acme Widgets Ltd', 'Björk & Söner AB',
	'Ferrière Žabot', 'Dupont–Durand SARL', 'Naïve Systems', 'Łódź Components', 'Hölzl Tischlerei', 'Señor Pedro S.L.',
	'Fjällräven Supply', 'Zürich Präzision AG', 'Grüne Energie eG', 'Mañana Foods', 'Orsted Wind A/S', '+Plus Parts plc',
	'Kraków Metal', 'Évora Cortiça Lda', 'Straße & Söhne KG', 'Þór Fisheries ehf', 'Øresund Shipping', 'Lumière Électrique',
	'Sîntana Agro SRL', 'Ætna Textiles',
];

export const BIG_BASE = 18446744073709551084n;
export const JUST_ABOVE_2_53 = 9007199254740993n;

export function seed(now: Date): Seed {
	const day = (offset: number) => new Date(now.getTime() + offset * DAY_MS).toISOString().slice(0, 10);
	const companies: Company[] = NAMES.map((name, i) => ({
		ke: `KE${String(700100 + i)}`, ks: `KS-${String(2026000 + i * 7)}`, name,
		registryNumber: i % 3 === 0 ? JUST_ABOVE_2_53 + BigInt(i * 2) : BIG_BASE - BigInt(i * 1000),
		tier: (['gold', 'silver', 'bronze'] as const)[i % 3], status: i === 5 ? 'struck_off' : i === 11 ? 'in_liquidation' : 'active',
		decisionDue: i % 4 === 1, shared: i !== 30 && i !== 31,
	}));
	const decisions: Decision[] = Array.from({ length: 40 }, (_, i) => {
		const company = companies[i % 30];
		return {
			id: BIG_BASE - 5000n - BigInt(i), ke: company.ke, registryNumber: company.registryNumber,
			outcome: ['approved', 'approved_with_conditions', 'rejected', 'deferred'][i % 4],
			decidedAt: new Date(now.getTime() - (40 - i) * DAY_MS).toISOString(), packId: `pk_${String(i + 1).padStart(4, '0')}`,
		};
	});
	const statements: Statement[] = Array.from({ length: 3 }, (_, i) => ({
		id: JUST_ABOVE_2_53 + 100n + BigInt(i), ke: companies[i].ke, registryNumber: companies[i].registryNumber, policy: 'supplier-baseline',
		createdAt: new Date(now.getTime() - DAY_MS * (i + 1)).toISOString(), observations: ['register status read', 'findings listed'],
	}));
	const kinds = ['share', 'invitation', 'request', 'review'];
	const expiries: Expiry[] = Array.from({ length: 18 }, (_, i) => {
		const offset = [5, 12, 25, 35, 44, 58, 63, 77, 88][i % 9] + (i >= 9 ? 1 : 0);
		return { kind: kinds[i % 4], ke: companies[i].ke, subject: `${kinds[i % 4]} of ${companies[i].name}`, endsOn: day(offset), window: offset <= 30 ? 30 : offset <= 60 ? 60 : 90 };
	});
	const statuses = ['opened', 'accepted', 'declined', 'bounced', 'expired'];
	const invitations: Invitation[] = Array.from({ length: 8 }, (_, i) => ({
		id: `inv_${String(8800 + i)}`, name: `Invited Co ${i + 1}; Ltd`, registrationNo: `HRB ${10400 + i}`, email: `buyer${i}@invited${i}.example`,
		ref: i === 2 ? '@SUM(A1)' : `REF-${i}`, status: statuses[i % 5], sentAt: day(-10 - i),
	}));
	return { companies, decisions, statements, expiries, invitations };
}
