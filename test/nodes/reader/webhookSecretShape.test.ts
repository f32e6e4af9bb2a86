import { randomBytes } from 'node:crypto';

import { useSandbox } from '../../sandbox/useSandbox';
import { READER, runReader } from './helpers';

/**
 * Webhook > Create Endpoint reads the one-time secret by what it is (docs/service-choices.md: "Webhook
 * endpoint creation"): under any name, however nested; where two values fit and no name tells them
 * apart, both fields are named, the endpoint is deleted again, and Signing Secret Field settles it.
 */
const sandbox = useSandbox();
afterEach(() => sandbox.control.clearFaults());

const url = 'https://hooks.buyer.example/shape';
const create = (extra: Record<string, unknown> = {}) => ({ resource: 'webhook', operation: 'createEndpoint', url, ...extra });
function answering(body: unknown): void {
	sandbox.control.failRoute({ path: '/v1/reader/webhooks', method: 'POST', mode: 'answer', status: 201, contentType: 'application/json', body: JSON.stringify(body), times: 1 });
}

test('a hex secret nested under a name that says nothing: found, and added as `secret` beside the answer', async () => {
	const hex = randomBytes(32).toString('hex');
	const body = { endpoint: { id: 'ep-41', url, signing: { value: hex, algorithm: 'hmac-sha256' } } };
	answering(body);
	const result = await runReader(sandbox, create());
	expect(result.error(READER)).toBeUndefined();
	expect(result.output(READER)[0].json).toEqual({ ...body, id: 'ep-41', secret: hex, secret_notice: expect.stringContaining('shown only this once') });
});

test('two values that may be the secret: both named, the endpoint deleted again; Signing Secret Field settles it', async () => {
	const [first, second] = [randomBytes(32).toString('base64'), randomBytes(32).toString('hex')];
	const body = { id: 'ep-42', url, value: first, material: { current: second } };
	answering(body);
	const asked = await runReader(sandbox, create());
	expect(asked.output(READER)).toEqual([]);
	expect(asked.error(READER)?.message).toBe("The Service's answer has 2 fields that may be the signing secret (value, material.current)");
	expect(asked.error(READER)?.description).toContain('set Signing Secret Field to the one that is the secret');
	expect(sandbox.control.requests({ method: 'DELETE' }).map((r) => r.path)).toEqual(['/v1/reader/webhooks/ep-42']);
	// Neither secret is in the error: the secret is never output where it was not read.
	expect(JSON.stringify(asked.error(READER))).not.toContain(first);

	answering(body);
	const settled = await runReader(sandbox, create({ signingField: 'material.current' }));
	expect(settled.output(READER)[0].json).toMatchObject({ id: 'ep-42', secret: second });
});
