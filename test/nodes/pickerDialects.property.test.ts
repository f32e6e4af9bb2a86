import fc from 'fast-check';
import type { INodeListSearchResult } from 'n8n-workflow';

import { listSearch, trustCa } from '../harness';
import { ServiceReader } from '../../nodes/ServiceReader/ServiceReader.node';
import { dialect, settingNamed } from '../property/dialects';
import { runs } from '../property/fc';
import { startSandbox, type Sandbox } from '../sandbox';
import { serviceCredentials } from './reader/exportHelpers';

/**
 * The KE picker's list search (From List) against sandboxes of drawn dialects and page sizes: paged
 * from the first call to the last, it offers exactly the companies whose share is `shared`, each
 * once, and with a filter exactly those whose name or KE holds it; or it fails with an error naming
 * a setting, after which setting it does. Replay: FC_SEED (and FC_PATH) from the failure message.
 */

const reader = new ServiceReader();
const PORTFOLIO_PATH = '/v1/reader/exports/portfolio';

/** Page sizes and portfolio length: the Service's own page size, the one the credential may send, more companies. */
const paging = fc.record({
	servicePageSize: fc.integer({ min: 1, max: 8 }),
	credentialPageSize: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
	moreCompanies: fc.integer({ min: 0, max: 10 }),
});

/** A filter as a user types it: a piece of one company's name or KE (any company, shared or not), in any case. */
const filterPiece = fc.record({
	company: fc.nat(),
	ofKe: fc.boolean(),
	start: fc.nat(),
	length: fc.integer({ min: 1, max: 12 }),
	upper: fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
});

type Drawn<A> = A extends fc.Arbitrary<infer T> ? T : never;

interface Offered {
	pages: INodeListSearchResult[];
	/** Portfolio requests the Service received for each list search. */
	requestsPerSearch: number[];
}

/** A company name as the picker shows it: on one line. */
const shown = (name: string) => name.replace(/\s+/g, ' ').trim();

/** The companies whose share with the main reader is `shared`, in the Service's order. */
function sharingCompanies(sandbox: Sandbox): Array<{ ke: string; name: string }> {
	const names = new Map(sandbox.control.companies().map((company) => [company.ke, company.name]));
	return sandbox.control
		.shares()
		.filter((share) => share.state === 'shared')
		.map((share) => ({ ke: share.ke, name: shown(names.get(share.ke)!) }));
}

function filterFrom(sandbox: Sandbox, drawn: Drawn<typeof filterPiece>): string {
	const companies = sandbox.control.companies();
	const company = companies[drawn.company % companies.length];
	const text = drawn.ofKe ? company.ke : shown(company.name);
	const from = drawn.start % text.length;
	const piece = text.slice(from, from + drawn.length).trim() || text;
	return [...piece].map((ch, i) => (drawn.upper[i % drawn.upper.length] ? ch.toUpperCase() : ch.toLowerCase())).join('');
}

/** Every list search a user scrolling to the end of the list causes, following the pagination token. */
async function scrollToEnd(sandbox: Sandbox, pageSize: number | undefined, setting: Record<string, string>, filter?: string): Promise<Offered> {
	const credentials = serviceCredentials(sandbox, { pageSize });
	Object.assign(credentials.serviceApi, { advancedSettings: true, ...setting });
	const offered: Offered = { pages: [], requestsPerSearch: [] };
	let paginationToken: string | undefined;
	do {
		const before = sandbox.control.requests({ path: PORTFOLIO_PATH }).length;
		const page = await listSearch(reader, 'searchCompanies', { credentials, parameters: { resource: 'record', operation: 'get' }, filter, paginationToken });
		offered.requestsPerSearch.push(sandbox.control.requests({ path: PORTFOLIO_PATH }).length - before);
		offered.pages.push(page);
		paginationToken = page.paginationToken as string | undefined;
		// A token that never ends would scroll for ever: far more searches than the portfolio has pages.
		if (offered.pages.length > 100) throw new Error('The picker went on past 100 list searches');
	} while (paginationToken !== undefined);
	return offered;
}

/** Scrolls to the end; when a search fails, its error must name a setting, and with it set scrolling must succeed. */
async function scrollWithNamedSettings(sandbox: Sandbox, pageSize: number | undefined, filter?: string): Promise<Offered> {
	try {
		return await scrollToEnd(sandbox, pageSize, {}, filter);
	} catch (error) {
		const { message, description } = error as Error & { description?: string };
		return await scrollToEnd(sandbox, pageSize, settingNamed(`${message} ${description ?? ''}`, sandbox.dialect.csv), filter);
	}
}

describe('the KE picker on generated Service dialects', () => {
	test('offers exactly the sharing companies, each once, and with a filter exactly those whose name or KE holds it', async () => {
		await fc.assert(
			fc.asyncProperty(dialect, paging, filterPiece, async (drawn, sizes, piece) => {
				const sandbox = await startSandbox({ dialect: drawn, pageSize: sizes.servicePageSize, portfolioRows: sizes.moreCompanies });
				try {
					trustCa(sandbox.ca);
					const sharing = sharingCompanies(sandbox);
					const pageSize = sizes.credentialPageSize ?? sizes.servicePageSize;

					const all = await scrollWithNamedSettings(sandbox, sizes.credentialPageSize);
					expect(all.pages.flatMap((page) => page.results)).toEqual(
						sharing.map(({ ke, name }) => ({ name: name === '' ? ke : `${name} (${ke})`, value: ke })),
					);
					// One Service page per list search, never more companies than the page size.
					expect(all.requestsPerSearch).toEqual(all.pages.map(() => 1));
					expect(all.pages).toHaveLength(Math.max(1, Math.ceil(sharing.length / pageSize)));
					expect(all.pages.every((page) => page.results.length <= pageSize)).toBe(true);

					const filter = filterFrom(sandbox, piece);
					const wanted = filter.toLowerCase();
					const filtered = await scrollWithNamedSettings(sandbox, sizes.credentialPageSize, filter);
					expect(filtered.pages.flatMap((page) => page.results.map((result) => result.value))).toEqual(
						sharing.filter(({ ke, name }) => ke.toLowerCase().includes(wanted) || name.toLowerCase().includes(wanted)).map(({ ke }) => ke),
					);
					// The filter narrows each page; it never changes which pages are fetched.
					expect(filtered.requestsPerSearch).toEqual(all.requestsPerSearch);
				} finally {
					await sandbox.close();
				}
			}),
			runs(40),
		);
	}, 300_000);
});
