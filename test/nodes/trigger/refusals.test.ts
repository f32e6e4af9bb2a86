import { recentKeys } from '../../../nodes/ServiceTrigger/verify/recentKeys';
import { refusalLog } from '../../../nodes/ServiceTrigger/verify/refusalLog';
import { refusalRuns } from '../../../nodes/ServiceTrigger/delivery/refusalRun';
import { postDelivery } from '../../harness';
import { newSigningSecret, signatureHeader, type SignatureFormat } from '../../sandbox/signing';
import { secretWindows, useTriggerSetup } from './setup';

const KE = 'KE-1001';

/**
 * Each refusal on its own: 401, no execution, nothing of the body echoed, one log line. The
 * sandbox sends the stale, future and tampered probes; the header variants it cannot produce are
 * POSTed straight to the receiver, signed with the endpoint's real secret by the sandbox's signer.
 */
describe('Service Trigger refuses what it cannot verify', () => {
	const setup = useTriggerSetup({ activate: true });
	let secret: string;
	let url: string;

	beforeAll(() => {
		[{ secret, url }] = setup.sandbox.control.webhookEndpoints();
	});

	// Each case below is its own first refusal of the minute; the rate limit has a test of its own.
	beforeEach(() => {
		refusalLog.forgetAll();
		refusalRuns.forgetAll();
	});

	const now = () => Math.floor(Date.now() / 1000);
	const body = (alertId: string) =>
		JSON.stringify({ event_type: 'ledger_high', alert_id: alertId, ids: { organisation: KE }, severity: 'high', occurred_at: '2026-01-01T00:00:00.000Z' });
	const v1 = (header: string) => /v1=([0-9a-f]+)/.exec(header)![1];

	async function post(headers: Record<string, string>, payload: string) {
		const logsBefore = setup.logs.length;
		const answer = await postDelivery(url, { headers, body: payload, ca: setup.receiverCa });
		return { ...answer, newLogs: setup.logs.slice(logsBefore) };
	}

	async function expectRefused(answer: { status: number; body: string; newLogs: typeof setup.logs }, alertId: string, reason: RegExp) {
		expect(answer.status).toBe(401);
		expect(answer.body).toBe('Unauthorized');
		expect(await setup.executionsOf(alertId)).toHaveLength(0);
		expect(answer.newLogs).toHaveLength(1);
		expect(answer.newLogs[0].level).toBe('warn');
		expect(answer.newLogs[0].message).toMatch(/refused a webhook delivery \(401\)/);
		expect(answer.newLogs[0].message).toMatch(reason);
	}

	/** Runs `check` with a credential the node cannot use: anything that reads it is refused for that. */
	async function withBrokenCredential(check: () => Promise<void>) {
		const previous = setup.harness;
		setup.harness = previous.restart({ credentials: { serviceApi: { baseUrl: 'not a url', accessToken: '' } } });
		try {
			await check();
		} finally {
			setup.harness = previous;
		}
	}

	it('accepts a correctly signed delivery (the baseline every refusal differs from by one thing)', async () => {
		const payload = body('al_baseline');
		const answer = await post({ 'Service-Signature': signatureHeader(secret, now(), payload) }, payload);
		expect(answer.status).toBe(200);
		expect(await setup.executionsOf('al_baseline')).toHaveLength(1);
	});

	it('accepts t in milliseconds and parts separated by ";" or whitespace, as a Service may choose (spec section 5: not shown)', async () => {
		for (const [index, format] of [
			{ unit: 'milliseconds', separator: ',' },
			{ unit: 'seconds', separator: ';' },
			{ unit: 'milliseconds', separator: '; ' },
			{ unit: 'seconds', separator: ' ' },
		].entries()) {
			const alertId = `al_dialect_${index}`;
			const payload = body(alertId);
			const answer = await post({ 'Service-Signature': signatureHeader(secret, now(), payload, format as SignatureFormat) }, payload);
			expect({ format, status: answer.status }).toEqual({ format, status: 200 });
			expect(await setup.executionsOf(alertId)).toHaveLength(1);
		}
	});

	it('refuses t in milliseconds when Signature Timestamp Unit pins Seconds, and the log line names the setting', async () => {
		const previous = setup.harness;
		const serviceApi = { ...setup.credentials.serviceApi, advancedSettings: true, signatureTimestampUnit: 'seconds' };
		setup.harness = previous.restart({ credentials: { serviceApi } });
		recentKeys.forgetAll();
		try {
			const payload = body('al_unit_pinned');
			const answer = await post({ 'Service-Signature': signatureHeader(secret, now(), payload, { unit: 'milliseconds' }) }, payload);
			await expectRefused(answer, 'al_unit_pinned', /t \(timestamp\) part is in unix milliseconds, but the credential's Signature Timestamp Unit is set to Seconds/);
		} finally {
			setup.harness = previous;
			recentKeys.forgetAll();
		}
	});

	it('refuses a missing header', async () => {
		await expectRefused(await post({}, body('al_noheader')), 'al_noheader', /header is missing/);
	});

	it('refuses a header without t', async () => {
		const payload = body('al_not');
		const header = signatureHeader(secret, now(), payload);
		await expectRefused(await post({ 'Service-Signature': `v1=${v1(header)}` }, payload), 'al_not', /no t/);
	});

	it('refuses a non-numeric t', async () => {
		const payload = body('al_nan');
		const header = signatureHeader(secret, now(), payload);
		await expectRefused(await post({ 'Service-Signature': `t=soon,v1=${v1(header)}` }, payload), 'al_nan', /not a single number/);
	});

	it('refuses a tampered t (signature made for another second)', async () => {
		const payload = body('al_tampered_t');
		const t = now();
		const header = signatureHeader(secret, t, payload);
		await expectRefused(await post({ 'Service-Signature': `t=${t - 1},v1=${v1(header)}` }, payload), 'al_tampered_t', /no v1 signature matches/);
	});

	it('refuses a signature made with another secret', async () => {
		const payload = body('al_wrong_secret');
		const answer = await post({ 'Service-Signature': signatureHeader(newSigningSecret(), now(), payload) }, payload);
		await expectRefused(answer, 'al_wrong_secret', /no v1 signature matches/);
	});

	it('refuses an empty v1', async () => {
		const payload = body('al_empty_v1');
		await expectRefused(await post({ 'Service-Signature': `t=${now()},v1=` }, payload), 'al_empty_v1', /no well-formed v1/);
	});

	it('refuses a truncated v1', async () => {
		const payload = body('al_truncated');
		const header = signatureHeader(secret, now(), payload);
		await expectRefused(await post({ 'Service-Signature': `t=${now()},v1=${v1(header).slice(0, 63)}` }, payload), 'al_truncated', /no well-formed v1/);
	});

	it('accepts a valid v1 beside invalid ones (secret rotation)', async () => {
		const payload = body('al_rotation');
		const t = now();
		const good = v1(signatureHeader(secret, t, payload));
		const other = v1(signatureHeader(newSigningSecret(), t, payload));
		const answer = await post({ 'Service-Signature': `t=${t}, v1=${other}, v1=${good} ,v1=deadbeef` }, payload);
		expect(answer.status).toBe(200);
		expect(await setup.executionsOf('al_rotation')).toHaveLength(1);
	});

	it('refuses the same body re-serialised with different whitespace', async () => {
		const payload = body('al_reserialised');
		const header = signatureHeader(secret, now(), payload);
		const reserialised = JSON.stringify(JSON.parse(payload), null, 1);
		await expectRefused(await post({ 'Service-Signature': header }, reserialised), 'al_reserialised', /no v1 signature matches/);
	});

	it('does not parse or echo a refused body', async () => {
		const answer = await post({}, '{"event_type": "ledger_high", "alert_id": "al_echo", "note": "ECHO-ME"');
		expect(answer.status).toBe(401);
		expect(answer.body).not.toContain('ECHO-ME');
		expect(answer.newLogs[0].message).not.toContain('ECHO-ME');
	});

	it.each([
		['stale t (10 minutes old)', 600, /seconds old/],
		['future t (10 minutes ahead)', -600, /in the future/],
	])('refuses a sandbox delivery with a %s', async (_name, ageSeconds, reason) => {
		const logsBefore = setup.logs.length;
		const alert = setup.sandbox.control.sendStale('ledger_high', { organisation: KE }, { ageSeconds });
		const [delivery] = await setup.sandbox.control.whenSettled(alert.alertId);
		expect(delivery.attempts.map((a) => a.status)).toEqual([401]);
		expect(await setup.executionsOf(alert.alertId)).toHaveLength(0);
		const newLogs = setup.logs.slice(logsBefore);
		expect(newLogs).toHaveLength(1);
		expect(newLogs[0].message).toMatch(reason);
	});

	it.each([
		['body', /no v1 signature matches/],
		['signature', /no v1 signature matches/],
	] as const)('refuses a sandbox delivery whose %s was tampered with', async (mode, reason) => {
		const logsBefore = setup.logs.length;
		const alert = setup.sandbox.control.sendTampered('ledger_high', { organisation: KE }, { mode });
		const [delivery] = await setup.sandbox.control.whenSettled(alert.alertId);
		expect(delivery.attempts.map((a) => a.status)).toEqual([401]);
		await setup.receiver.drained();
		expect(setup.receiver.executions.filter((e) => String(e.items[0]?.json.alert_id) === alert.alertId)).toHaveLength(0);
		const newLogs = setup.logs.slice(logsBefore);
		expect(newLogs).toHaveLength(1);
		expect(newLogs[0].message).toMatch(reason);
	});

	it('logs one line per reason per minute however many are refused, and counts the rest in the next line', async () => {
		const logsBefore = setup.logs.length;
		for (let attempt = 0; attempt < 20; attempt++) {
			const header = signatureHeader(newSigningSecret(), now(), body(`al_flood_${attempt}`));
			const answer = await postDelivery(url, { headers: { 'Service-Signature': header }, body: body(`al_flood_${attempt}`), ca: setup.receiverCa });
			expect(answer.status).toBe(401);
		}
		const lines = setup.logs.slice(logsBefore).filter((line) => line.level === 'warn');
		expect(lines).toHaveLength(1);
		expect(lines[0].message).toMatch(/refused a webhook delivery \(401\)/);
		expect(await setup.executionsOf('al_flood_0')).toHaveLength(0);
		// However long the flood, one execution fails to say alerts are refused (at most one per trigger every 10 minutes).
		const errorsBefore = setup.receiver.errors.length;
		await setup.receiver.drained();
		expect(setup.receiver.errors.slice(errorsBefore - 1).map((error) => error.message)).toEqual(['The execution failed: The Service Trigger refused 3 signed deliveries in a row: alerts are not reaching this workflow']);
	});

	it('refuses a stale delivery before reading the credential: even a broken credential is never reached', async () => {
		await withBrokenCredential(async () => {
			const stale = now() - 3600;
			const answer = await post({ 'Service-Signature': signatureHeader(secret, stale, body('al_stale_first')) }, body('al_stale_first'));
			expect(answer.status).toBe(401);
			expect(answer.newLogs.map((l) => l.message)).toEqual([
				expect.stringMatching(/refused a webhook delivery \(401\) for workflow "Trigger test workflow" \(trigger-test-workflow\), node "Service Trigger": the signature timestamp is more than 300 seconds old/),
			]);
		});
	});

	it('within a minute of an accepted delivery, a forgery is refused and a genuine delivery accepted, neither reading the credential', async () => {
		const accepted = await post({ 'Service-Signature': signatureHeader(secret, now(), body('al_keys_ok')) }, body('al_keys_ok'));
		expect(accepted.status).toBe(200);
		await withBrokenCredential(async () => {
			const forged = await post({ 'Service-Signature': signatureHeader(newSigningSecret(), now(), body('al_keys_forged')) }, body('al_keys_forged'));
			expect(forged.status).toBe(401);
			// The reason is the signature, not the (broken) credential: the credential was never read.
			expect(forged.newLogs.map((l) => l.message)).toEqual([expect.stringMatching(/refused a webhook delivery \(401\) for workflow .*: .*signature/)]);
			expect(forged.newLogs[0].message).not.toContain('credential');
			// The endpoint's secret changes only with a new activation: a match is accepted on the remembered keys.
			const genuine = await post({ 'Service-Signature': signatureHeader(secret, now(), body('al_keys_again')) }, body('al_keys_again'));
			expect(genuine.status).toBe(200);
			expect(genuine.newLogs).toEqual([]);
			expect(await setup.executionsOf('al_keys_again')).toHaveLength(1);
		});
	});

	it('a flood of forgeries with no genuine delivery for a minute reads the credential once, not once each', async () => {
		recentKeys.forgetAll();
		const first = await post({ 'Service-Signature': signatureHeader(newSigningSecret(), now(), body('al_flood_read')) }, body('al_flood_read'));
		expect(first.status).toBe(401);
		refusalLog.forgetAll();
		await withBrokenCredential(async () => {
			const next = await post({ 'Service-Signature': signatureHeader(newSigningSecret(), now(), body('al_flood_next')) }, body('al_flood_next'));
			expect(next.status).toBe(401);
			// Refused for its signature on the keys the first forgery read: the broken credential was not read.
			expect(next.newLogs.map((l) => l.message)).toEqual([expect.stringMatching(/refused a webhook delivery \(401\) for workflow .*: .*signature/)]);
		});
	});

	it('reads the credential again a minute after it last did, however many deliveries were accepted meanwhile', async () => {
		recentKeys.forgetAll();
		const start = Date.now();
		const accepted = await post({ 'Service-Signature': signatureHeader(secret, now(), body('al_minute_ok')) }, body('al_minute_ok'));
		expect(accepted.status).toBe(200);
		const realNow = Date.now;
		await withBrokenCredential(async () => {
			try {
				Date.now = () => start + 30_000;
				const within = await post({ 'Service-Signature': signatureHeader(secret, now(), body('al_minute_within')) }, body('al_minute_within'));
				expect(within.status).toBe(200);
				Date.now = () => realNow() + 60_000;
				const after = await post({ 'Service-Signature': signatureHeader(secret, now(), body('al_minute_after')) }, body('al_minute_after'));
				expect(after.status).toBe(401);
				expect(after.newLogs.map((l) => l.message)).toEqual([expect.stringMatching(/the Service API credential cannot be used/)]);
				expect(await setup.executionsOf('al_minute_after')).toHaveLength(0);
			} finally {
				Date.now = realNow;
			}
		});
	});

	it('logged refusals hold neither the secret, the token nor a signature', () => {
		const logged = JSON.stringify(setup.logs);
		expect(setup.logs.length).toBeGreaterThanOrEqual(10);
		for (const part of [...secretWindows(secret), ...secretWindows(setup.sandbox.tokens.reader)]) {
			expect(logged).not.toContain(part);
		}
		expect(logged).not.toMatch(/[0-9a-f]{64}/);
	});
});
