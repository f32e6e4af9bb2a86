/**
 * The trigger's node static data (`getWorkflowStaticData('node')`) holds one key, written by
 * activation and deactivation and by a delivery that seals the secret again or renews the endpoint
 * (renewal.ts), never by an execution (redelivery.ts says why):
 *
 *   endpoints:   { [webhook URL]: { id?, sealedSecret, createdAt, test?, renewalAttemptedAt? } }
 *
 * Entries are keyed by webhook URL because n8n registers the test URL and the production URL
 * through the same create() and both share this static data: keying by URL keeps a test
 * registration from overwriting (or its deletion from removing) the production endpoint's secret.
 * The signing secret is only ever stored sealed (shared/secretSeal.ts). Pure: no n8n types.
 */

export interface StoredEndpoint {
	/** The Service's id for the endpoint, when it returned one (needed to delete it). */
	id?: string;
	sealedSecret: string;
	createdAt: string;
	/** Registered while the editor listened for a test event (n8n's test URL), not by activation. */
	test?: boolean;
	/** When a delivery last tried to renew this URL's endpoint (renewal.ts: at most once an hour). */
	renewalAttemptedAt?: string;
}

type StaticData = Record<string, unknown>;

export function storedEndpoints(staticData: StaticData): Record<string, StoredEndpoint> {
	const value = staticData.endpoints;
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
	const endpoints: Record<string, StoredEndpoint> = {};
	for (const [url, entry] of Object.entries(value as Record<string, unknown>)) {
		if (entry === null || typeof entry !== 'object') continue;
		const record = entry as Record<string, unknown>;
		if (typeof record.sealedSecret !== 'string') continue;
		endpoints[url] = {
			id: typeof record.id === 'string' && record.id !== '' ? record.id : undefined,
			sealedSecret: record.sealedSecret,
			createdAt: typeof record.createdAt === 'string' ? record.createdAt : '',
			...(record.test === true ? { test: true } : {}),
			...(typeof record.renewalAttemptedAt === 'string' ? { renewalAttemptedAt: record.renewalAttemptedAt } : {}),
		};
	}
	return endpoints;
}

// Whole top-level values are replaced, never mutated in place: n8n notices static data changes
// (and saves them) through assignments on the object it handed out.
export function storeEndpoint(staticData: StaticData, url: string, entry: StoredEndpoint): void {
	const { id, ...rest } = entry;
	staticData.endpoints = { ...storedEndpoints(staticData), [url]: id === undefined ? rest : { id, ...rest } };
}

/** Forgets the endpoint of `url`; with no endpoint left, forgets everything else too. */
export function forgetEndpoint(staticData: StaticData, url: string): void {
	const rest = Object.fromEntries(Object.entries(storedEndpoints(staticData)).filter(([key]) => key !== url));
	if (Object.keys(rest).length > 0) {
		staticData.endpoints = rest;
		return;
	}
	for (const key of Object.keys(staticData)) delete staticData[key];
}

/**
 * The endpoints of the same kind (test or production) stored under another URL than `url`: left
 * from before n8n's public URL changed, so nothing reaches them any more. Entries stored before
 * the kind was kept are told apart by n8n's default test path.
 */
export function endpointsElsewhere(staticData: StaticData, url: string, test: boolean): Array<[string, StoredEndpoint]> {
	const isTest = (key: string, entry: StoredEndpoint) => entry.test ?? /\/webhook-test\//.test(key);
	return Object.entries(storedEndpoints(staticData)).filter(([key, entry]) => key !== url && isTest(key, entry) === test);
}
