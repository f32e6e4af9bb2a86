import { ServiceChangesTrigger } from '../../../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import { PollHarness } from '../../harness';
import { setTokenUses } from '../../sandbox/routes/oauth';
import { useSandbox } from '../../sandbox/useSandbox';
import { portfolioCsvRows } from '../reader/exportHelpers';
import { oauth2Credential } from './credential';

// The Service Changes Trigger with Authentication: OAuth2: polls whose token expires between (and within) them.
const sandbox = useSandbox();
afterEach(() => setTokenUses(Number.POSITIVE_INFINITY));

describe('Service Changes Trigger with Authentication: OAuth2', () => {
	it('sets the baseline, then emits the company added, a token expiring every two pages', async () => {
		setTokenUses(2);
		const credentials = { serviceOAuth2Api: oauth2Credential(sandbox, undefined, { pageSizeParameter: sandbox.dialect.pageSizeParameter, pageSize: 3 }) };
		const harness = new PollHarness({ nodeType: new ServiceChangesTrigger(), parameters: { authentication: 'oAuth2' }, credentials });
		expect(await harness.activate()).toEqual({ items: undefined, error: undefined });
		sandbox.control.grantShare('KE-1011', { tier: 'tier-1' });
		const row = portfolioCsvRows(sandbox).find((r) => r.ke === 'KE-1011');
		const { items, error } = await harness.poll();
		expect(error).toBeUndefined();
		expect(items).toEqual([{ json: { change: 'added', export: 'portfolio', key: 'KE-1011', row } }]);
		expect(sandbox.control.requests({ path: '/v1/reader/exports/portfolio' }).some((r) => r.status === 401)).toBe(true);
	});
});
