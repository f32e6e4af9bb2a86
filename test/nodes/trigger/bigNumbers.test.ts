import { postDelivery } from '../../harness';
import { signatureHeader } from '../../sandbox/signing';
import { useTriggerSetup } from './setup';

const KE = 'KE-1001';
const BIG = '18446744073709551084';

/**
 * Numbers beyond 2^53 (docs/service-choices.md): a delivery whose ids hold a 20-digit JSON number
 * starts the workflow with the digits sent, as a string; the signature is checked on the raw bytes
 * first, as for any delivery. POSTed straight to the receiver, signed with the endpoint's secret.
 */
describe('Service Trigger: numbers beyond 2^53', () => {
	const setup = useTriggerSetup({ activate: true });
	let secret: string;
	let url: string;

	beforeAll(() => {
		[{ secret, url }] = setup.sandbox.control.webhookEndpoints();
	});

	const deliver = async (payload: string, signedAs = payload) =>
		await postDelivery(url, { headers: { 'Service-Signature': signatureHeader(secret, Math.floor(Date.now() / 1000), signedAs) }, body: payload, ca: setup.receiverCa });
	const newExecutions = async (before: number) => {
		await setup.receiver.drained();
		return setup.receiver.executions.slice(before);
	};

	it('gives ids.registry_number of 20 digits as the exact string, a safe number as a number', async () => {
		const before = setup.receiver.executions.length;
		const payload = `{"event_type":"ledger_high","alert_id":"al_big","ids":{"organisation":"${KE}","registry_number":${BIG}},"severity":3,"occurred_at":"2026-01-01T00:00:00.000Z"}`;
		expect((await deliver(payload)).status).toBe(200);

		const [execution] = await newExecutions(before);
		expect(execution.items[0].json).toMatchObject({ ids: { organisation: KE, registry_number: BIG }, severity: 3, ke: KE });
		expect(JSON.stringify(execution.items[0].json.ids)).toBe(`{"organisation":"${KE}","registry_number":"${BIG}"}`);
	});

	it('keeps a numeric alert_id of 20 digits exact', async () => {
		const before = setup.receiver.executions.length;
		const payload = `{"event_type":"ledger_high","alert_id":${BIG},"ids":{"organisation":"${KE}"},"severity":"high","occurred_at":"2026-01-01T00:00:00.000Z"}`;
		expect((await deliver(payload)).status).toBe(200);

		const [execution] = await newExecutions(before);
		expect(execution.items[0].json.alert_id).toBe(BIG);
	});

	it('refuses a body changed after signing before reading it, big numbers or not', async () => {
		const before = setup.receiver.executions.length;
		const signed = `{"event_type":"ledger_high","alert_id":"al_tampered","ids":{"organisation":"${KE}","registry_number":${BIG}}}`;
		const response = await deliver(signed.replace(BIG, '18446744073709551085'), signed);
		expect(response.status).toBe(401);
		expect(await newExecutions(before)).toEqual([]);
	});
});
