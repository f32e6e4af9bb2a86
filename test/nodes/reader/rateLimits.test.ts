import type { INodeParameters } from 'n8n-workflow';

import { RATE_LIMIT_FORMS } from '../../sandbox/answerShapes';
import { useSandbox } from '../../sandbox/useSandbox';
import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { asItems, getMany, portfolioCsvRows, serviceCredentials } from './exportHelpers';

// A 429 says how long to wait in one of the forms Services use (issue 44 item 6): each is waited for,
// within the retry budget, and the export goes on with the same cursor to its last row.
const sandbox = useSandbox();
afterEach(() => sandbox.control.clearFaults());

const PORTFOLIO = '/v1/reader/exports/portfolio';

async function runPortfolio(parameters: INodeParameters) {
	return await runWorkflow(readerWorkflow(getMany('portfolio', parameters)), { credentials: serviceCredentials(sandbox, { pageSize: 3 }) });
}

describe('a rate-limited page, whatever header form says the wait', () => {
	it.each(RATE_LIMIT_FORMS.map((form) => [form]))('%s: waited for, asked again no sooner, and the export completes with every row once', async (form) => {
		// Enforced: asked again sooner than announced, the sandbox answers 429 again.
		sandbox.control.failPage({ route: 'portfolio', page: 2, mode: '429', retryAfterSeconds: 1, enforce: true, rateLimitForm: form });
		const result = await runPortfolio({ returnAll: true });

		expect(result.run.status).toBe('success');
		expect(result.output(READER)).toEqual(asItems(portfolioCsvRows(sandbox)));
		const requests = sandbox.control.requests({ path: PORTFOLIO });
		expect(requests.map((r) => r.status)).toEqual([200, 429, 200, 200, 200]);
		expect(requests[2].query).toEqual(requests[1].query);
	});

	it('as a file too: the 429 of page 3, as RateLimit says it, is waited for and the file holds every row', async () => {
		sandbox.control.failPage({ route: 'portfolio', page: 3, mode: '429', retryAfterSeconds: 1, enforce: true, rateLimitForm: 'RateLimit' });
		const result = await runPortfolio({ returnAll: true, output: 'file' });

		expect(result.run.status).toBe('success');
		expect(sandbox.control.requests({ path: PORTFOLIO }).map((r) => r.status)).toEqual([200, 200, 429, 200, 200]);
	});
});
