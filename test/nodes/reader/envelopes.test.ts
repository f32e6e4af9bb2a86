import type { IDataObject } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow, trustCa } from '../../harness';
import { TriggerHarness } from '../../harness/triggerHarness';
import { ServiceTrigger } from '../../../nodes/ServiceTrigger/ServiceTrigger.node';
import { startSandbox, type Sandbox } from '../../sandbox';
import { requestSettings, serviceApi } from '../../sandbox/credential';
import { defaultDialect, type Dialect } from '../../sandbox/dialect';
import { JSON_API } from '../../sandbox/jsonApi';
import { fileItem } from './helpers';

/**
 * A Service speaking JSON:API (docs/service-choices.md, "Envelopes"): as a new user fills the
 * credential, a plain body is refused naming Request Names; with the JSON:API Type rows set, bodies go
 * under data.attributes with data.type as application/vnd.api+json, answers are read through
 * data/attributes (secret, digest, key, ids) and kept whole, and errors[] give their detail and source.
 */
const TYPES = { 'webhook.type': 'webhook-endpoints', 'policyRun.type': 'policy-runs', 'invitation.type': 'invitations', 'sso.type': 'sso' } as const;

let sandbox: Sandbox;
beforeAll(async () => {
	const dialect: Dialect = { ...defaultDialect, envelope: 'jsonapi', request: { ...defaultDialect.request, names: { ...TYPES } } };
	sandbox = await startSandbox({ dialect });
	trustCa(sandbox.ca);
});
afterAll(async () => await sandbox.close());

const plain = () => serviceApi(sandbox);
const set = () => ({ ...serviceApi(sandbox), advancedSettings: true, ...requestSettings(sandbox.dialect) });
const reader = async (parameters: IDataObject, credential: IDataObject, inputItems?: Parameters<typeof runWorkflow>[1]['inputItems']) =>
	await runWorkflow(readerWorkflow(parameters as never), { credentials: { serviceApi: credential as never }, inputItems });

describe('JSON:API', () => {
	test('Webhook > Create Endpoint: refused naming the JSON:API Type row; set, the body goes under data.attributes and the item keeps the document with id, type and attributes readable', async () => {
		const url = 'https://hooks.buyer.example/jsonapi';
		const refused = await reader({ resource: 'webhook', operation: 'createEndpoint', url }, plain());
		expect(refused.error(READER)?.message).toContain('asking for JSON:API (application/vnd.api+json), but the node sent a plain JSON body: add the row Webhook Endpoint > JSON:API Type to Request Names');
		expect(sandbox.control.webhookEndpoints().filter((e) => e.url === url)).toEqual([]);

		// The type the route's last segment gives (`webhooks`) is not this Service's: the 409 names the one it expects.
		const wrongType = await reader({ resource: 'webhook', operation: 'createEndpoint', url }, { ...plain(), advancedSettings: true, requestNames: { name: [{ concept: 'webhook.url', serviceName: 'data.attributes.url' }] } });
		expect(wrongType.error(READER)?.message).toContain('the node sent data.type `webhooks`. Set the row Webhook Endpoint > JSON:API Type in Request Names under Advanced Settings in the Service API credential to `webhook-endpoints`.');
		expect(wrongType.error(READER)?.description).toContain('(pointer "/data/type")');

		const created = await reader({ resource: 'webhook', operation: 'createEndpoint', url }, set());
		expect(created.error(READER)).toBeUndefined();
		const endpoint = sandbox.control.webhookEndpoints().find((e) => e.url === url)!;
		const request = sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' }).at(-1)!;
		expect(request.headers['content-type']).toBe(JSON_API);
		expect(JSON.parse(request.body)).toEqual({ data: { type: 'webhook-endpoints', attributes: { url } } });
		const { secret_notice: notice, ...item } = created.output(READER)[0].json;
		expect(notice).toEqual(expect.stringContaining('shown only this once'));
		expect(item).toEqual({
			data: { type: 'webhook-endpoints', id: endpoint.id, attributes: { url, secret: endpoint.secret, created_at: endpoint.created_at } },
			jsonapi: { version: '1.1' },
			id: endpoint.id,
			type: 'webhook-endpoints',
			url,
			secret: endpoint.secret,
			created_at: endpoint.created_at,
		});
		sandbox.control.removeWebhookEndpoint(endpoint.id);
	});

	test('the Service Trigger activates against it once the rows are set, one endpoint for its URL, and deactivates', async () => {
		const harness = new TriggerHarness({ nodeType: new ServiceTrigger(), credentials: { serviceApi: set() }, publicUrl: 'https://n8n.buyer.example' });
		await harness.activate();
		const mine = () => sandbox.control.webhookEndpoints().filter((e) => e.url === harness.webhookUrl());
		expect(mine()).toHaveLength(1);
		await harness.deactivate();
		expect(mine()).toEqual([]);
	});

	test('Policy Run > Create and Invitation > Create: sent as JSON:API, extra fields under attributes too; errors[] words and source in the error', async () => {
		const run = await reader({ resource: 'policyRun', operation: 'create', ke: 'KE-1010', options: { extraFields: '{"policy": "standard"}' } }, set());
		expect(run.error(READER)).toBeUndefined();
		expect(JSON.parse(sandbox.control.requests({ path: '/v1/reader/policy-runs' }).at(-1)!.body)).toEqual({ data: { type: 'policy-runs', attributes: { ke: 'KE-1010', policy: 'standard' } } });
		const [stored] = sandbox.control.policyRuns();
		expect(run.output(READER)[0].json).toMatchObject({ id: stored.id, type: 'policy-runs', ke: 'KE-1010', statement_id: stored.statement_id, data: { id: stored.id } });

		const invitation = { resource: 'invitation', operation: 'create', companyName: 'Envelope Ltd', registrationNumber: 'GB70000001', workEmail: 'not-an-email', additionalFields: {} };
		const refused = await reader(invitation, set());
		expect((refused.error(READER) as { httpCode?: string } | undefined)?.httpCode).toBe('422');
		expect(`${refused.error(READER)?.message} ${refused.error(READER)?.description}`).toMatch(/work.?email/i);
		const invited = await reader({ ...invitation, workEmail: 'buyer@envelope.example' }, set());
		expect(invited.error(READER)).toBeUndefined();
		expect(sandbox.control.invitations().find((i) => i.id === invited.output(READER)[0].json.id)).toMatchObject({ company_name: 'Envelope Ltd' });
	});

	test('Record > Verify with Check Copy reads digest, key and signature through data.attributes', async () => {
		const record = await reader({ resource: 'record', operation: 'get', ke: 'KE-1001' }, set());
		const served = sandbox.control.record('KE-1001');
		const verified = await reader({ resource: 'record', operation: 'verify', ks: served.ks, checkCopy: true }, set(), record.output(READER));
		expect(verified.error(READER)).toBeUndefined();
		expect(verified.output(READER)[0].json).toMatchObject({ copy_matches: true, data: { type: 'verifications', id: served.ks } });
		const tampered = await reader({ resource: 'record', operation: 'verify', ks: served.ks, checkCopy: true }, set(), [
			fileItem(Buffer.concat([served.bytes, Buffer.from(' ')]), `${served.ks}.json`, 'application/json'),
		]);
		expect(tampered.output(READER)[0].json.copy_matches).toBe(false);
	});
});
