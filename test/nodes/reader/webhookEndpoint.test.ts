import { useSandbox } from '../../sandbox/useSandbox';
import { documentedBody } from '../../sandbox/requestDialect';
import { READER, runReader } from './helpers';
import { shapeAnswer } from '../../sandbox/answerShapes';

const sandbox = useSandbox();

const SECRET_NOTICE =
	'The signing secret is shown only this once: the Service will not show it again. Store it now, e.g. in the Service API credential under Advanced Settings > Webhook Signing Secret, and remove this output from saved executions.';
const create = (url: string) => ({ resource: 'webhook', operation: 'createEndpoint', url });

describe('Webhook > Create Endpoint', () => {
	it('registers the https endpoint and outputs it with its one-time secret and the notice', async () => {
		const url = 'https://hooks.buyer.example/service';
		const result = await runReader(sandbox, create(url));

		const endpoints = sandbox.control.webhookEndpoints();
		const endpoint = endpoints[endpoints.length - 1];
		expect(endpoint.url).toBe(url);
		// Every field the Service sent, as its dialect words them, with the id and secret under the README's names.
		const worded = sandbox.dialect.answer('POST', '/v1/reader/webhooks', { id: endpoint.id, url, secret: endpoint.secret, created_at: endpoint.created_at });
		const said = (shapeAnswer(sandbox.dialect.answers, 'POST', '/v1/reader/webhooks', worded) as { json: unknown }).json;
		expect(result.output(READER)).toEqual([
			{
				json: { ...(said as object), id: endpoint.id, secret: endpoint.secret, secret_notice: SECRET_NOTICE },
				pairedItem: { item: 0 },
			},
		]);
		const [request] = sandbox.control.requests();
		expect([request.method, request.path, request.reader, request.status]).toEqual(['POST', '/v1/reader/webhooks', 'reader', 201]);
		expect(documentedBody(sandbox.dialect.request, 'webhook', request.body)).toEqual({ url });
		expect(sandbox.control.accessLog()).toEqual([]);
	});

	it.each([
		['http://hooks.buyer.example/service', 'URL "http://hooks.buyer.example/service" uses http; the Service accepts https only. [item 0]'],
		['ftp://hooks.buyer.example', 'URL "ftp://hooks.buyer.example" uses ftp; the Service accepts https only. [item 0]'],
		['hooks.buyer.example/service', 'URL "hooks.buyer.example/service" is not a valid URL. Enter a full address starting with https://. [item 0]'],
		['', 'URL is empty. Enter a full address starting with https://. [item 0]'],
	])('refuses %j before any request', async (url, message) => {
		const before = sandbox.control.webhookEndpoints().length;
		const result = await runReader(sandbox, create('={{ $json.url }}'), { inputItems: [{ json: { url } }] });
		expect(result.error(READER)?.message).toBe(message);
		expect(sandbox.control.requests()).toEqual([]);
		expect(sandbox.control.webhookEndpoints()).toHaveLength(before);
	});

	it('a reader organisation without a reader admin gets the Service\'s words and no secret', async () => {
		const result = await runReader(sandbox, create('https://hooks.buyer.example/x'), { token: sandbox.tokens.noAdmin });
		expect(result.error(READER)?.message).toBe('This reader organisation has no reader admin (403)');
		expect(sandbox.control.webhookEndpoints('noAdmin')).toEqual([]);
	});
});
