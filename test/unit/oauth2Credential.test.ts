import { advancedSettingsFields } from '../../nodes/shared/settings/advancedSettings';
import { ServiceOAuth2Api } from '../../credentials/ServiceOAuth2Api.credentials';
import { refusedCredential } from '../../nodes/shared/credentialTest';
import { sendAuthenticated } from '../../nodes/shared/transport/authenticatedRequest';
import { credentialName, credentialSecrets } from '../../nodes/shared/transport/credentialKind';
import { readServiceSettings } from '../../nodes/shared/transport/settings';
import { sealSecret, unsealSecret } from '../../nodes/ServiceTrigger/verify/secretSeal';

const oauth2 = (accessToken: string) => ({
	baseUrl: 'https://service.example.com',
	grantType: 'clientCredentials',
	clientId: 'reader-client',
	clientSecret: 'client-secret-0123456789',
	accessTokenUrl: 'https://auth.example.com/token',
	oauthTokenData: { access_token: accessToken, token_type: 'Bearer', expires_in: 2 },
});

describe('the Service OAuth2 API credential', () => {
	it('is a client-credentials grant sharing the Advanced Settings, without Send Token As', () => {
		const credential = new ServiceOAuth2Api();
		expect(credential.extends).toEqual(['oAuth2Api']);
		const names = credential.properties.map((p) => p.name);
		expect(credential.properties.find((p) => p.name === 'grantType')).toMatchObject({ type: 'hidden', default: 'clientCredentials' });
		expect(names).toEqual(expect.arrayContaining(['baseUrl', 'accessTokenUrl', 'scope', 'authentication', 'advancedSettings', 'maxPages']));
		expect(names).not.toContain('tokenPlacement');
		const shared = advancedSettingsFields.filter((f) => !['tokenPlacement', 'authHeaderName', 'authScheme'].includes(f.name));
		expect(credential.properties.slice(-shared.length)).toEqual(shared);
	});

	it('is the one a node with Authentication: OAuth2 reads; Access Token otherwise, and in workflows from before', () => {
		expect(credentialName({ getNode: () => ({ parameters: { authentication: 'oAuth2' } }) })).toBe('serviceOAuth2Api');
		expect(credentialName({ getNode: () => ({ parameters: { authentication: 'accessToken' } }) })).toBe('serviceApi');
		expect(credentialName({ getNode: () => ({ parameters: {} }) })).toBe('serviceApi');
	});

	it('keeps the access token and the client secret out of what the nodes output', () => {
		const read = readServiceSettings(oauth2('short-lived-token-abcdef'));
		if (read.problem !== undefined) throw new Error(read.problem);
		const text = 'token short-lived-token-abcdef secret client-secret-0123456789 ok';
		expect(read.settings.redact(text)).toBe('token *** secret *** ok');
		expect(read.settings.redactValue({ a: ['client-secret-0123456789'] })).toEqual({ a: ['***'] });
		const error = new Error('Bearer short-lived-token-abcdef');
		read.settings.redactError(error);
		expect(error.message).toBe('Bearer ***');
	});

	it('seals the signing secret under the client secret: a new access token still opens it', () => {
		const before = credentialSecrets(oauth2('token-one-aaaaaaaa'));
		const after = credentialSecrets(oauth2('token-two-bbbbbbbb'));
		expect(before.accessToken).toBe('token-one-aaaaaaaa');
		const sealed = sealSecret('whsec_secret', before.sealKey, 'https://n8n.example.com/webhook/x');
		expect(unsealSecret(sealed, after.sealKey, 'https://n8n.example.com/webhook/x')).toBe('whsec_secret');
		expect(credentialSecrets({ baseUrl: 'https://s', accessToken: 'pasted-token-1234' }).sealKey).toBe('pasted-token-1234');
	});

	it('is not refused for an empty Access Token (n8n fetches its token)', async () => {
		expect(await refusedCredential(oauth2(''))).toBeUndefined();
		expect(await refusedCredential({ baseUrl: 'https://service.example.com', accessToken: '' })).toMatch(/Access Token/);
	});
});

describe('a request with the OAuth2 credential', () => {
	const node = { parameters: { authentication: 'oAuth2' } };
	it('lets a 401 throw, so that n8n fetches a new token, and hands back any other status', async () => {
		const sent: unknown[] = [];
		const answers = [{ statusCode: 404, headers: {}, body: 'no' }];
		const context = {
			getNode: () => node as never,
			helpers: {
				httpRequestWithAuthentication: async (name: string, options: { ignoreHttpStatusErrors?: unknown }) => {
					sent.push([name, options.ignoreHttpStatusErrors]);
					return answers.shift();
				},
			},
		};
		expect(await sendAuthenticated(context, { url: 'https://service.example.com/v1' })).toEqual({ statusCode: 404, headers: {}, body: 'no' });
		expect(sent).toEqual([['serviceOAuth2Api', { except: [401] }]]);
	});

	it('on an n8n that hands a 401 back, sends once more letting it throw, and reads the status the error carries', async () => {
		const sent: unknown[] = [];
		const context = {
			getNode: () => node as never,
			helpers: {
				httpRequestWithAuthentication: async (_name: string, options: { ignoreHttpStatusErrors?: unknown }) => {
					sent.push(options.ignoreHttpStatusErrors);
					if (sent.length === 1) return { statusCode: 401, headers: {}, body: undefined };
					throw Object.assign(new Error('Request failed with status code 403'), { response: { status: 403, headers: { a: 'b' }, data: 'denied' } });
				},
			},
		};
		expect(await sendAuthenticated(context, { url: 'https://service.example.com/v1' })).toEqual({ statusCode: 403, headers: { a: 'b' }, body: 'denied' });
		expect(sent).toEqual([{ except: [401] }, false]);
	});

	it('passes a failure without an answer on (the token endpoint refusing, a dropped connection)', async () => {
		const context = {
			getNode: () => node as never,
			helpers: { httpRequestWithAuthentication: async () => Promise.reject(new Error('Failed to acquire OAuth2 access token: 400')) },
		};
		await expect(sendAuthenticated(context, { url: 'https://service.example.com/v1' })).rejects.toThrow('Failed to acquire OAuth2 access token');
	});

	it('n8n 1.x: a token refusal carrying only client-oauth2\'s words (no code, no cause) is a token failure, asked once; the Scope named for invalid_scope', async () => {
		let calls = 0;
		// How n8n 1.123 throws it: a NodeApiError whose message is the RFC 6749 error's words.
		const refusal = (words: string) => ({
			getNode: () => node as never,
			helpers: { httpRequestWithAuthentication: async () => { calls++; return await Promise.reject(Object.assign(new Error(words), { name: 'NodeApiError' })); } },
		});
		await expect(sendAuthenticated(refusal('The requested scope is invalid, unknown, or malformed.'), { url: 'https://service.example.com/v1' })).rejects.toMatchObject({
			message: 'Could not get an OAuth2 access token (The requested scope is invalid, unknown, or malformed.)',
			description: expect.stringContaining('The token endpoint refused the Scope'),
		});
		await expect(sendAuthenticated(refusal('Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).'), { url: 'https://service.example.com/v1' }))
			.rejects.toMatchObject({ description: expect.stringContaining('Check Access Token URL, Client ID, Client Secret') });
		expect(calls).toBe(2);
		// A dropped connection stays what it was: not said to be the token endpoint's.
		await expect(sendAuthenticated(refusal('socket hang up'), { url: 'https://service.example.com/v1' })).rejects.toThrow(/^socket hang up$/);
	});
});

describe('a 401 after n8n renewed the token', () => {
	it('is the answer: not sent a third time', async () => {
		let calls = 0;
		const context = {
			getNode: () => ({ parameters: { authentication: 'oAuth2' } }) as never,
			helpers: {
				httpRequestWithAuthentication: async () => {
					calls++;
					throw Object.assign(new Error('Request failed with status code 401'), { response: { status: 401, headers: {}, data: 'expired' } });
				},
			},
		};
		expect((await sendAuthenticated(context, { url: 'https://service.example.com/v1' })).statusCode).toBe(401);
		expect(calls).toBe(1);
	});
});
