import { CredentialTestContext } from 'n8n-core';
import type { ICredentialDataDecryptedObject, INodeCredentialTestResult } from 'n8n-workflow';

import { createAdditionalData } from '../harness';
import { ServiceReader } from '../../nodes/ServiceReader/ServiceReader.node';
import { PROBE_LIMITS } from '../../nodes/shared/settingsCheck/types';
import { expectNoToken } from '../property/tokenDecoders';
import { serviceApi } from '../sandbox/credential';
import { useSandbox } from '../sandbox/useSandbox';

/**
 * The credential's Test as n8n runs it: the node's `methods.credentialTest.serviceApiSettings` called
 * with n8n-core's own CredentialTestContext (its `helpers.request`, n8n's HTTP client), against the
 * sandbox. On OK n8n's dialog shows its own words; on Error it shows this message, so a test that
 * finds settings to change is an Error naming them.
 */
const sandbox = useSandbox();
const newUser = (): ICredentialDataDecryptedObject => ({ baseUrl: sandbox.baseUrl, accessToken: sandbox.tokens.reader });

async function runTest(data: ICredentialDataDecryptedObject): Promise<INodeCredentialTestResult> {
	const context = new CredentialTestContext(createAdditionalData(undefined, {}));
	const testFunction = new ServiceReader().methods.credentialTest.serviceApiSettings;
	return await testFunction.call(context, { id: 'cred-1', name: 'Service API', type: 'serviceApi', data });
}

function expectReadOnly(): void {
	const received = sandbox.control.requests();
	expect(received.length).toBeGreaterThan(0);
	expect(received.length).toBeLessThanOrEqual(PROBE_LIMITS.requests);
	expect([...new Set(received.map((r) => r.method))]).toEqual(['GET']);
}

afterEach(() => sandbox.control.clearFaults());

test('a new user\'s Base URL and token: OK on the default dialect, else an Error naming each setting to change with its value', async () => {
	const result = await runTest(newUser());

	if (sandbox.dialect.name === 'default') {
		expect(result.status).toBe('OK');
		expect(result.message).not.toContain('Set ');
	} else {
		expect(result.status).toBe('Error');
		expect(result.message).toContain('Set Cursor Parameter to `after`');
		expect(result.message).toContain('Set JSON Format Value to `application/json`');
		expect(result.message).toContain('`output`');
		expect(result.message).toContain('`within_days`');
	}
	expectNoToken(result.message, sandbox.tokens.reader);
	expectReadOnly();
});

test('the settings a user of this dialect fills in: OK', async () => {
	const result = await runTest(serviceApi(sandbox));

	expect(result.status).toBe('OK');
	expectReadOnly();
});

// What the declarative test's rules said stays true: a 401 names the token (Send Token As only where the Service asks for another way), a wrong path the Base URL, a redirect the Base URL.
test('a token the Service refuses (401) though sent as it asks: an Error that starts by naming the Access Token, without the token', async () => {
	const wrong = 'svc_wrong_token_0123456789';
	const result = await runTest({ ...newUser(), accessToken: wrong });

	expect(result.status).toBe('Error');
	expect(result.message).toMatch(/^Sign-in: Check the Access Token \(it may be wrong, expired or revoked\): the Service refused it, sent as /);
	// Its 401 asks for the token as it was sent: no other way to send it is proposed.
	expect(result.message).not.toMatch(/Set Send Token As/);
	expectNoToken(result.message, wrong);
	expectReadOnly();
});

test('a Base URL with the path pasted in (…/v1/reader): an Error naming the Base URL to enter', async () => {
	const result = await runTest({ ...newUser(), baseUrl: `${sandbox.baseUrl}/v1/reader` });

	expect(result.status).toBe('Error');
	expect(result.message).toContain('Base URL');
	expect(result.message).toContain(sandbox.baseUrl);
	expectReadOnly();
});

test('a Service that redirects: an Error naming the Base URL; the redirect is not followed', async () => {
	sandbox.control.failRoute({ path: '/v1/reader/webhooks/catalogue', mode: 'redirect', status: 301, location: 'https://localhost:9/v1/reader/webhooks/catalogue' });
	const result = await runTest(newUser());

	expect(result.status).toBe('Error');
	expect(result.message).toContain('Base URL');
	expectReadOnly();
});

test.each([
	['an http:// Base URL', (data: ICredentialDataDecryptedObject) => ({ ...data, baseUrl: String(data.baseUrl).replace('https://', 'http://') }), /must be an https:\/\/ address/],
	['an empty token', (data: ICredentialDataDecryptedObject) => ({ ...data, accessToken: '' }), /Access Token of the Service API credential is empty/],
	['Send Token As with a Token Scheme of two words', (data: ICredentialDataDecryptedObject) => ({ ...data, advancedSettings: true, tokenPlacement: 'scheme', authScheme: 'Two Words' }), /Token Scheme "Two Words" is not one word/],
])('%s: an Error in the credential\'s words, nothing sent', async (_case, change, words) => {
	const result = await runTest(change(newUser()));

	expect(result.status).toBe('Error');
	expect(result.message).toMatch(words);
	expect(sandbox.control.requests()).toEqual([]);
});
