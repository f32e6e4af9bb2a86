import type { IncomingMessage } from 'node:http';

import { ServiceApi } from '../../../credentials/ServiceApi.credentials';
import { listenHttps, type LocalHttpsServer } from '../../tls/httpsServer';
import { useTriggerSetup } from './setup';

// The trigger's own calls to the Service follow no redirect either: a 307 on activation must not
// hand the token and the webhook URL to another server, nor let it choose the signing secret.
const setup = useTriggerSetup();
let elsewhere: LocalHttpsServer;
let elsewhereUrl: string;
const reached: IncomingMessage[] = [];

beforeAll(async () => {
	elsewhere = await listenHttps(setup.sandbox.receiverTls, (req, res) => {
		reached.push(req);
		res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"id":"evil","secret":"whsec_ZXZpbC1zZWNyZXQtY2hvc2VuLWJ5LXRoZW0="}');
	});
	elsewhereUrl = `https://localhost:${elsewhere.port}`;
});

afterAll(async () => {
	await elsewhere.close();
});

beforeEach(() => {
	setup.harness = setup.newHarness();
	setup.sandbox.control.clearFaults();
	reached.length = 0;
});

test('a 307 on activation fails it with the redirect in words; nothing reaches the other server and nothing is stored', async () => {
	setup.sandbox.control.failRoute({ path: '/v1/reader/webhooks', method: 'POST', mode: 'redirect', status: 307, location: `${elsewhereUrl}/v1/reader/webhooks` });

	await expect(setup.harness.activate()).rejects.toThrow(/^The Service answered with a redirect \(307 to localhost:\d+\), which is not followed$/);

	expect(reached).toHaveLength(0);
	expect(setup.harness.savedNodeData().endpoints).toBeUndefined();
});

test('a redirect on the activation check or the Events list reaches nobody else', async () => {
	await setup.harness.activate();
	setup.sandbox.control.failRoute({ path: '/v1/reader/webhooks', method: 'GET', mode: 'redirect', status: 302, location: `${elsewhereUrl}/list` });
	setup.sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'redirect', status: 302, location: `${elsewhereUrl}/catalogue` });

	await expect(setup.harness.runHook('checkExists')).rejects.toThrow(/redirect \(302 to localhost:\d+\)/);
	const events = await setup.harness.loadOptions('getEvents');

	// The Events list falls back to the spec's named events.
	expect(events.map((event) => event.value)).toContain('ledger_high');
	expect(reached).toHaveLength(0);
	setup.sandbox.control.clearFaults();
	await setup.harness.deactivate();
});

describe('the credential keeps the token on the Base URL', () => {
	const authenticate = new ServiceApi().authenticate;
	const credentials = { baseUrl: 'https://svc.example.com', accessToken: 'svc_token_123456', advancedSettings: true, requestTimeout: 5 };

	test('a request to the Base URL gets the token, no redirects and the Request Timeout', async () => {
		const options = await authenticate(credentials, { url: 'https://svc.example.com/v1/reader/webhooks', method: 'GET' });
		expect(options).toMatchObject({
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			timeout: 5000,
			headers: { Authorization: 'Bearer svc_token_123456' },
		});
		// The credential test: a path with baseURL.
		const test = await authenticate(credentials, { baseURL: 'https://svc.example.com', url: '/v1/reader/webhooks/catalogue' });
		expect(test.headers).toEqual({ Authorization: 'Bearer svc_token_123456' });
	});

	test.each([
		['another host', 'https://collector.example.net/x', /not to https:\/\/collector\.example\.net/],
		['plain http to the same host', 'http://svc.example.com/v1/reader/webhooks', /not to http:\/\/svc\.example\.com/],
	])('refuses %s', async (_, url, message) => {
		await expect(authenticate(credentials, { url })).rejects.toThrow(message);
	});

	test('refuses a Base URL that is not https, saying why (the credential test shows this)', async () => {
		await expect(
			authenticate({ ...credentials, baseUrl: 'http://svc.example.com' }, { baseURL: 'http://svc.example.com', url: '/v1/reader/webhooks/catalogue' }),
		).rejects.toThrow('The Base URL "http://svc.example.com" must be an https:// address: the access token is sent over HTTPS only.');
	});
});
