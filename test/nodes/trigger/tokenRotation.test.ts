import { heldSecrets, resealRetries } from '../../../nodes/ServiceTrigger/verify/heldSecrets';
import { recentKeys } from '../../../nodes/ServiceTrigger/verify/recentKeys';
import { serviceApi } from '../../sandbox/credential';
import { freshProcess, secretWindows, useTriggerSetup } from './setup';

// The access token rotated under a running trigger, and after a restart: the stored signing secret is
// sealed again or, held nowhere, a new endpoint is registered; no alert passes unverified.
const KE = 'KE-1001';

describe('Service Trigger after the access token is rotated in the running n8n', () => {
	// The Service's retry schedule compressed: its retry a minute later comes at once.
	const rotation = useTriggerSetup({ sandbox: { timeScale: 86_400 } });
	const sealed = () => (rotation.harness.savedNodeData().endpoints as Record<string, { sealedSecret: string }>)[rotation.harness.webhookUrl()].sealedSecret;

	it('keeps verifying: the first delivery after it seals the held secret again and asks to be sent again, so that n8n saves it; a restart then verifies with the new token', async () => {
		const { sandbox } = rotation;
		await rotation.harness.activate();
		const [endpoint] = sandbox.control.webhookEndpoints();
		const sealedBefore = sealed();
		const token = sandbox.control.rotateToken();
		rotation.harness = rotation.harness.restart({ credentials: { serviceApi: serviceApi(sandbox, { token }) } });

		const alert = sandbox.control.emit('ledger_high', { organisation: KE });
		const [delivery] = await sandbox.control.whenSettled(alert.alertId);
		expect(delivery.attempts.map((attempt) => attempt.status)).toEqual([503, 200]);
		expect(await rotation.executionsOf(alert.alertId)).toHaveLength(1);
		expect(rotation.logs.some((line) => line.message.includes('the access token changed; the endpoint\'s signing secret, still held by this n8n process, is now sealed with the new token'))).toBe(true);
		expect(sealed()).not.toBe(sealedBefore);

		// A new n8n process, which holds nothing: the saved secret opens with the new token.
		heldSecrets.clear();
		resealRetries.clear();
		recentKeys.forgetAll();
		rotation.harness = rotation.harness.restart();
		const next = sandbox.control.emit('ledger_high', { organisation: KE });
		expect((await sandbox.control.whenSettled(next.alertId)).map((d) => d.attempts.map((attempt) => attempt.status))).toEqual([[200]]);
		expect(await rotation.executionsOf(next.alertId)).toHaveLength(1);

		// Activation keeps the endpoint, and the Service's retries to it.
		sandbox.control.clearRequests();
		await expect(rotation.harness.activate('production', 'init')).resolves.toEqual({ created: false });
		expect(sandbox.control.webhookEndpoints().map((e) => e.id)).toEqual([endpoint.id]);
		expect(sandbox.control.requests({ method: 'POST' })).toHaveLength(0);
		await rotation.harness.deactivate();
	});

	it('checkExists in the same process keeps the endpoint, sealed again, when no delivery came first', async () => {
		const { sandbox } = rotation;
		heldSecrets.clear();
		await rotation.harness.activate();
		const [endpoint] = sandbox.control.webhookEndpoints();
		const sealedBefore = sealed();
		const token = sandbox.control.rotateToken();
		rotation.harness = rotation.harness.restart({ credentials: { serviceApi: serviceApi(sandbox, { token }) } });

		sandbox.control.clearRequests();
		await expect(rotation.harness.activate('production', 'init')).resolves.toEqual({ created: false });
		expect(sandbox.control.webhookEndpoints().map((e) => e.id)).toEqual([endpoint.id]);
		expect(sealed()).not.toBe(sealedBefore);
		await rotation.harness.deactivate();
	});
});

describe('Service Trigger renews its endpoint when the token was rotated and n8n restarted before the next delivery', () => {
	// The Service's 24-hour retry schedule compressed into about a second.
	const heal = useTriggerSetup({ sandbox: { timeScale: 86_400 } });
	const stored = () => (heal.harness.savedNodeData().endpoints as Record<string, { id?: string; sealedSecret: string; renewalAttemptedAt?: string }>)[heal.harness.webhookUrl()];
	const posts = () => heal.sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' });
	const renewalLines = () => heal.logs.filter((line) => line.message.includes('no n8n process holds it'));

	/** Activates, rotates the token and restarts n8n (a process that holds nothing) before any delivery. */
	async function rotateAndRestart(): Promise<{ token: string }> {
		const token = heal.sandbox.control.rotateToken();
		freshProcess();
		heal.harness = heal.harness.restart({ credentials: { serviceApi: serviceApi(heal.sandbox, { token }) } });
		heal.sandbox.control.clearRequests();
		return { token };
	}

	/** The stored renewal attempt moved into the past, as n8n would load it after a restart. */
	function attemptedMinutesAgo(minutes: number): void {
		const data = heal.harness.saved[`node:${heal.harness.node.name}`] as { endpoints: Record<string, { renewalAttemptedAt?: string }> };
		data.endpoints[heal.harness.webhookUrl()].renewalAttemptedAt = new Date(Date.now() - minutes * 60_000).toISOString();
		heal.harness = heal.harness.restart();
	}

	/** Every attempt of these alerts made (the compressed 24 hours), so that none arrives in a later step. */
	async function settled(alerts: Array<{ alertId: string }>): Promise<void> {
		for (const alert of alerts) await heal.sandbox.control.whenSettled(alert.alertId);
	}

	async function firstStatus(alertId: string): Promise<number | undefined> {
		const answered = await heal.sandbox.control.waitForDeliveries((list) =>
			list.some((d) => d.alertId === alertId && d.attempts[0]?.status !== undefined),
		);
		return answered.find((d) => d.alertId === alertId)!.attempts[0].status;
	}

	afterEach(async () => {
		await heal.harness.deactivate();
		freshProcess();
	});

	it('the first delivery registers a new endpoint with the new token, deletes the old one and reports it; the next alert is delivered and verified', async () => {
		const { sandbox } = heal;
		await heal.harness.activate();
		const [old] = sandbox.control.webhookEndpoints();
		const { token } = await rotateAndRestart();
		const errorsBefore = heal.receiver.errors.length;

		const lost = sandbox.control.emit('ledger_high', { organisation: KE });
		expect(await firstStatus(lost.alertId)).toBe(401);
		// The Service now holds one endpoint, new, at the same URL; the POST was made with the new token (the old one is refused).
		const [renewed] = sandbox.control.webhookEndpoints();
		expect(sandbox.control.webhookEndpoints()).toHaveLength(1);
		expect(renewed.id).not.toBe(old.id);
		expect(renewed.url).toBe(old.url);
		expect(posts().map((r) => r.status)).toEqual([201]);
		expect(sandbox.control.requests({ method: 'DELETE', path: `/v1/reader/webhooks/${old.id}` }).map((r) => r.status)).toEqual([204]);
		// n8n saved it (the node answered before the execution started): the new id, sealed under the new token.
		expect(stored()).toEqual({ id: renewed.id, sealedSecret: expect.stringMatching(/^s1\./), createdAt: expect.any(String), renewalAttemptedAt: expect.any(String) });

		// The log and the execution list say what happened; neither names the token or the secret.
		await heal.receiver.drained();
		const failures = heal.receiver.errors.slice(errorsBefore);
		expect(failures.map((error) => error.message)).toEqual([
			'The execution failed: The Service Trigger registered a new endpoint: the access token changed and no n8n process held the signing secret',
		]);
		const description = (failures[0] as Error & { description?: string }).description ?? '';
		expect(description).toContain(`the signing secret stored for endpoint ${old.id} is sealed under an earlier access token`);
		expect(description).toContain(`registered endpoint ${renewed.id} for the same URL with the current token and deleted endpoint ${old.id}`);
		expect(renewalLines().map((line) => line.level)).toEqual(['warn']);
		expect(renewalLines()[0].message).toContain(`Registered a new endpoint (${renewed.id}) for ${renewed.url} with the current token and deleted the old one (${old.id})`);
		const told = JSON.stringify([description, renewalLines().map((line) => line.message), heal.harness.saved]);
		for (const secret of [renewed.secret, old.secret]) for (const part of secretWindows(secret)) expect(told).not.toContain(part);
		for (const part of secretWindows(token)) expect(told).not.toContain(part);

		// The alert in flight was for the old endpoint, signed with its secret: every retry is refused, it starts nothing.
		const [lostDelivery] = await sandbox.control.whenSettled(lost.alertId);
		expect(lostDelivery.state).toBe('failed');
		expect(new Set(lostDelivery.attempts.map((attempt) => attempt.status))).toEqual(new Set([401]));
		expect(await heal.executionsOf(lost.alertId)).toHaveLength(0);

		// Without a person: the next alert goes to the new endpoint and verifies, in this process and after a restart.
		const next = sandbox.control.emit('share_granted', { organisation: KE });
		expect((await sandbox.control.whenSettled(next.alertId)).map((d) => [d.endpointId, d.attempts.map((a) => a.status)])).toEqual([[renewed.id, [200]]]);
		expect(await heal.executionsOf(next.alertId)).toHaveLength(1);
		freshProcess();
		heal.harness = heal.harness.restart();
		const later = sandbox.control.emit('ledger_high', { organisation: KE });
		expect((await sandbox.control.whenSettled(later.alertId)).map((d) => d.attempts.map((a) => a.status))).toEqual([[200]]);
		expect(await heal.executionsOf(later.alertId)).toHaveLength(1);
		expect(posts().map((r) => r.status)).toEqual([201]);
	});

	it('deliveries arriving together in that state renew once', async () => {
		const { sandbox } = heal;
		await heal.harness.activate();
		await rotateAndRestart();
		const alerts = [0, 1, 2, 3].map(() => sandbox.control.emit('ledger_high', { organisation: KE }));
		for (const alert of alerts) expect(await firstStatus(alert.alertId)).toBe(401);
		expect(posts()).toHaveLength(1);
		expect(sandbox.control.webhookEndpoints()).toHaveLength(1);
		// Their retries (to the deleted endpoint, refused) end before the next test.
		await settled(alerts);
		expect(posts()).toHaveLength(1);
	});

	it('at most once an hour: a second such state within the hour registers nothing, even in a new process; after the hour it renews again', async () => {
		const { sandbox } = heal;
		await heal.harness.activate();
		await rotateAndRestart();
		const first = sandbox.control.emit('ledger_high', { organisation: KE });
		expect(await firstStatus(first.alertId)).toBe(401);
		expect(posts()).toHaveLength(1);
		const [renewed] = sandbox.control.webhookEndpoints();
		await settled([first]);

		// Rotated again, restarted again, 59 minutes later by the stored attempt: refused, nothing asked of the Service.
		await rotateAndRestart();
		attemptedMinutesAgo(59);
		const refused = [0, 1].map(() => sandbox.control.emit('ledger_high', { organisation: KE }));
		for (const alert of refused) expect(await firstStatus(alert.alertId)).toBe(401);
		expect(posts()).toHaveLength(0);
		expect(sandbox.control.requests({ method: 'DELETE' })).toHaveLength(0);
		expect(sandbox.control.webhookEndpoints().map((e) => e.id)).toEqual([renewed.id]);
		await settled(refused);
		expect(posts()).toHaveLength(0);

		// An hour after the attempt: the next delivery renews.
		freshProcess();
		attemptedMinutesAgo(61);
		const afterHour = sandbox.control.emit('ledger_high', { organisation: KE });
		expect(await firstStatus(afterHour.alertId)).toBe(401);
		expect(posts().map((r) => r.status)).toEqual([201]);
		expect(sandbox.control.webhookEndpoints().map((e) => e.id)).not.toContain(renewed.id);
		const next = sandbox.control.emit('ledger_high', { organisation: KE });
		expect((await sandbox.control.whenSettled(next.alertId)).map((d) => d.attempts.map((a) => a.status))).toEqual([[200]]);
		await settled([afterHour]);
	});

	it('in the healthy state a forged delivery registers nothing, also right after a restart', async () => {
		const { sandbox } = heal;
		await heal.harness.activate();
		const [endpoint] = sandbox.control.webhookEndpoints();
		freshProcess();
		heal.harness = heal.harness.restart();
		sandbox.control.clearRequests();
		for (const mode of ['signature', 'body'] as const) {
			const forged = sandbox.control.sendTampered('ledger_high', { organisation: KE }, { mode });
			expect(await firstStatus(forged.alertId)).toBe(401);
		}
		expect(posts()).toHaveLength(0);
		expect(sandbox.control.requests({ method: 'DELETE' })).toHaveLength(0);
		expect(sandbox.control.webhookEndpoints().map((e) => e.id)).toEqual([endpoint.id]);
		expect(stored().renewalAttemptedAt).toBeUndefined();
	});

	it('when the Service cannot register the new endpoint: refused, the old endpoint kept, the failure in the log and the execution list, its retries within the hour try nothing', async () => {
		const { sandbox } = heal;
		await heal.harness.activate();
		const [old] = sandbox.control.webhookEndpoints();
		await rotateAndRestart();
		const errorsBefore = heal.receiver.errors.length;
		sandbox.control.failRoute({ path: '/v1/reader/webhooks', mode: 'drop' });
		const alert = sandbox.control.emit('ledger_high', { organisation: KE });
		expect(await firstStatus(alert.alertId)).toBe(401);
		sandbox.control.clearFaults();
		expect(sandbox.control.webhookEndpoints().map((e) => e.id)).toEqual([old.id]);
		expect(sandbox.control.requests({ method: 'DELETE' })).toHaveLength(0);
		await heal.receiver.drained();
		expect(stored()).toMatchObject({ id: old.id, renewalAttemptedAt: expect.any(String) });
		expect(heal.receiver.errors.slice(errorsBefore).map((error) => error.message)).toEqual([
			'The execution failed: The Service Trigger could not register a new endpoint after the access token changed',
		]);
		expect(renewalLines().at(-1)?.level).toBe('error');
		// Its retries, within the hour, renew nothing: the one POST is the attempt the Service dropped.
		await settled([alert]);
		expect(posts().map((r) => r.status)).toEqual([undefined]);
	});
});
