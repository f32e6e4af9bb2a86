import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow } from '../harness';
import { fileItem } from './reader/helpers';
import { useTriggerSetup } from './trigger/setup';
import { dialogFields, requestSettings } from '../sandbox/credential';
import { altDialect } from '../sandbox/dialect';

// Both nodes against a Service that chose differently wherever the spec says "not shown" (the
// sandbox's alt dialect): other names for lists, row reasons, catalogue entries, created endpoints
// and errors; a catalogue keyed by event type, the created endpoint one level deeper, a passkey
// asked with 401; other cursor, page-size and format parameters; a hex secret and base64 signatures
// with t in milliseconds.
// What can be found by name or shape works as it is; the rest needs the credential's overrides.
// 86400: a delivery to an address nobody serves gives up within seconds, not 24 hours.
const setup = useTriggerSetup({ sandbox: { dialect: 'alt', pageSize: 4, timeScale: 86_400 } });

beforeEach(() => setup.sandbox.control.clearRequests());

// Request Names (camelCase fields, `target`, `company`, `within_days`, `output`) and Import Upload (a form, field `upload`) as the alt Service reads them.
const overrides = { cursorParameter: 'after', pageSizeParameter: 'limit', pageSize: 3, jsonFormat: 'application/json', signingKeyEncoding: 'hex', ...requestSettings(altDialect) };
const credentials = (advanced: IDataObject = overrides) => ({
	serviceApi: { baseUrl: setup.sandbox.baseUrl, accessToken: setup.sandbox.tokens.reader, ...dialogFields(advanced) },
});
const run = async (parameters: INodeParameters, options: { advanced?: IDataObject; inputItems?: INodeExecutionData[] } = {}) =>
	await runWorkflow(readerWorkflow(parameters), { credentials: credentials(options.advanced), inputItems: options.inputItems });

describe('Service Reader on the alt dialect', () => {
	test('Invitation Import: refused rows carry the Service\'s own reason, and every field it sent', async () => {
		const csv = 'company_name,registration_number,work_email,reader_reference\r\nGood Alt Ltd,GB80000001,buyer@goodalt.example,A1\r\nBad Alt Ltd,GB80000002,not-an-email,A2\r\n';
		const result = await run({ resource: 'invitation', operation: 'import', source: 'binaryFile' }, {
			inputItems: [fileItem(Buffer.from(csv), 'invitations.csv', 'text/csv')],
		});

		expect(result.error(READER)).toBeUndefined();
		const [accepted, refused] = result.output(READER).map((item) => item.json);
		expect(accepted).toMatchObject({ row: 1, ok: true, line: 2, status: 'accepted', check: 'Invitation sent to buyer@goodalt.example.' });
		expect(accepted.invitation_id).toEqual(accepted.invitationId);
		expect(refused).toMatchObject({
			row: 2,
			ok: false,
			// Numbered by line of the uploaded file (the header is line 1), read as row 2.
			line: 3,
			status: 'rejected',
			reason: 'The work email "not-an-email" is not a valid email address: check it for typos.',
			check: 'The work email "not-an-email" is not a valid email address: check it for typos.',
		});
	});

	test('Webhook Get Catalogue reads an object keyed by event type under its own name: one item per type, the key kept, the entries whole', async () => {
		const result = await run({ resource: 'webhook', operation: 'getCatalogue' });

		expect(result.error(READER)).toBeUndefined();
		const entries = result.output(READER).map((item) => item.json);
		expect(entries.map((entry) => entry.event_type)).toContain('ledger_low');
		expect(entries.map((entry) => entry.event_type)).toContain('share_revoked');
		expect(entries[0]).toEqual({ event_type: expect.any(String), summary: expect.any(String), example: expect.any(Object) });
	});

	test('Audit Pack Get: a 410 whose words never say "share" is settled by the record route (410 too: does not share)', async () => {
		const ended = await run({ resource: 'auditPack', operation: 'get', ke: 'KE-1012', packId: 'AP-1012-1', options: { whenNotShared: 'outputItem' } });
		expect(ended.output(READER).map((item) => item.json)).toEqual([{ ke: 'KE-1012', pack_id: 'AP-1012-1', shared: false }]);
		expect(setup.sandbox.control.requests().map((r) => [r.path, r.status])).toEqual([
			['/v1/reader/exports/audit-packs/KE-1012/AP-1012-1', 410],
			['/v1/reader/exports/records/KE-1012', 410],
		]);

		const missing = await run({ resource: 'auditPack', operation: 'get', ke: 'KE-1001', packId: 'AP-9999-9', options: { whenNotShared: 'outputItem' } });
		expect(missing.error(READER)?.message).toBe('The Service has no audit pack AP-9999-9 for company KE-1001 (404)');
		expect(missing.error(READER)?.description).toContain('The Service said: "No audit pack AP-9999-9 for company KE-1001');
	});

	test('exports page with the overridden cursor, page-size and format parameters', async () => {
		const portfolio = await run({ resource: 'portfolio', operation: 'getAll', returnAll: true });
		const invitations = await run({ resource: 'invitation', operation: 'getAll', returnAll: true, format: 'json' });

		expect(portfolio.error(READER)).toBeUndefined();
		const shared = setup.sandbox.control.shares().filter((share) => share.state === 'shared');
		expect(portfolio.output(READER).map((item) => item.json.ke).sort()).toEqual(shared.map((share) => share.ke).sort());
		const pages = setup.sandbox.control.requests({ path: '/v1/reader/exports/portfolio' });
		expect(pages.length).toBeGreaterThan(1);
		expect(pages.slice(1).every((page) => typeof page.query.after === 'string' && page.query.limit === '3')).toBe(true);
		expect(invitations.error(READER)).toBeUndefined();
		expect(invitations.output(READER).map((item) => item.json.invitation_id).sort()).toEqual(
			setup.sandbox.control.invitations().map((invitation) => invitation.id).sort(),
		);
		expect(setup.sandbox.control.requests({ path: '/v1/reader/exports/invitations' })[0].query.output).toBe('application/json');
	});

	test('reads gzip-compressed JSON lines pages, and a 204 for an empty export as zero items', async () => {
		const invitations = await run({ resource: 'invitation', operation: 'getAll', returnAll: true, format: 'json' });
		expect(invitations.output(READER)).toHaveLength(setup.sandbox.control.invitations().length);
		// The sandbox compresses whenever the client accepts gzip: so these pages came compressed.
		const pages = setup.sandbox.control.requests({ path: '/v1/reader/exports/invitations' });
		expect(pages.every((page) => /\bgzip\b/.test(String(page.headers['accept-encoding'])))).toBe(true);

		const statements = await run({ resource: 'statement', operation: 'getAll', returnAll: true });
		expect(statements.error(READER)).toBeUndefined();
		expect(statements.output(READER)).toEqual([]);
		expect(setup.sandbox.control.requests({ path: '/v1/reader/exports/statements' }).map((r) => r.status)).toEqual([204]);
	});

	test('without the overrides, the node says what to set instead of paging for ever or guessing', async () => {
		const portfolio = await run({ resource: 'portfolio', operation: 'getAll', returnAll: true }, { advanced: {} });
		expect(portfolio.error(READER)?.description).toContain('check Cursor Parameter under Advanced Settings in the Service API credential');

		const invitations = await run({ resource: 'invitation', operation: 'getAll', returnAll: true, format: 'json' }, { advanced: {} });
		// An application/problem+json error: its words (naming `output`) are read.
		expect(invitations.error(READER)?.message).toBe(
			'The Service answered 400 naming `output`, which the node did not send. Set Request Names > Exports > JSON Format Parameter to `output` (sent as `format`). (Request Names under Advanced Settings in the Service API credential.)',
		);
		expect(invitations.error(READER)?.description).toContain('Page 1 of the');
	});

	test('Webhook Create Endpoint finds the one-time secret wherever the answer holds it', async () => {
		const result = await run({ resource: 'webhook', operation: 'createEndpoint', url: 'https://hooks.buyer.example/alt' });

		const [item] = result.output(READER).map((entry) => entry.json);
		// One level deeper than the alt names themselves: {"result": {"webhook": {...}}}, passed on whole.
		const endpoint = (item.result as IDataObject).webhook as IDataObject;
		// The secret in an object under its secret-named key: {"secret_key": {"type", "value"}}.
		expect(endpoint).toMatchObject({ target: 'https://hooks.buyer.example/alt', secret_key: { value: expect.stringMatching(/^[0-9a-f]{64}$/) } });
		// The id and the secret also under the README's names.
		expect(item).toMatchObject({ id: endpoint.uuid, secret: (endpoint.secret_key as IDataObject).value, secret_notice: expect.any(String) });
		setup.sandbox.control.removeWebhookEndpoint(endpoint.uuid as string);
	});
});

describe('Service Trigger on the alt dialect', () => {
	test('lists the Service\'s own catalogue, registers, verifies a hex-secret base64-signed delivery, and deletes its endpoint', async () => {
		// Its catalogue comes in pages under its own cursor parameter: without it, a loud error naming the setting.
		setup.harness = setup.newHarness({ credentials: credentials({ signingKeyEncoding: 'hex', ...requestSettings(altDialect) }) });
		await expect(setup.harness.loadOptions('getEvents')).rejects.toMatchObject({ description: expect.stringContaining('check Cursor Parameter under Advanced Settings') });
		setup.harness = setup.newHarness({ credentials: credentials({ signingKeyEncoding: 'hex', cursorParameter: altDialect.cursorParameter, ...requestSettings(altDialect) }) });
		const events = await setup.harness.loadOptions('getEvents');
		expect(events.map((event) => event.value)).toContain('ledger_low');

		await setup.harness.activate();
		const mine = () => setup.sandbox.control.webhookEndpoints().filter((endpoint) => endpoint.url === setup.harness.webhookUrl());
		expect(mine()).toHaveLength(1);
		// The activation check reads the Service's listing under its own names.
		expect(await setup.harness.runHook('checkExists')).toBe(true);

		const alert = setup.sandbox.control.emit('share_revoked', { organisation: 'KE-1001' });
		const [delivery] = await setup.sandbox.control.whenSettled(alert.alertId);
		expect(delivery.attempts.map((attempt) => attempt.status ?? attempt.error)).toEqual([200]);
		await setup.receiver.drained();
		expect(setup.receiver.executions.flatMap((execution) => execution.items.map((item) => String(item.json.alert_id)))).toContain(alert.alertId);

		await setup.harness.deactivate();
		expect(mine()).toEqual([]);
	});
});

describe('Service Trigger on the alt dialect: its hex signing secret', () => {
	const withCursor = (extra: IDataObject) => credentials({ cursorParameter: altDialect.cursorParameter, ...requestSettings(altDialect), ...extra });
	const refusalRun = 'The execution failed: The Service Trigger refused 3 signed deliveries in a row: alerts are not reaching this workflow';

	test('Secret Encoding left at Detect: every delivery verifies (the hex reading is found and kept)', async () => {
		setup.harness = setup.newHarness({ credentials: withCursor({}) });
		await setup.harness.activate();
		try {
			for (const ke of ['KE-1001', 'KE-1002']) {
				const alert = setup.sandbox.control.emit('share_revoked', { organisation: ke });
				const [delivery] = await setup.sandbox.control.whenSettled(alert.alertId);
				expect(delivery.attempts.map((attempt) => attempt.status ?? attempt.error)).toEqual([200]);
			}
		} finally {
			await setup.harness.deactivate();
		}
	});

	test('Secret Encoding set to Base64: refused, and the log and the execution list say Hex would verify them', async () => {
		setup.harness = setup.newHarness({ credentials: withCursor({ signingKeyEncoding: 'base64' }) });
		await setup.harness.activate();
		const logsBefore = setup.logs.length;
		const errorsBefore = setup.receiver.errors.length;
		try {
			for (const ke of ['KE-1001', 'KE-1002', 'KE-1003']) {
				const alert = setup.sandbox.control.emit('share_revoked', { organisation: ke });
				const [delivery] = await setup.sandbox.control.whenSettled(alert.alertId);
				expect(delivery.attempts[0].status).toBe(401);
			}
			await setup.receiver.drained();
			const warnings = setup.logs.slice(logsBefore).filter((line) => line.level === 'warn').map((line) => line.message);
			expect(warnings[0]).toContain('the signature verifies only with the signing secret read as Hex, which the credential\'s Secret Encoding setting does not say: set Secret Encoding to Hex (or Detect)');
			const shown = setup.receiver.errors.slice(errorsBefore);
			expect(shown.map((error) => error.message)).toContain(refusalRun);
			expect(JSON.stringify(shown.map((error) => (error as { description?: string }).description ?? ''))).toContain('set it to Hex (or Detect)');
		} finally {
			await setup.harness.deactivate();
		}
	});
});

