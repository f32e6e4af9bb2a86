import { createHash, createPublicKey, verify } from 'node:crypto';

import { startSandbox } from './index';
import { SandboxClient } from './testClient';
import { useReceiverEndpoint, useSandboxWithClient } from './useSandbox';

const { sandbox, client } = useSandboxWithClient({ timeScale: 1000 });
// The alerts these tests raise are delivered to a receiver of the main reader.
useReceiverEndpoint(sandbox);

/** Checks a downloaded file against the published verification, as a reader would locally. */
function checksLocally(bytes: Buffer, verification: { sha256: string; signature: string; public_key: string }): boolean {
	const key = createPublicKey({ key: Buffer.from(verification.public_key, 'base64'), format: 'der', type: 'spki' });
	return createHash('sha256').update(bytes).digest('hex') === verification.sha256
		&& verify(null, bytes, key, Buffer.from(verification.signature, 'base64'));
}

describe('signed records', () => {
	it('serves the record file byte for byte as an attachment named after its KS', async () => {
		const reply = await client.request('/v1/reader/exports/records/KE-1009');
		expect(reply.status).toBe(200);
		expect(reply.headers['content-type']).toBe('application/json');
		expect(reply.headers['content-disposition']).toBe('attachment; filename="KS-1009-v1.json"');
		expect(reply.body.equals(sandbox.control.record('KE-1009').bytes)).toBe(true);
		// The layout is deliberate: re-serialising the JSON would change the bytes.
		expect(reply.text.startsWith('{\r\n   "ks" : "KS-1009-v1",\n')).toBe(true);
		expect(reply.text).toContain('"company_name" : "Société Générale d\'Été"');
		expect(Buffer.from(JSON.stringify(JSON.parse(reply.text), null, 2)).equals(reply.body)).toBe(false);
		expect(JSON.parse(reply.text)).toMatchObject({ ks: 'KS-1009-v1', ke: 'KE-1009' });
	});

	it('verifies at the public route (no token) with an Ed25519 signature over the exact bytes', async () => {
		const file = await client.request('/v1/reader/exports/records/KE-1001');
		const reply = await client.request('/v1/public/reports/KS-1001-v1/verify', { as: null });
		expect(reply.status).toBe(200);
		const verification = reply.json();
		expect(verification).toEqual({
			ks: 'KS-1001-v1',
			ke: 'KE-1001',
			valid: true,
			algorithm: 'Ed25519',
			sha256: createHash('sha256').update(file.body).digest('hex'),
			signature: expect.stringMatching(/^[A-Za-z0-9+/]{86}==$/),
			public_key: expect.any(String),
			signed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
		});
		expect(checksLocally(file.body, verification)).toBe(true);
	});

	it('lets a reader detect a tampered copy: one changed byte fails the local check', async () => {
		const file = await client.request('/v1/reader/exports/records/KE-1002');
		const verification = (await client.request('/v1/public/reports/KS-1002-v1/verify')).json();
		const copy = Buffer.from(file.body);
		copy[copy.indexOf('active')] = 'A'.charCodeAt(0);
		expect(checksLocally(copy, verification)).toBe(false);
		// Re-encoding the text (e.g. reading it as latin1) also breaks it.
		expect(checksLocally(Buffer.from(file.body.toString('latin1'), 'utf8'), verification)).toBe(false);
	});

	it('can serve a tampered file (control.tamperRecord) that no longer matches the published signature', async () => {
		sandbox.control.tamperRecord('KE-1003');
		const file = await client.request('/v1/reader/exports/records/KE-1003');
		const verification = (await client.request('/v1/public/reports/KS-1003-v1/verify')).json();
		expect(verification.valid).toBe(true);
		expect(file.text).toContain('"register_status" : "Xactive"');
		expect(checksLocally(file.body, verification)).toBe(false);
	});

	it('answers 404 for an unknown KS at the verify route', async () => {
		const reply = await client.request('/v1/public/reports/KS-NOPE/verify');
		expect(reply.status).toBe(404);
		expect(reply.json()).toEqual({ error: { code: 'not_found', message: 'No signed report KS-NOPE: check the KS.' } });
	});

	it('answers 404 for companies that do not share with this reader', async () => {
		for (const ke of ['KE-1011', 'KE-1013', 'KE-1012', 'KE-UNKNOWN']) {
			const reply = await client.request(`/v1/reader/exports/records/${ke}`);
			expect(reply.status).toBe(404);
			expect(reply.json()).toEqual({
				error: { code: 'not_shared', message: `Company ${ke} does not share its record with this reader, or the share has ended.` },
			});
		}
		expect((await client.request('/v1/reader/exports/records/KE-1013', { as: 'other' })).status).toBe(200);
	});

	it('publishes a new version on supersede; the old KS still verifies its own file', async () => {
		const before = await client.request('/v1/reader/exports/records/KE-1004');
		const [alert] = sandbox.control.supersedeRecord('KE-1004');
		expect(JSON.parse(alert.body)).toMatchObject({ event_type: 'report_superseded', ids: { organisation: 'KE-1004', report: 'KS-1004-v2' } });
		const after = await client.request('/v1/reader/exports/records/KE-1004');
		expect(after.headers['content-disposition']).toBe('attachment; filename="KS-1004-v2.json"');
		const oldVerification = (await client.request('/v1/public/reports/KS-1004-v1/verify')).json();
		const newVerification = (await client.request('/v1/public/reports/KS-1004-v2/verify')).json();
		expect(checksLocally(before.body, oldVerification)).toBe(true);
		expect(checksLocally(after.body, newVerification)).toBe(true);
		await sandbox.control.whenSettled(alert.alertId);
	});
});

describe('share state machine', () => {
	it('grant -> share_granted and the routes answer; revoke -> share_revoked and every reader route answers 404', async () => {
		const company = sandbox.control.addCompany({ name: 'Fresh Supplier Ltd' });
		expect((await client.request(`/v1/reader/exports/records/${company.ke}`)).status).toBe(404);

		const granted = sandbox.control.grantShare(company.ke, { endsInDays: 10 });
		const [grantDelivery] = await sandbox.control.whenSettled(granted.alertId);
		expect(grantDelivery.state).toBe('delivered');
		expect(JSON.parse(grantDelivery.body)).toMatchObject({ event_type: 'share_granted', ids: { organisation: company.ke } });
		expect((await client.request(`/v1/reader/exports/records/${company.ke}`)).status).toBe(200);
		const portfolio = await client.request('/v1/reader/exports/portfolio?page_size=1000');
		expect(portfolio.json().data.map((r: { ke: string }) => r.ke)).toContain(company.ke);
		const run = await client.request('/v1/reader/policy-runs', { method: 'POST', body: { ke: company.ke } });
		expect(run.status).toBe(201);
		sandbox.control.emit('finding_new', { organisation: company.ke, report: company.ks });

		const revoked = sandbox.control.revokeShare(company.ke);
		const [revokeDelivery] = await sandbox.control.whenSettled(revoked.alertId);
		expect(JSON.parse(revokeDelivery.body)).toMatchObject({ event_type: 'share_revoked', ids: { organisation: company.ke } });
		expect(sandbox.control.shares().find((s) => s.ke === company.ke)?.state).toBe('revoked');

		for (const path of [`/v1/reader/exports/records/${company.ke}`, `/v1/reader/exports/audit-packs/${company.ke}/AP-X`]) {
			expect((await client.request(path)).status).toBe(404);
		}
		expect((await client.request('/v1/reader/policy-runs', { method: 'POST', body: { ke: company.ke } })).status).toBe(404);
		const after = await client.request('/v1/reader/exports/portfolio?page_size=1000');
		expect(after.json().data.map((r: { ke: string }) => r.ke)).not.toContain(company.ke);
		const statements = await client.request('/v1/reader/exports/statements?page_size=1000');
		expect(statements.json().data.map((s: { ke: string }) => s.ke)).not.toContain(company.ke);
		const expiries = await client.request('/v1/reader/exports/expiries?page_size=1000');
		expect(expiries.json().data.map((s: { ke: string }) => s.ke)).not.toContain(company.ke);
	});

	it('a share that ends sends share_revoked too and the record answers 404', async () => {
		const alert = sandbox.control.endShare('KE-1010');
		expect(JSON.parse(alert.body)).toMatchObject({ event_type: 'share_revoked', ids: { organisation: 'KE-1010' } });
		expect(sandbox.control.shares().find((s) => s.ke === 'KE-1010')?.state).toBe('ended');
		expect((await client.request('/v1/reader/exports/records/KE-1010')).status).toBe(404);
		expect(() => sandbox.control.endShare('KE-1010')).toThrow('KE-1010 is not shared with reader reader; nothing to end.');
		await sandbox.control.whenSettled(alert.alertId);
	});

	it('a share is per reader: revoking for one reader leaves the other untouched', async () => {
		const alert = sandbox.control.revokeShare('KE-1001', 'other');
		expect((await client.request('/v1/reader/exports/records/KE-1001', { as: 'other' })).status).toBe(404);
		expect((await client.request('/v1/reader/exports/records/KE-1001')).status).toBe(200);
		expect(alert.deliveryIds).toEqual([]);
	});
});

describe('access log', () => {
	it('writes every export to the reader log and record exports to the company log too', async () => {
		const fresh = await startSandbox();
		const freshClient = new SandboxClient(fresh);
		try {
			await freshClient.request('/v1/reader/exports/records/KE-1005');
			await freshClient.request('/v1/reader/exports/portfolio?format=csv&page_size=4');
			await freshClient.request('/v1/reader/exports/records/KE-1011');
			await freshClient.request('/v1/public/reports/KS-1005-v1/verify');
			const log = fresh.control.accessLog();
			expect(log.map(({ at: _at, ...entry }) => entry)).toEqual([
				{ reader: 'reader', export: 'record', path: '/v1/reader/exports/records/KE-1005', ke: 'KE-1005' },
				{ reader: 'reader', export: 'portfolio', path: '/v1/reader/exports/portfolio', format: 'csv', page: 1 },
			]);
			expect(fresh.control.companyAccessLog('KE-1005')).toEqual([log[0]]);
			expect(fresh.control.companyAccessLog('KE-1011')).toEqual([]);
			expect(fresh.control.accessLog('other')).toEqual([]);
		} finally {
			freshClient.close();
			await fresh.close();
		}
	});
});
