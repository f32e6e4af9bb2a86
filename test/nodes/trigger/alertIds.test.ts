import { processMemory } from '../../../nodes/ServiceTrigger/delivery/redelivery';
import { postDelivery } from '../../harness';
import { signatureHeader } from '../../sandbox/signing';
import { useTriggerSetup } from './setup';

const KE = 'KE-1001';

/**
 * Ids are the Service's text and its bytes (issue 31): an `ids` key named `__proto__` keeps its value,
 * and alert ids that differ only in bytes UTF-8 decoding replaces are two alerts, not one alert and a
 * redelivery. Deliveries POSTed straight to the receiver (the sandbox writes bodies as text), signed
 * with the endpoint's real secret by the sandbox's signer.
 */
describe('Service Trigger: ids as the Service sent them', () => {
	const setup = useTriggerSetup({ activate: true });
	let secret: string;
	let url: string;

	beforeAll(() => {
		[{ secret, url }] = setup.sandbox.control.webhookEndpoints();
	});

	const now = () => Math.floor(Date.now() / 1000);
	/** A body whose alert_id is `al_` followed by these raw bytes (they need not be UTF-8). */
	const bodyWithAlertBytes = (bytes: number[]) =>
		Buffer.concat([
			Buffer.from('{"event_type":"ledger_high","alert_id":"al_'),
			Buffer.from(bytes),
			Buffer.from(`","ids":{"organisation":"${KE}"},"severity":"high","occurred_at":"2026-01-01T00:00:00.000Z"}`),
		]);
	const deliver = async (payload: Buffer | string) =>
		await postDelivery(url, { headers: { 'Service-Signature': signatureHeader(secret, now(), payload) }, body: payload, ca: setup.receiverCa });
	const newExecutions = async (before: number) => {
		await setup.receiver.drained();
		return setup.receiver.executions.slice(before);
	};

	it('keeps an ids key named __proto__ in the item', async () => {
		const before = setup.receiver.executions.length;
		const payload = `{"event_type":"ledger_high","alert_id":"al_proto","ids":{"organisation":"${KE}","__proto__":"KS-1001-v1","constructor":"kept"},"severity":"high","occurred_at":"2026-01-01T00:00:00.000Z"}`;
		expect((await deliver(payload)).status).toBe(200);

		const [execution] = await newExecutions(before);
		const ids = execution.items[0].json.ids as Record<string, unknown>;
		expect(Object.getOwnPropertyDescriptor(ids, '__proto__')?.value).toBe('KS-1001-v1');
		expect(JSON.stringify(ids)).toBe(`{"organisation":"${KE}","__proto__":"KS-1001-v1","constructor":"kept"}`);
		expect(execution.items[0].json.ke).toBe(KE);
	});

	it('passes on two alerts whose ids differ only in bytes that are not UTF-8, and each once', async () => {
		const before = setup.receiver.executions.length;
		const first = bodyWithAlertBytes([0xff, 0x41]);
		const second = bodyWithAlertBytes([0xfe, 0x41]);
		// Decoded, both read al_\uFFFDA: only their bytes tell them apart.
		expect(JSON.parse(first.toString('utf8')).alert_id).toBe(JSON.parse(second.toString('utf8')).alert_id);

		expect((await deliver(first)).status).toBe(200);
		expect((await deliver(second)).status).toBe(200);
		// Each one again: a redelivery, in this process and after a restart.
		expect((await deliver(first)).status).toBe(200);
		setup.harness = setup.harness.restart();
		processMemory.forgetAll();
		expect((await deliver(second)).status).toBe(200);

		const executions = await newExecutions(before);
		const passedOn = executions.flatMap((execution) => execution.items.map((item) => item.json));
		expect(passedOn.map((json) => [json.alert_id, json.alert_id_bytes])).toEqual([
			['al_\uFFFDA', Buffer.from('al_\xffA', 'latin1').toString('base64')],
			['al_\uFFFDA', Buffer.from('al_\xfeA', 'latin1').toString('base64')],
		]);
		// The copy after the restart was stopped by n8n's deduplication store, at the trigger's step.
		expect(executions.map((execution) => execution.items.length)).toEqual([1, 1, 0]);
	});

	it('gives an ordinary id no alert_id_bytes and dedups it by its text, as before', async () => {
		const before = setup.receiver.executions.length;
		const payload = bodyWithAlertBytes([...Buffer.from('ordinaire-é')]);
		expect((await deliver(payload)).status).toBe(200);
		expect((await deliver(payload)).status).toBe(200);

		const executions = await newExecutions(before);
		expect(executions.map((execution) => execution.items.map((item) => item.json.alert_id))).toEqual([['al_ordinaire-é']]);
		expect(executions[0].items[0].json).not.toHaveProperty('alert_id_bytes');
	});
});
