import { readServiceSettings } from '../../nodes/shared/transport/settings';
import { describeServiceError } from '../../nodes/shared/transport/errors';
import { parseChallenges, readSignIn, signInHeader, wantedSignIn } from '../../nodes/shared/transport/signIn';
import { notSharedMeaning } from '../../nodes/ServiceReader/helpers/shareStatus';
import { ServiceApi } from '../../credentials/ServiceApi.credentials';

const TOKEN = 'svc_reader_0123456789abcdef';

describe('Send Token As', () => {
	const authenticate = (advanced: Record<string, unknown>, url = 'https://svc.example.com/v1/reader/webhooks/catalogue') =>
		new ServiceApi().authenticate({ baseUrl: 'https://svc.example.com', accessToken: TOKEN, advancedSettings: true, ...advanced }, { url, method: 'GET' });

	test('bearer by default; the raw token in another header; another scheme in Authorization', async () => {
		expect((await authenticate({})).headers).toEqual({ Authorization: `Bearer ${TOKEN}` });
		expect((await authenticate({ tokenPlacement: 'header', authHeaderName: 'X-Api-Key' })).headers).toEqual({ 'X-Api-Key': TOKEN });
		expect((await authenticate({ tokenPlacement: 'scheme', authScheme: 'Token' })).headers).toEqual({ Authorization: `Token ${TOKEN}` });
		// The raw token in Authorization itself, as some gateways want it.
		expect((await authenticate({ tokenPlacement: 'header', authHeaderName: 'Authorization' })).headers).toEqual({ Authorization: TOKEN });
		// Off behind the Advanced Settings switch: bearer, whatever was stored.
		expect((await new ServiceApi().authenticate({ baseUrl: 'https://svc.example.com', accessToken: TOKEN, advancedSettings: false, tokenPlacement: 'header' }, { url: 'https://svc.example.com/x' })).headers).toEqual({ Authorization: `Bearer ${TOKEN}` });
	});

	test('every guarantee of authenticate holds with another header: https only, the Base URL origin only, no redirects, a timeout', async () => {
		const header = { tokenPlacement: 'header', authHeaderName: 'X-Api-Key' };
		await expect(authenticate(header, 'https://elsewhere.example/v1')).rejects.toThrow(/Base URL's host only/);
		await expect(new ServiceApi().authenticate({ baseUrl: 'http://svc.example.com', accessToken: TOKEN, advancedSettings: true, ...header }, { url: 'http://svc.example.com/v1' })).rejects.toThrow(/https/);
		const sent = await authenticate(header);
		expect([sent.disableFollowRedirect, sent.sendCredentialsOnCrossOriginRedirect, sent.timeout]).toEqual([true, false, 60_000]);
	});

	test('a header name or scheme that is not one token is refused naming the setting; so are headers the client writes', async () => {
		await expect(authenticate({ tokenPlacement: 'header', authHeaderName: 'X Api: Key' })).rejects.toThrow(/Token Header Name "X Api: Key" is not a header name/);
		await expect(authenticate({ tokenPlacement: 'header', authHeaderName: 'X-Api-Key\r\nHost: evil' })).rejects.toThrow(/Token Header Name/);
		await expect(authenticate({ tokenPlacement: 'header', authHeaderName: 'Host' })).rejects.toThrow(/Token Header Name cannot be Host/);
		await expect(authenticate({ tokenPlacement: 'scheme', authScheme: 'Api Key' })).rejects.toThrow(/Token Scheme "Api Key" is not one word/);
		expect(readServiceSettings({ baseUrl: 'https://svc.example.com', advancedSettings: true, tokenPlacement: 'scheme', authScheme: 'a b' })).toEqual({
			problem: expect.stringMatching(/^Token Scheme "a b" is not one word.*Advanced Settings in the Service API credential/),
		});
		expect(readSignIn({ tokenPlacement: 'header' })).toEqual({ signIn: { form: 'header', header: 'X-Api-Key' } });
		expect(signInHeader({ form: 'scheme', scheme: 'ApiKey' }, 't')).toEqual({ Authorization: 'ApiKey t' });
	});
});

describe('a 401 that says what to set', () => {
	test.each([
		['ApiKey header="X-Api-Key"', '', 'X-Api-Key: <token>', 'set Send Token As to Another Header and Token Header Name to X-Api-Key'],
		['Token realm="api"', '', 'Authorization: Token <token>', 'set Send Token As to Another Authorization Scheme and Token Scheme to Token'],
		['ApiKey', '', 'Authorization: ApiKey <token>', 'set Send Token As to Another Authorization Scheme and Token Scheme to ApiKey'],
		['Basic realm="gateway", charset="UTF-8"', '', 'Authorization: Basic <token>', 'set Send Token As to Another Authorization Scheme and Token Scheme to Basic'],
		['Key realm="Send your key in the X-Auth-Token header"', '', 'X-Auth-Token: <token>', 'Token Header Name to X-Auth-Token'],
		['', 'Missing header X-Service-Key.', 'X-Service-Key: <token>', 'Token Header Name to X-Service-Key'],
		['apikey in="header", name="x-gateway-key"', '', 'x-gateway-key: <token>', 'Token Header Name to x-gateway-key'],
	])('WWW-Authenticate %j (words %j) names %s', (challenge, words, shown, setting) => {
		const said = describeServiceError(401, { error: { code: 'unauthorized', message: words } }, 1, challenge);
		expect(said.message).toContain(`The Service wants the access token sent as ${shown} (401): `);
		expect(said.message).toContain(setting);
		expect(said.description).toContain('turn on Advanced Settings');
	});

	test('when the token already goes as asked, or the challenge is Bearer to a bearer, it is the token that was refused', () => {
		expect(describeServiceError(401, {}, 1, 'Bearer error="invalid_token"').message).toBe('The Service rejected the access token (401)');
		expect(describeServiceError(401, {}, 1, 'ApiKey header="X-Api-Key"', { form: 'header', header: 'x-api-key' }).message).toBe('The Service rejected the access token (401)');
		expect(describeServiceError(401, {}, 1, 'Token', { form: 'scheme', scheme: 'Token' }).description).toContain('It was sent as Authorization: Token <token>');
		// Sent in a header, asked for a bearer: back to the default.
		expect(describeServiceError(401, {}, 1, 'Bearer', { form: 'header', header: 'X-Api-Key' }).message).toMatch(/sent as Authorization: Bearer <token> \(401\): set Send Token As to Authorization: Bearer/);
		// A passkey or a handshake is not a token's to give: the words of today.
		expect(describeServiceError(401, {}, 1, 'Passkey realm="service"').message).toBe('The Service asks for Passkey authentication for this request (401), not an access token');
		expect(describeServiceError(401, {}, 1, 'Negotiate').message).toMatch(/asks for Negotiate authentication/);
	});

	test('WWW-Authenticate is read in one pass: several challenges, quoted commas and escapes, and a long hostile value', () => {
		expect(parseChallenges('Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple"').map((c) => [c.scheme, [...c.params]])).toEqual([
			['Newauth', [['realm', 'apps'], ['type', '1'], ['title', 'Login to "apps"']]],
			['Basic', [['realm', 'simple']]],
		]);
		expect(wantedSignIn('Basic dXNlcjpwYXNz==')).toEqual({ form: 'scheme', scheme: 'Basic' });
		const hostile = `${'a="'.repeat(50_000)}${'x-'.repeat(50_000)}`;
		const started = performance.now();
		wantedSignIn(hostile, hostile);
		expect(performance.now() - started).toBeLessThan(500);
	});
});

describe('does not share: 404, 410, and a 403 only when its words say the share is over', () => {
	test.each([
		[404, 'not_found', 'No such thing', 'maybe'],
		[410, 'gone', 'Access to company KE-1 has been withdrawn by the company.', 'maybe'],
		[410, 'share_ended', '', 'share-over'],
		[404, 'not_shared', 'Company KE-1 does not share its record with this reader', 'share-over'],
		[403, 'share_revoked', 'The share was revoked.', 'share-over'],
		[403, 'forbidden', 'This company no longer shares its record with you.', 'share-over'],
		[403, 'forbidden', 'Forbidden', 'other'],
		[403, 'insufficient_scope', 'The token does not have the shares:read scope.', 'other'],
		[403, 'token_revoked', 'Your token was revoked.', 'other'],
		[403, 'forbidden', 'You do not have permission to read shared records.', 'other'],
		[400, 'share_ended', '', 'other'],
	])('%i %s %j: %s', (status, code, message, meaning) => {
		expect(notSharedMeaning(status, code, message)).toBe(meaning);
	});
});

describe('a 428 for the passkey keeps its words', () => {
	test('428 Precondition Required with the passkey code, or words naming the passkey: a reader admin must confirm one; never the token', () => {
		const coded = describeServiceError(428, { error: { code: 'passkey_required', message: 'Confirm your passkey first.' } });
		expect(coded.message).toBe('Setting single sign-on needs a recent passkey confirmation (428)');
		expect(coded.description).toMatch(/^Ask a reader admin to confirm their passkey in the Service/);
		expect(describeServiceError(428, { message: 'A recent passkey confirmation is required.' }).message).toBe('Setting single sign-on needs a recent passkey confirmation (428)');
		expect(describeServiceError(428, {}).message).toBe('The Service refused the request (428)');
	});
});
