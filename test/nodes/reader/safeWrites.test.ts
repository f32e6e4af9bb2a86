import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { serviceApi } from '../../sandbox/credential';
import { useSandbox } from '../../sandbox/useSandbox';
import { runReader } from './helpers';

// Writes whose answer is lost: every POST carries an Idempotency-Key the same for its item within one
// execution, a gateway's page after the write is said as an unknown outcome naming that key, and the
// write is never sent again; a page instead of JSON is read as its title, never dumped.
const sandbox = useSandbox();
const PATH = '/v1/reader/invitations';
const GATEWAY_502 = '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>upstream reset</p></body></html>';

const create = (registrationNumber: string) => ({
	resource: 'invitation',
	operation: 'create',
	companyName: 'Gateway Ltd',
	registrationNumber,
	workEmail: 'buyer@gateway.example',
	additionalFields: {},
});
const keyOf = (request: { headers: Record<string, string | string[] | undefined> }) => request.headers['idempotency-key'];

afterEach(() => sandbox.control.clearFaults());

describe('safe writes', () => {
	it('every POST carries an Idempotency-Key; two items get two keys, each 36 characters', async () => {
		const result = await runWorkflow(readerWorkflow(create('={{ $json.number }}')), {
			credentials: { serviceApi: serviceApi(sandbox) },
			inputItems: [{ json: { number: 'GB66600001' } }, { json: { number: 'GB66600002' } }],
		});
		expect(result.error(READER)).toBeUndefined();
		const keys = sandbox.control.requests({ method: 'POST', path: PATH }).map(keyOf);
		expect(keys).toHaveLength(2);
		expect(keys.every((key) => typeof key === 'string' && /^n8n_[A-Za-z0-9_-]{32}$/.test(key))).toBe(true);
		expect(new Set(keys).size).toBe(2);
	});

	it('a 502 page after the write was made: the outcome is unknown, the key is named, nothing is sent again', async () => {
		sandbox.control.failRoute({ method: 'POST', path: PATH, mode: 'answer', status: 502, contentType: 'text/html', body: GATEWAY_502, times: 1, afterWork: true });
		const result = await runReader(sandbox, create('GB66600003'));
		const error = result.error(READER)!;
		const [request] = sandbox.control.requests({ method: 'POST', path: PATH });
		expect(sandbox.control.invitations().filter((i) => i.registration_number === 'GB66600003')).toHaveLength(1);
		expect(error.message).toBe('The outcome of this write is unknown: the Service answered 502');
		expect(error.description).toBe(
			'The Service may have done it already, so the node did not send it again. Check at the Service whether it exists before running this item again. '
				+ `It carried Idempotency-Key: ${String(keyOf(request))}; a Service that honours that header answers a request sent again with the same key with its first answer. `
				+ 'The answer was a web page titled "502 Bad Gateway", not the Service\'s JSON (a gateway or proxy in front of it answered). (POST /v1/reader/invitations)',
		);
		expect(sandbox.control.requests({ method: 'POST', path: PATH })).toHaveLength(1);
	});

	it('a dropped connection after a write: unknown, not sent again', async () => {
		sandbox.control.failRoute({ method: 'POST', path: PATH, mode: 'drop', times: 1 });
		const result = await runReader(sandbox, create('GB66600004'));
		expect(result.error(READER)?.message).toBe('The outcome of this write is unknown: the connection was dropped before an answer');
		expect(sandbox.control.requests({ method: 'POST', path: PATH })).toHaveLength(1);
	});

	it('Idempotency Header empty: no key is sent', async () => {
		const result = await runWorkflow(readerWorkflow(create('GB66600005')), { credentials: { serviceApi: serviceApi(sandbox, { advanced: { idempotencyHeader: '' } }) } });
		expect(result.error(READER)).toBeUndefined();
		expect(keyOf(sandbox.control.requests({ method: 'POST', path: PATH })[0])).toBeUndefined();
	});

	it('a read answered with a gateway page (503, HTML) is said by its title, after the retries', async () => {
		sandbox.control.failRoute({ method: 'GET', path: '/v1/reader/webhooks/catalogue', mode: 'answer', status: 503, contentType: 'text/html', body: '<html><head><title>503 Service Temporarily Unavailable</title></head><body>nginx</body></html>' });
		const result = await runReader(sandbox, { resource: 'webhook', operation: 'getCatalogue' });
		const error = result.error(READER)!;
		expect(error.message).toMatch(/^The Service failed to answer \(503 after \d attempts\)$/);
		expect(error.description).toContain('The answer was a web page titled "503 Service Temporarily Unavailable"');
		expect(error.description).not.toContain('<');
	}, 90_000);
});
