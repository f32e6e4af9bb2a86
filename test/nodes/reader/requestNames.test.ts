import type { IDataObject } from 'n8n-workflow';

import { PollHarness, READER, readerWorkflow, runWorkflow } from '../../harness';
import { ServiceChangesTrigger } from '../../../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import type { Sandbox } from '../../sandbox';
import { serviceApi } from '../../sandbox/credential';
import { uploadedCsv, type RequestDialect } from '../../sandbox/requestDialect';
import { fileItem } from './helpers';
import { speakingSandboxes } from './speakingSandbox';
import { getMany, readBinary, serviceJsonRows } from './exportHelpers';

/**
 * What the nodes send, against Services that name it otherwise (docs/service-choices.md, "What the
 * nodes send"): as a new user fills the credential (the README's settings only), the refusal names
 * the setting; with it set, the Service gets what it reads and the output is right.
 */

const camel: RequestDialect['names'] = {
	'invitation.company_name': 'companyName',
	'invitation.registration_number': 'registrationNumber',
	'invitation.work_email': 'workEmail',
	'invitation.reader_reference': 'readerReference',
};

const serviceSpeaking = speakingSandboxes();

async function reader(sandbox: Sandbox, parameters: IDataObject, advanced: IDataObject = {}, inputItems?: Parameters<typeof runWorkflow>[1]['inputItems']) {
	return await runWorkflow(readerWorkflow(parameters as never), { credentials: { serviceApi: serviceApi(sandbox, { advanced }) }, inputItems });
}
const rows = (names: RequestDialect['names']) => ({ requestNames: { name: Object.entries(names).map(([concept, serviceName]) => ({ concept, serviceName })) } });
const invitation = {
	resource: 'invitation',
	operation: 'create',
	companyName: 'Camel Ltd',
	registrationNumber: 'GB90000001',
	workEmail: 'buyer@camel.example',
	additionalFields: { readerReference: 'C-1' },
};

describe('Request Names', () => {
	test('Invitation > Create: a Service refusing the documented names is named field by field; mapped, it gets its own names', async () => {
		const sandbox = await serviceSpeaking({ names: camel, unknownNames: 'refuse' });
		const refused = await reader(sandbox, invitation);
		const error = refused.error(READER)!;
		for (const [label, name] of [['Company Name', 'companyName'], ['Registration Number', 'registrationNumber'], ['Work Email', 'workEmail'], ['Reader Reference', 'readerReference']]) {
			expect(error.message).toContain(`Set Request Names > Invitation > ${label} to \`${name}\` (sent as \``);
		}
		expect(sandbox.control.invitations().filter((i) => i.company_name === 'Camel Ltd')).toEqual([]);

		const mapped = await reader(sandbox, invitation, rows(camel));
		expect(mapped.error(READER)).toBeUndefined();
		const [, sent] = sandbox.control.requests().map((r) => JSON.parse(r.body) as IDataObject);
		expect(sent).toEqual({ companyName: 'Camel Ltd', registrationNumber: 'GB90000001', workEmail: 'buyer@camel.example', readerReference: 'C-1' });
		expect(mapped.output(READER)[0].json).toMatchObject({ company_name: 'Camel Ltd', reader_reference: 'C-1' });
	});

	test('a Service that ignores an optional field it does not know: answered empty, the item fails naming the setting', async () => {
		const sandbox = await serviceSpeaking({ names: { 'invitation.reader_reference': 'ref' }, unknownNames: 'ignore' });
		const result = await reader(sandbox, invitation);
		expect(result.error(READER)?.message).toBe(
			'The Service answered 201 but gives back Invitation > Reader Reference (sent as `reader_reference`) empty, although the node sent it',
		);
		expect(result.error(READER)?.description).toContain('Request Names');
		const fixed = await reader(sandbox, { ...invitation, registrationNumber: 'GB90000002' }, rows({ 'invitation.reader_reference': 'ref' }));
		expect(fixed.output(READER)[0].json).toMatchObject({ registration_number: 'GB90000002', reader_reference: 'C-1' });
	});

	test('Webhook > Create Endpoint: a target under another name is named as the one field of the request', async () => {
		const sandbox = await serviceSpeaking({ names: { 'webhook.url': 'target' }, unknownNames: 'ignore' });
		const parameters = { resource: 'webhook', operation: 'createEndpoint', url: 'https://hooks.buyer.example/names' };
		const refused = await reader(sandbox, parameters);
		expect(refused.error(READER)?.message).toBe(
			'The Service answered 400 naming `target`, which the node did not send. Set Request Names > Webhook Endpoint > URL to `target` (sent as `url`). (Request Names under Advanced Settings in the Service API credential.)',
		);
		const created = await reader(sandbox, parameters, rows({ 'webhook.url': 'target' }));
		const endpoint = sandbox.control.webhookEndpoints().find((e) => e.url === parameters.url)!;
		expect(created.output(READER)[0].json).toMatchObject({ id: endpoint.id, secret: endpoint.secret });
	});

	test('Policy Run > Create: the company under another name; a mapped name the extra fields also use is refused before sending', async () => {
		const sandbox = await serviceSpeaking({ names: { 'policyRun.ke': 'company' }, unknownNames: 'refuse' });
		const parameters = { resource: 'policyRun', operation: 'create', ke: 'KE-1001', options: { extraFields: '{"policy": "standard"}' } };
		const refused = await reader(sandbox, parameters);
		expect(refused.error(READER)?.message).toContain('Set Request Names > Policy Run > KE to `company` (sent as `ke`)');
		const run = await reader(sandbox, parameters, rows({ 'policyRun.ke': 'company' }));
		expect(run.output(READER)[0].json).toMatchObject({ ke: 'KE-1001', status: 'completed' });
		expect(JSON.parse(sandbox.control.requests().at(-1)!.body)).toEqual({ company: 'KE-1001', policy: 'standard' });

		sandbox.control.clearRequests();
		const clash = await reader(sandbox, { ...parameters, options: { extraFields: '{"company": "x"}' } }, rows({ 'policyRun.ke': 'company' }));
		expect(clash.error(READER)?.message).toBe('Request Names would send two fields under one name');
		expect(sandbox.control.requests()).toEqual([]);
	});

	test('SSO > Set Configuration: nested names (the mapping and its entries) are renamed too', async () => {
		const names = { 'sso.group_role_mapping': 'groups', 'sso.group_role_mapping.group': 'idpGroup' } as const;
		const sandbox = await serviceSpeaking({ names, unknownNames: 'refuse' });
		sandbox.control.confirmPasskey();
		const parameters = {
			resource: 'sso',
			operation: 'setConfiguration',
			providerType: 'SAML',
			emailDomains: { domain: [{ name: 'buyer.example' }] },
			groupRoleMapping: { mapping: [{ group: 'procurement', role: 'reader_admin' }] },
		};
		const refused = await reader(sandbox, parameters);
		expect(refused.error(READER)?.message).toContain('Request Names');
		const stored = await reader(sandbox, parameters, rows(names));
		expect(stored.error(READER)).toBeUndefined();
		expect(JSON.parse(sandbox.control.requests().at(-1)!.body)).toEqual({
			provider_type: 'SAML',
			email_domains: ['buyer.example'],
			groups: [{ idpGroup: 'procurement', role: 'reader_admin' }],
		});
	});

	test('Expiry > Get Many: a window parameter the Service ignores fails the item (items and file); mapped, only the window\'s rows', async () => {
		const sandbox = await serviceSpeaking({ names: { 'export.window': 'within_days' }, unknownNames: 'ignore' });
		const all = await serviceJsonRows(sandbox, '/v1/reader/exports/expiries?format=json');
		const within30 = await serviceJsonRows(sandbox, '/v1/reader/exports/expiries?format=json&within_days=30');
		// The check can only fail where the data has rows beyond 30 days.
		expect(all.length).toBeGreaterThan(within30.length);
		expect(within30.length).toBeGreaterThan(0);

		for (const parameters of [{ window: '30', returnAll: true }, { window: '30', returnAll: true, format: 'json' }, { window: '30', returnAll: true, output: 'file' }]) {
			const ignored = await reader(sandbox, getMany('expiry', parameters));
			expect(ignored.error(READER)?.message).toMatch(/^Row \d+ of the expiries export lies outside the 30-day window asked for \(its window_days is (60|90)\)$/);
			expect(ignored.error(READER)?.description).toContain('The window was sent as window=30');
			expect(ignored.error(READER)?.description).toContain('Map Expiries > Window Parameter');
			expect(ignored.output(READER)).toEqual([]);
		}
		const mapped = await reader(sandbox, getMany('expiry', { window: '30', returnAll: true, format: 'json' }), rows({ 'export.window': 'within_days' }));
		expect(mapped.output(READER).map((item) => item.json)).toEqual(within30);
		const file = await reader(sandbox, getMany('expiry', { window: '30', returnAll: true, output: 'file' }), rows({ 'export.window': 'within_days' }));
		expect(file.output(READER)[0].json.rows).toBe(within30.length);
		expect((await readBinary(file.output(READER)[0].binary?.data)).toString('utf8')).toContain('window_days');
	});

	test('Expiry > Get Many: a 400 naming only `window`, the parameter the node sent, names Request Names', async () => {
		const sandbox = await serviceSpeaking({});
		sandbox.control.failRoute({
			path: '/v1/reader/exports/expiries',
			mode: 'answer',
			status: 400,
			contentType: 'application/json',
			body: JSON.stringify({ error: { code: 'invalid_request', message: 'Unknown query parameter: window' } }),
		});
		const refused = await reader(sandbox, getMany('expiry', { window: '30', returnAll: true }));
		const error = refused.error(READER)!;
		expect(error.message).toBe(
			'The Service answered 400 naming `window` (Expiries > Window Parameter), which the node sent: if the Service reads it under another name, map it in Request Names under Advanced Settings in the Service API credential; otherwise check the value sent.',
		);
		expect(error.description).toContain('Unknown query parameter: window');
	});

	test('Service names `__proto__` and `constructor` are sent like any name: the window query parameter, a body field', async () => {
		for (const name of ['__proto__', 'constructor']) {
			const sandbox = await serviceSpeaking({ names: { 'export.window': name, 'webhook.url': name }, unknownNames: 'refuse' });
			const within30 = await serviceJsonRows(sandbox, `/v1/reader/exports/expiries?format=json&${name}=30`);
			const mapped = await reader(sandbox, getMany('expiry', { window: '30', returnAll: true, format: 'json' }), rows({ 'export.window': name, 'webhook.url': name }));
			expect(mapped.error(READER)).toBeUndefined();
			expect(mapped.output(READER).map((item) => item.json)).toEqual(within30);
			expect(sandbox.control.requests({ path: '/v1/reader/exports/expiries' }).at(-1)!.query).toEqual({ format: 'json', [name]: '30' });
			const created = await reader(sandbox, { resource: 'webhook', operation: 'createEndpoint', url: 'https://hooks.buyer.example/proto' }, rows({ 'webhook.url': name }));
			expect(created.error(READER)).toBeUndefined();
			expect(Object.entries(JSON.parse(sandbox.control.requests({ path: '/v1/reader/webhooks' }).at(-1)!.body) as object)).toEqual([[name, 'https://hooks.buyer.example/proto']]);
		}
	});

	test('Service Changes Trigger on expiries: a window parameter the Service ignores fails the poll naming the setting, state kept; mapped, it polls', async () => {
		const sandbox = await serviceSpeaking({ names: { 'export.window': 'within_days' }, unknownNames: 'ignore' });
		const poller = (advanced: IDataObject) =>
			new PollHarness({ nodeType: new ServiceChangesTrigger(), parameters: { export: 'expiries', window: '30' }, credentials: { serviceApi: serviceApi(sandbox, { advanced }) } });
		await expect(poller({}).activate()).rejects.toMatchObject({
			message: expect.stringMatching(/^Row \d+ of the expiries export lies outside the 30-day window asked for/),
			description: expect.stringMatching(/Map Expiries > Window Parameter.*the state of the last complete poll is kept/),
		});
		expect(await poller(rows({ 'export.window': 'within_days' })).activate()).toEqual({ items: undefined, error: undefined });
	});

	test('Exports: the JSON format asked under another parameter, named by the refusal', async () => {
		const sandbox = await serviceSpeaking({ names: { 'export.json_format': 'output' }, unknownNames: 'refuse' });
		const refused = await reader(sandbox, getMany('portfolio', { format: 'json' }));
		expect(refused.error(READER)?.message).toContain('Set Request Names > Exports > JSON Format Parameter to `output` (sent as `format`)');
		const mapped = await reader(sandbox, getMany('portfolio', { format: 'json', limit: 2 }), rows({ 'export.json_format': 'output' }));
		expect(mapped.output(READER)).toHaveLength(2);
		expect(sandbox.control.requests().at(-1)!.query).toEqual({ output: 'json' });
	});
});

describe('Import Upload', () => {
	const csv = 'company_name,registration_number,work_email,reader_reference\r\nForm Ltd,GB91000001,buyer@form.example,F1\r\n';
	const run = async (sandbox: Sandbox, advanced: IDataObject = {}) =>
		await reader(sandbox, { resource: 'invitation', operation: 'import', source: 'binaryFile' }, advanced, [fileItem(Buffer.from(csv), 'suppliers.csv', 'text/csv')]);

	test('a Service taking a multipart form: the CSV body is refused naming Import Upload; a wrong form field names Import Form Field', async () => {
		const sandbox = await serviceSpeaking({ importUpload: { form: 'multipart', field: 'upload' } });
		const asBody = await run(sandbox);
		expect(asBody.error(READER)?.message).toBe(
			'The Service answered 415 naming a multipart form, but the node sent the CSV as the body (text/csv): set Import Upload under Advanced Settings in the Service API credential to Multipart Form, with the form field the Service names.',
		);
		const wrongField = await run(sandbox, { importUpload: 'multipart' });
		expect(wrongField.error(READER)?.message).toBe(
			'The Service answered 422 naming the form field `upload`, but the node sent the file in `file`: set Import Form Field (Import Upload under Advanced Settings in the Service API credential) to `upload`.',
		);
		const imported = await run(sandbox, { importUpload: 'multipart', importFormField: 'upload' });
		expect(imported.output(READER).map((item) => [item.json.row, item.json.ok])).toEqual([[1, true]]);
		expect(uploadedCsv(sandbox.dialect.request, sandbox.control.requests().at(-1)!)).toBe(csv);
	});

	test('a Service taking the CSV as the body refuses a form: named as Import Upload', async () => {
		const sandbox = await serviceSpeaking({});
		const asForm = await run(sandbox, { importUpload: 'multipart' });
		expect(asForm.error(READER)?.message).toBe(
			'The Service answered 415 naming text/csv, but the node sent a multipart form: set Import Upload under Advanced Settings in the Service API credential to CSV Body.',
		);
	});
});
