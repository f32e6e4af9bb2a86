import type { INodeType } from 'n8n-workflow';

import { ServiceApi } from '../../credentials/ServiceApi.credentials';
import { ServiceChangesTrigger } from '../../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import { ServiceReader } from '../../nodes/ServiceReader/ServiceReader.node';
import { ServiceTrigger } from '../../nodes/ServiceTrigger/ServiceTrigger.node';
import { refusedCredential, serviceApiSettings } from '../../nodes/shared/credentialTest';

// n8n runs a credential's declarative `test` before any node's `testedBy` (CredentialsTester in 1.x and
// 2.x): the credential has none, so the Test button runs Check Settings, from whichever node n8n picks.
test('the credential has no declarative test; every node names serviceApiSettings, a function it has', () => {
	expect('test' in new ServiceApi()).toBe(false);
	for (const node of [new ServiceReader(), new ServiceTrigger(), new ServiceChangesTrigger()] as INodeType[]) {
		const entry = node.description.credentials?.find((credential) => credential.name === 'serviceApi');
		expect({ node: node.description.name, testedBy: entry?.testedBy }).toEqual({ node: node.description.name, testedBy: 'serviceApiSettings' });
		expect(node.methods?.credentialTest?.serviceApiSettings).toBe(serviceApiSettings);
	}
});

describe('a credential that cannot be used is refused before anything is sent, in authenticate\'s words', () => {
	const good = { baseUrl: 'https://svc.example.com', accessToken: 'svc_token_123456' };
	const noRequest = { helpers: { request: () => Promise.reject(new Error('nothing may be sent')) } } as never;

	test.each([
		['an http:// Base URL', { ...good, baseUrl: 'http://svc.example.com' }, 'The Base URL "http://svc.example.com" must be an https:// address: the access token is sent over HTTPS only.'],
		['an empty token', { ...good, accessToken: '  ' }, 'The Access Token of the Service API credential is empty: enter your reader organisation\'s service access token.'],
		[
			'a Token Header Name that is no header name',
			{ ...good, advancedSettings: true, tokenPlacement: 'header', authHeaderName: 'Bad Header:' },
			'Token Header Name "Bad Header:" is not a header name: use letters, digits and - only, e.g. X-Api-Key (Advanced Settings in the Service API credential).',
		],
	])('%s', async (_case, data, words) => {
		expect(await refusedCredential(data)).toBe(words);
		expect(await serviceApiSettings.call(noRequest, { id: '1', name: 'Service API', type: 'serviceApi', data })).toEqual({ status: 'Error', message: words });
	});

	test('a usable credential is not refused', async () => {
		expect(await refusedCredential(good)).toBeUndefined();
	});
});
