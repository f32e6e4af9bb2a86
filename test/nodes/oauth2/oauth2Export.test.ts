import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { issuedTokenCount, setTokenUses } from '../../sandbox/routes/oauth';
import { oauth2Credential as oauth2Credentials } from './credential';
import { useSandbox } from '../../sandbox/useSandbox';
import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { asItems, getMany, portfolioCsvRows } from '../reader/exportHelpers';

// The Service reached with short-lived tokens n8n fetches through the OAuth2 client-credentials grant.
const sandbox = useSandbox();
afterEach(() => setTokenUses(Number.POSITIVE_INFINITY));

const PORTFOLIO = '/v1/reader/exports/portfolio';

function oauth2Credential(clientSecret?: string): ICredentialDataDecryptedObject {
	return oauth2Credentials(sandbox, clientSecret, { pageSizeParameter: sandbox.dialect.pageSizeParameter, pageSize: 3 });
}

async function runPortfolio(credential: ICredentialDataDecryptedObject) {
	const credentials = { serviceOAuth2Api: credential };
	const result = await runWorkflow(
		readerWorkflow(getMany('portfolio', { authentication: 'oAuth2', returnAll: true }), {
			credentials: { serviceOAuth2Api: { id: 'cred-oauth2', name: 'Service OAuth2 API' } },
		}),
		{ credentials },
	);
	return { result, stored: credentials.serviceOAuth2Api };
}

describe('Authentication: OAuth2', () => {
	it('fetches a token, and a long export survives its expiry mid-way: every row once', async () => {
		setTokenUses(2);
		const before = issuedTokenCount();
		const { result, stored } = await runPortfolio(oauth2Credential());
		expect(result.output(READER)).toEqual(asItems(portfolioCsvRows(sandbox)));
		const pages = sandbox.control.requests({ path: PORTFOLIO });
		// Each token serves two requests: the third is refused with 401 and sent again with a new token.
		expect(pages.filter((r) => r.status === 200)).toHaveLength(4);
		expect(pages.filter((r) => r.status === 401).length).toBeGreaterThan(0);
		expect(issuedTokenCount() - before).toBeGreaterThan(1);
		// n8n stored the last token it fetched.
		expect((stored.oauthTokenData as { access_token?: string }).access_token).toMatch(/^oat_reader_/);
	});

	it('a wrong client secret fails the item without showing the secret', async () => {
		const { result } = await runPortfolio(oauth2Credential('wrong-client-secret-123456'));
		const failure = result.error(READER);
		expect(failure?.message).toMatch(/^Could not get an OAuth2 access token/);
		expect(failure?.description).toMatch(/Client Secret/);
		const error = JSON.stringify(failure);
		expect(error).not.toContain('wrong-client-secret-123456');
		expect(sandbox.control.requests({ path: PORTFOLIO })).toHaveLength(0);
	});
});
