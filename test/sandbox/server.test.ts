import { get } from 'node:https';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';

import { startSandbox } from './index';
import { SandboxClient } from './testClient';
import { useSandboxWithClient } from './useSandbox';

const { sandbox, client } = useSandboxWithClient();

describe('server and TLS', () => {
	it('listens on 127.0.0.1 over https with a certificate for 127.0.0.1 and localhost signed by the exposed CA', async () => {
		expect(sandbox.baseUrl).toBe(`https://127.0.0.1:${sandbox.port}`);
		const peer = await new Promise<X509Certificate>((resolve, reject) => {
			const socket = connect({ host: '127.0.0.1', port: sandbox.port, ca: sandbox.ca, servername: 'localhost' }, () => {
				const cert = socket.getPeerX509Certificate()!;
				socket.end();
				resolve(cert);
			});
			socket.on('error', reject);
		});
		expect(peer.subjectAltName).toBe('IP Address:127.0.0.1, DNS:localhost');
		expect(peer.verify(new X509Certificate(sandbox.ca).publicKey)).toBe(true);
		expect(new X509Certificate(sandbox.ca).ca).toBe(true);
	});

	it('is refused by a client that does not trust the sandbox CA (TLS stays on)', async () => {
		const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
			get(`${sandbox.baseUrl}/v1/reader/webhooks/catalogue`, (res) => res.resume()).on('error', resolve);
		});
		expect(error.code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/);
	});

	it('keeps connections alive so clients reuse them', async () => {
		const solo = new SandboxClient(sandbox);
		try {
			const first = await solo.request('/v1/reader/webhooks/catalogue');
			const second = await solo.request('/v1/reader/webhooks/catalogue');
			expect([first.status, second.status]).toEqual([200, 200]);
			expect(first.reusedSocket).toBe(false);
			expect(second.reusedSocket).toBe(true);
			expect(second.headers.connection).toBe('keep-alive');
		} finally {
			solo.close();
		}
	});

	it('answers unknown routes 404 and wrong methods 405 with JSON errors', async () => {
		const missing = await client.request('/v1/reader/nothing-here');
		expect(missing.status).toBe(404);
		expect(missing.json()).toEqual({ error: { code: 'not_found', message: 'No route GET /v1/reader/nothing-here.' } });
		const wrong = await client.request('/v1/reader/exports/portfolio', { method: 'DELETE' });
		expect(wrong.status).toBe(405);
		expect(wrong.headers.allow).toBe('GET');
		expect(wrong.json().error.code).toBe('method_not_allowed');
	});
});

describe('authentication', () => {
	it('answers 401 with a JSON error when the token is missing', async () => {
		const reply = await client.request('/v1/reader/exports/portfolio', { as: null });
		expect(reply.status).toBe(401);
		expect(reply.headers['www-authenticate']).toBe('Bearer');
		expect(reply.json()).toEqual({
			error: { code: 'unauthorized', message: 'Send the service access token as "Authorization: Bearer <token>".' },
		});
	});

	it.each([
		['a wrong token', 'Bearer svc_reader_not-a-real-token'],
		['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
		['an empty bearer', 'Bearer '],
	])('answers 401 for %s', async (_label, header) => {
		const reply = await client.request('/v1/reader/webhooks/catalogue', { as: { raw: header } });
		expect(reply.status).toBe(401);
		expect(reply.json()).toEqual({
			error: { code: 'unauthorized', message: 'The access token is not valid: check the token in your credentials.' },
		});
	});

	it('gives each reader organisation its own token', () => {
		const values = Object.values(sandbox.tokens);
		expect(Object.keys(sandbox.tokens).sort()).toEqual(['noAdmin', 'noExports', 'other', 'reader']);
		expect(new Set(values).size).toBe(4);
		expect(values.every((t) => t.length > 30)).toBe(true);
	});

	it('accepts fixed tokens when configured', async () => {
		const fixed = await startSandbox({ seed: 'empty', tokens: { reader: 'fixed-reader-token' } });
		const fixedClient = new SandboxClient(fixed);
		try {
			expect(fixed.tokens.reader).toBe('fixed-reader-token');
			const reply = await fixedClient.request('/v1/reader/webhooks/catalogue', { as: { raw: 'Bearer fixed-reader-token' } });
			expect(reply.status).toBe(200);
		} finally {
			fixedClient.close();
			await fixed.close();
		}
	});
});

describe('reader organisation flags', () => {
	const exportPaths = [
		'/v1/reader/exports/portfolio?format=csv',
		'/v1/reader/exports/expiries?format=csv',
		'/v1/reader/exports/decisions',
		'/v1/reader/exports/invitations?format=csv',
		'/v1/reader/exports/statements',
		'/v1/reader/exports/records/KE-1001',
		'/v1/reader/exports/audit-packs/KE-1001/AP-1001-1',
	];

	it.each(exportPaths)('refuses %s with 403 exports_disabled when exports are off', async (path) => {
		const reply = await client.request(path, { as: 'noExports' });
		expect(reply.status).toBe(403);
		expect(reply.json()).toEqual({
			error: { code: 'exports_disabled', message: 'Exports are not switched on for this reader organisation: ask the Service to switch them on.' },
		});
	});

	it.each(exportPaths)('refuses %s with 403 no_reader_admin when the reader has no admin', async (path) => {
		const reply = await client.request(path, { as: 'noAdmin' });
		expect(reply.status).toBe(403);
		expect(reply.json()).toEqual({
			error: { code: 'no_reader_admin', message: 'This reader organisation has no reader admin: appoint one before using this route.' },
		});
	});

	it('refuses endpoint creation and SSO without a reader admin, but still serves the catalogue', async () => {
		const create = await client.request('/v1/reader/webhooks', { method: 'POST', as: 'noAdmin', body: { url: 'https://127.0.0.1:1/x' } });
		expect(create.status).toBe(403);
		expect(create.json().error.code).toBe('no_reader_admin');
		const sso = await client.request('/v1/reader/sso', { method: 'PUT', as: 'noAdmin', body: {} });
		expect(sso.status).toBe(403);
		expect(sso.json().error.code).toBe('no_reader_admin');
		expect((await client.request('/v1/reader/webhooks/catalogue', { as: 'noAdmin' })).status).toBe(200);
		expect((await client.request('/v1/reader/webhooks/catalogue', { as: 'noExports' })).status).toBe(200);
	});

	it('follows the flags set through the control API', async () => {
		sandbox.control.setReaderFlags({ exportsEnabled: false });
		expect((await client.request('/v1/reader/exports/portfolio')).json().error.code).toBe('exports_disabled');
		sandbox.control.setReaderFlags({ exportsEnabled: true, readerAdmin: false });
		expect((await client.request('/v1/reader/exports/portfolio')).json().error.code).toBe('no_reader_admin');
		sandbox.control.setReaderFlags({ readerAdmin: true });
		expect((await client.request('/v1/reader/exports/portfolio')).status).toBe(200);
		sandbox.control.setReaderFlags({ exportsEnabled: true }, 'noExports');
		expect((await client.request('/v1/reader/exports/portfolio', { as: 'noExports' })).status).toBe(200);
		sandbox.control.setReaderFlags({ exportsEnabled: false }, 'noExports');
	});
});

describe('received requests', () => {
	it('records method, path, query, headers without Authorization, body, reader and status', async () => {
		sandbox.control.clearRequests();
		await client.request('/v1/reader/policy-runs?dry=1', { method: 'POST', body: { ke: 'KE-1001', policy: 'p1' } });
		const [received] = sandbox.control.requests({ path: '/v1/reader/policy-runs' });
		expect(received).toMatchObject({
			method: 'POST',
			path: '/v1/reader/policy-runs',
			query: { dry: '1' },
			body: '{"ke":"KE-1001","policy":"p1"}',
			reader: 'reader',
			status: 201,
		});
		expect(received.headers['content-type']).toBe('application/json');
		expect(received.headers.authorization).toBeUndefined();
		expect(JSON.stringify(sandbox.control.requests())).not.toContain(sandbox.tokens.reader);
	});
});

describe('HTTP control surface', () => {
	it('runs control methods with the control token and refuses reader tokens', async () => {
		const refused = await client.request('/__control/companies', { method: 'POST', body: { args: [] } });
		expect(refused.status).toBe(401);
		const reply = await client.request('/__control/grantShare', {
			method: 'POST',
			as: { raw: `Bearer ${sandbox.controlToken}` },
			body: { args: ['KE-1011', { tier: 'tier-9' }] },
		});
		expect(reply.status).toBe(200);
		expect(reply.json().result).toMatchObject({ eventType: 'share_granted', reader: 'reader' });
		expect(sandbox.control.shares().find((s) => s.ke === 'KE-1011')).toMatchObject({ state: 'shared', tier: 'tier-9' });
		const bad = await client.request('/__control/grantShare', {
			method: 'POST', as: { raw: `Bearer ${sandbox.controlToken}` }, body: { args: ['KE-9999'] },
		});
		expect(bad.status).toBe(400);
		expect(bad.json().error.message).toBe('No company with KE KE-9999 in the sandbox; add it with control.addCompany first.');
		// Control calls are not Service traffic, so they stay out of the received-request log.
		expect(sandbox.control.requests().some((r) => r.path.startsWith('/__control'))).toBe(false);
	});
});
