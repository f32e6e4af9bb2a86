import { postDelivery } from '../../harness';
import { refusalLog } from '../../../nodes/ServiceTrigger/verify/refusalLog';
import { recentKeys } from '../../../nodes/ServiceTrigger/verify/recentKeys';
import { signatureHeader } from '../../sandbox/signing';
import { useTriggerSetup } from './setup';

/**
 * While the editor listens for a test event, a delivery refused only because of a credential
 * setting is shown in the editor: the Service gets 401 as in production, and the test run fails
 * with an error that names the setting. A forgery, or a production delivery, only gets 401.
 */
describe('Service Trigger, while the editor listens for a test event', () => {
	const setup = useTriggerSetup();
	const now = () => Math.floor(Date.now() / 1000);
	const body = (alertId: string) =>
		JSON.stringify({ event_type: 'ledger_high', alert_id: alertId, ids: { organisation: 'KE-1001' }, severity: 'high', occurred_at: '2026-01-01T00:00:00.000Z' });

	/** Registers the kind's URL with these Advanced Settings, as the editor (test) or an activation (production) does. */
	async function registered(kind: 'test' | 'production', settings: Record<string, string>) {
		recentKeys.forgetAll();
		refusalLog.forgetAll();
		setup.harness = setup.newHarness({ credentials: { serviceApi: { ...setup.credentials.serviceApi, advancedSettings: true, ...settings } } });
		await setup.harness.activate(kind);
		const endpoint = setup.sandbox.control.webhookEndpoints().find((candidate) => candidate.url === setup.harness.webhookUrl(kind));
		if (!endpoint) throw new Error(`no ${kind} endpoint was registered`);
		return endpoint;
	}

	async function deliver(url: string, header: string, payload: string) {
		const errorsBefore = setup.receiver.errors.length;
		const answer = await postDelivery(url, { headers: { 'Service-Signature': header }, body: payload, ca: setup.receiverCa });
		await setup.receiver.drained();
		return { status: answer.status, errors: setup.receiver.errors.slice(errorsBefore).map((error) => error.message) };
	}

	afterEach(async () => {
		await setup.harness.deactivate('test');
		await setup.harness.deactivate('production');
	});

	it('t in milliseconds with Signature Timestamp Unit pinned to Seconds: 401 to the Service, and the test run fails naming the setting', async () => {
		const { secret, url } = await registered('test', { signatureTimestampUnit: 'seconds' });
		const payload = body('al_test_unit');
		const shown = await deliver(url, signatureHeader(secret, now(), payload, { unit: 'milliseconds' }), payload);
		expect(shown).toEqual({
			status: 401,
			errors: [
				"The execution failed: The Service's test event was refused: the t (timestamp) part is in unix milliseconds, but the credential's Signature Timestamp Unit is set to Seconds (set it to Detect or Milliseconds)",
			],
		});
		expect(await setup.executionsOf('al_test_unit')).toEqual([]);
	});

	it('a hex v1 with Signature Encoding pinned to Base64: 401, and the test run fails naming the setting', async () => {
		const { secret, url } = await registered('test', { signatureEncoding: 'base64' });
		const payload = body('al_test_encoding');
		const shown = await deliver(url, signatureHeader(secret, now(), payload), payload);
		expect(shown.status).toBe(401);
		expect(shown.errors).toEqual([expect.stringMatching(/^The execution failed: The Service's test event was refused: .*Signature Encoding/)]);
	});

	it('a forgery refused by the same setting starts no test run: 401 only', async () => {
		const { url } = await registered('test', { signatureTimestampUnit: 'seconds' });
		const payload = body('al_test_forged');
		const shown = await deliver(url, signatureHeader('whsec_bm90IHRoZSBzZWNyZXQgYXQgYWxsIG5vdCBpdCE=', now(), payload, { unit: 'milliseconds' }), payload);
		expect(shown).toEqual({ status: 401, errors: [] });
		expect(await setup.executionsOf('al_test_forged')).toEqual([]);
	});

	it('in production the same genuine delivery is refused (401) and starts nothing', async () => {
		const { secret, url } = await registered('production', { signatureTimestampUnit: 'seconds' });
		const payload = body('al_prod_unit');
		const shown = await deliver(url, signatureHeader(secret, now(), payload, { unit: 'milliseconds' }), payload);
		expect(shown).toEqual({ status: 401, errors: [] });
		expect(await setup.executionsOf('al_prod_unit')).toEqual([]);
	});
});
