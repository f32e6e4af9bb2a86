import { catalogueResponse } from '../sandbox/events';
import { useSandbox } from '../sandbox/useSandbox';
import { READER, readerWorkflow, runWorkflow } from './index';

// Proves the in-process harness: a real workflow runs in n8n-core's WorkflowExecute, the credential's
// generic `authenticate` block is applied, and the node talks to the sandbox over verified HTTPS.
describe('in-process n8n harness', () => {
	const sandbox = useSandbox();

	const credentials = (accessToken: string) => ({
		serviceApi: { baseUrl: sandbox.baseUrl, accessToken },
	});

	test('runs Test Items -> Service Reader (Webhook > Get Catalogue) end to end', async () => {
		sandbox.control.clearRequests();

		const result = await runWorkflow(readerWorkflow({ resource: 'webhook', operation: 'getCatalogue' }), {
			credentials: credentials(sandbox.tokens.reader),
		});

		expect(result.run.status).toBe('success');
		expect(result.output(READER)).toEqual(
			catalogueResponse().data.map((entry) => ({ json: entry, pairedItem: { item: 0 } })),
		);
		// The bearer token from the credential reached the Service and identified the reader.
		const requests = sandbox.control.requests({ path: '/v1/reader/webhooks/catalogue' });
		expect(requests.map((r) => [r.method, r.reader, r.status])).toEqual([['GET', 'reader', 200]]);
	});

	test('a wrong token fails the node with the Service error in words, without the token', async () => {
		const wrongToken = 'svc_wrong_token_value';
		const result = await runWorkflow(readerWorkflow({ resource: 'webhook', operation: 'getCatalogue' }), {
			credentials: credentials(wrongToken),
		});

		expect(result.run.status).toBe('error');
		const error = result.error(READER);
		expect(error?.message).toBe('The Service rejected the access token (401)');
		expect(JSON.stringify(error)).not.toContain(wrongToken);
	});

	test('a credential with a non-https Base URL is refused before any request', async () => {
		sandbox.control.clearRequests();
		const result = await runWorkflow(readerWorkflow({ resource: 'webhook', operation: 'getCatalogue' }), {
			credentials: { serviceApi: { baseUrl: sandbox.baseUrl.replace('https:', 'http:'), accessToken: 'x' } },
		});

		expect(result.error(READER)?.message).toMatch(/must start with https:\/\//);
		expect(sandbox.control.requests()).toEqual([]);
	});
});
