import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { parse } from 'csv-parse/sync';

import { READER, readerWorkflow, runWorkflow, trustCa } from '../harness';
import { cursorSettingNamed, dialect, requestSettingNamed, settingNamed, signInSettingNamed } from '../property/dialects';
import { runs } from '../property/fc';
import { ServiceTrigger } from '../../nodes/ServiceTrigger/ServiceTrigger.node';
import { TriggerHarness } from '../harness/triggerHarness';
import { PollHarness } from '../harness/pollHarness';
import { ServiceChangesTrigger } from '../../nodes/ServiceChangesTrigger/ServiceChangesTrigger.node';
import { receiverTls, startTriggerReceiver } from '../harness/triggerReceiver';
import { recentKeys } from '../../nodes/ServiceTrigger/verify/recentKeys';
import { cursorSettings, requestSettings, serviceApi, signInSettings } from '../sandbox/credential';
import { eventCatalogue } from '../sandbox/events';
import { tamperedCopy } from '../sandbox/records';
import { fileItem } from './reader/helpers';
import { startSandbox, type Delivery, type Sandbox } from '../sandbox';
import { csvPageText, getMany, joinCsvPageBytes, portfolioCsvRows, readBinary, serviceCredentials, serviceJsonRows, servicePageBytes } from './reader/exportHelpers';

/**
 * The real Service Reader against sandboxes whose choices where the spec says "not shown" are drawn
 * at random (each independent of the others; `default` and `alt` are two fixed points among them):
 * every row equals the sandbox's data, in items and as one file, or the item fails with an error
 * naming the setting, after which setting it succeeds. Replay: FC_SEED (and FC_PATH) from the
 * failure message; FC_RUNS for a longer run.
 */

/** A field the node added: beside the Service's, or under `_reader` when the Service sent that name with another value. */
function added(json: Record<string, unknown>, name: string): unknown {
	const holder = json._reader as Record<string, unknown> | undefined;
	return holder !== null && typeof holder === 'object' && name in holder ? holder[name] : json[name];
}

/** The credential as a new user first fills it: the sign-in left at its default (Bearer) until an error names it. */
function withoutSignIn(fields: IDataObject): IDataObject {
	const { tokenPlacement: _placement, authHeaderName: _header, authScheme: _scheme, ...rest } = fields;
	return rest;
}

/** The credential without Send Cursor As: a Service reading the cursor from a header is told by the error naming it. */
function withoutCursor(fields: IDataObject): IDataObject {
	const { cursorPlacement: _placement, cursorHeaderName: _header, ...rest } = fields;
	return rest;
}

async function portfolio(sandbox: Sandbox, output: 'items' | 'file' | 'json', advanced: IDataObject) {
	const credentials = serviceCredentials(sandbox, { pageSize: 3 });
	credentials.serviceApi = { ...withoutCursor(withoutSignIn(credentials.serviceApi)), advancedSettings: true, ...advanced };
	const parameters = output === 'file' ? { returnAll: true, output: 'file' } : output === 'json' ? { returnAll: true, format: 'json' } : { returnAll: true };
	return await runWorkflow(readerWorkflow(getMany('portfolio', parameters)), { credentials });
}

/** Runs the export; while it fails, the error must name a setting (the sign-in, a CSV choice), and with each set it must succeed. */
async function exportWithNamedSettings(sandbox: Sandbox, output: 'items' | 'file') {
	const named: IDataObject = {};
	for (let attempt = 0; ; attempt++) {
		const run = await portfolio(sandbox, output, named);
		if (run.run.status === 'success') return run;
		expect(attempt).toBeLessThan(4);
		const error = run.error(READER);
		const message = `${error?.message ?? ''} ${error?.description ?? ''}`;
		// A repeated page names Send Cursor As: its rows never passed on.
		if (/Send Cursor As/.test(error?.message ?? '')) expect(run.output(READER)).toEqual([]);
		Object.assign(named, /Send Cursor As/.test(error?.message ?? '') ? cursorSettingNamed(message, sandbox.dialect) : settingNamed(message, sandbox.dialect.csv));
	}
}

describe('the Service Reader on generated Service dialects', () => {
	test('portfolio rows equal the sandbox data in items and as one file, in every dialect', async () => {
		await fc.assert(
			// One run in five also rate-limits a page (a 1-second wait, as the dialect's header says it; asked sooner, 429 again).
			fc.asyncProperty(dialect, fc.nat(4), async (drawn, draw) => {
				const rateLimited = draw === 0;
				const sandbox = await startSandbox({ dialect: drawn });
				try {
					trustCa(sandbox.ca);
					const expected = portfolioCsvRows(sandbox);

					const items = await exportWithNamedSettings(sandbox, 'items');
					expect(items.output(READER).map((item) => item.json)).toEqual(expected);

					// JSON: whatever the content type (an object, JSON lines), the same rows; an empty export (200 or 204) is zero items.
					if (rateLimited) sandbox.control.failPage({ route: 'portfolio', page: 2, mode: '429', retryAfterSeconds: 1, enforce: true });
					// As a user of this dialect fills in Request Names (a JSON format parameter named otherwise).
					const json = await portfolio(sandbox, 'json', { ...requestSettings(drawn), ...signInSettings(drawn), ...cursorSettings(drawn) });
					expect(json.error(READER)).toBeUndefined();
					expect(json.output(READER).map((item) => item.json)).toEqual(await serviceJsonRows(sandbox, '/v1/reader/exports/portfolio?format=json'));
					if (rateLimited) {
						const statuses = sandbox.control.requests({ path: '/v1/reader/exports/portfolio' }).filter((r) => r.query.format !== 'csv').map((r) => r.status);
						expect(statuses.slice(0, 3)).toEqual([200, 429, 200]);
					}
					const statements = await runWorkflow(readerWorkflow(getMany('statement', { returnAll: true })), { credentials: serviceCredentials(sandbox, { pageSize: 3 }) });
					expect(statements.error(READER)).toBeUndefined();
					expect(statements.output(READER)).toEqual([]);

					const file = await exportWithNamedSettings(sandbox, 'file');
					// In the dialect's charset (UTF-16 with its mark, windows-1252, a sep= line): the bytes as sent, the mark and sep= once.
					const bytes = await readBinary(file.output(READER)[0].binary?.data);
					const pages = await servicePageBytes(sandbox, `/v1/reader/exports/portfolio?format=csv&${sandbox.dialect.pageSizeParameter}=3`);
					expect(bytes.equals(joinCsvPageBytes(pages, drawn.csv))).toBe(true);
					expect(parse(csvPageText(bytes, drawn.csv), { columns: true, bom: true, delimiter: drawn.csv.delimiter })).toEqual(expected);
				} finally {
					await sandbox.close();
				}
			}),
			runs(50),
		);
	}, 300_000);

	test('catalogue, create endpoint, invitation, import, expiries window, SSO and trigger activation: right output, or an error naming the request setting that then makes it right', async () => {
		await fc.assert(
			fc.asyncProperty(dialect, async (drawn) => {
				const sandbox = await startSandbox({ dialect: drawn });
				try {
					trustCa(sandbox.ca);
					// As a new user fills the credential: what the nodes cannot detect, less the request settings (Request Names, Import Upload).
					let plain = withoutSignIn(serviceApi(sandbox)) as ReturnType<typeof serviceApi>;
					for (const key of Object.keys(requestSettings(drawn))) delete plain[key];
					// The sign-in: the first call works, or its 401 names Send Token As and the value, which then works.
					const signedIn = await runWorkflow(readerWorkflow({ resource: 'webhook', operation: 'getCatalogue' }), { credentials: { serviceApi: plain } });
					if (signedIn.error(READER) !== undefined) {
						const error = signedIn.error(READER)!;
						expect(drawn.signIn.form).not.toBe('bearer');
						plain = { ...plain, advancedSettings: true, ...signInSettingNamed(`${error.message} ${error.description ?? ''}`) };
						expect(plain).toMatchObject(signInSettings(drawn));
					} else {
						expect(drawn.signIn.form).toBe('bearer');
					}
					const fixed = { ...plain, advancedSettings: true, ...requestSettings(drawn) };
					const credentials = { serviceApi: plain };
					const reader = async (parameters: INodeParameters, inputItems?: Parameters<typeof runWorkflow>[1]['inputItems']) =>
						await runWorkflow(readerWorkflow(parameters), { credentials, inputItems });
					// Right output, or an error naming the setting; then, with it set, right output (`attempt` 1).
					const settled = async (parameters: (attempt: number) => INodeParameters, inputItems?: Parameters<typeof runWorkflow>[1]['inputItems']) => {
						const first = await reader(parameters(0), inputItems);
						const error = first.error(READER);
						if (error === undefined) return first;
						const named = requestSettingNamed(`${error.message} ${error.description ?? ''}`, drawn);
						const second = await runWorkflow(readerWorkflow(parameters(1)), { credentials: { serviceApi: { ...plain, advancedSettings: true, ...named } }, inputItems });
						expect(second.error(READER)).toBeUndefined();
						return second;
					};

					// The catalogue: one item per event type, whatever its shape.
					const catalogue = await reader({ resource: 'webhook', operation: 'getCatalogue' });
					const types = catalogue.output(READER).map((item) => item.json.event_type ?? item.json.type);
					expect(types).toEqual(expect.arrayContaining(eventCatalogue.map((event) => event.event_type)));

					// Create Endpoint: the one-time secret found at any depth.
					const url = 'https://hooks.buyer.example/dialect';
					const created = await settled(() => ({ resource: 'webhook', operation: 'createEndpoint', url }));
					const endpoint = sandbox.control.webhookEndpoints().find((e) => e.url === url)!;
					expect(created.output(READER).map((item) => [added(item.json, 'id'), added(item.json, 'secret')])).toEqual([[endpoint.id, endpoint.secret]]);
					sandbox.control.removeWebhookEndpoint(endpoint.id);

					// Invitation > Create: stored as sent, reference included.
					const invited = await settled((attempt) => ({
						resource: 'invitation',
						operation: 'create',
						companyName: 'Dialect Co',
						registrationNumber: `GB8200000${attempt}`,
						workEmail: 'buyer@dialectco.example',
						additionalFields: { readerReference: 'DC-1' },
					}));
					const stored = sandbox.control.invitations().find((i) => i.id === invited.output(READER)[0].json.id)!;
					expect([stored.company_name, stored.work_email, stored.reader_reference]).toEqual(['Dialect Co', 'buyer@dialectco.example', 'DC-1']);

					// Import: every row answered, as JSON or as CSV, however the file is uploaded.
					const csv = 'company_name,registration_number,work_email,reader_reference\r\nGood Dialect Ltd,GB81000001,buyer@gooddialect.example,D1\r\nBad Dialect Ltd,GB81000002,not-an-email,D2\r\n';
					const imported = await settled(() => ({ resource: 'invitation', operation: 'import', source: 'binaryFile' }), [
						fileItem(Buffer.from(csv), 'invitations.csv', 'text/csv'),
					]);
					expect(imported.output(READER).map((item) => [added(item.json, 'row'), added(item.json, 'ok')])).toEqual([
						[1, true],
						[2, false],
					]);

					// Policy Run > Create, waiting for its statement: found at the statements export, however late the Service lists it.
					const ran = await settled(() => ({ resource: 'policyRun', operation: 'create', ke: 'KE-1010', options: { statementWait: 30 } }));
					const runJson = ran.output(READER)[0].json;
					const run = sandbox.control.policyRuns().find((r) => r.id === runJson.id)!;
					expect([added(runJson, 'statement_wait'), (added(runJson, 'statement') as Record<string, unknown>)?.run_id]).toEqual(['found', run.id]);

					// Expiries within 30 days: exactly the window's rows, never every row.
					const window = await settled(() => getMany('expiry', { window: '30', returnAll: true, format: 'json' }));
					expect(window.output(READER).map((item) => item.json)).toEqual(await serviceJsonRows(sandbox, '/v1/reader/exports/expiries?format=json&window=30'));
					// As CSV too (no JSON format parameter involved): the same rows, by reference.
					const windowCsv = await settled(() => getMany('expiry', { window: '30', returnAll: true }));
					expect(windowCsv.output(READER).map((item) => item.json.reference)).toEqual(
						(await serviceJsonRows(sandbox, '/v1/reader/exports/expiries?format=json&window=30')).map((row) => row.reference),
					);

					// Check Copy: whatever form the key, digest and signature take, a genuine copy matches and a changed one does not.
					// Record and audit pack byte for byte, also through a redirect to the object store, which never sees a credential.
					const record = await reader({ resource: 'record', operation: 'get', ke: 'KE-1001' });
					expect(record.error(READER)).toBeUndefined();
					expect((await readBinary(record.output(READER)[0].binary?.data)).equals(sandbox.control.record('KE-1001').bytes)).toBe(true);
					const pack = await reader({ resource: 'auditPack', operation: 'get', ke: 'KE-1001', packId: 'AP-1001-1' });
					expect(pack.error(READER)).toBeUndefined();
					const fetched = sandbox.objectStore.requests();
					const packBytes = await readBinary(pack.output(READER)[0].binary?.data);
					if (drawn.downloads.via === 'direct') expect(fetched).toEqual([]);
					else {
						expect(fetched.map((r) => r.status)).toEqual([...Array<number>(drawn.downloads.hops).fill(307), 200, ...Array<number>(drawn.downloads.hops).fill(307), 200]);
						expect(packBytes.equals(fetched[fetched.length - 1].served!)).toBe(true);
						const tokens = Object.values(sandbox.tokens);
						for (const request of fetched) {
							expect([request.refused, request.headers.authorization, request.headers.cookie]).toEqual([undefined, undefined, undefined]);
							expect(tokens.filter((token) => JSON.stringify(request.headers).includes(token))).toEqual([]);
						}
					}
					const ks = sandbox.control.record('KE-1001').ks;
					const verified = await reader({ resource: 'record', operation: 'verify', ks, checkCopy: true }, record.output(READER));
					expect(verified.error(READER)).toBeUndefined();
					expect(verified.output(READER).map((item) => added(item.json, 'copy_matches'))).toEqual([true]);
					// Checked in the suite the drawn Service publishes (SHA-256/384/512; Ed25519, ECDSA, RSA-PSS, PKCS#1 v1.5).
					const { digestSuite, signatureSuite } = drawn.answers.verification;
					expect(added(verified.output(READER)[0].json, 'copy_reason')).toMatch(new RegExp(`its SHA-${digestSuite.slice(3)} matches and the ${signatureSuite === 'Ed25519' ? 'Ed25519' : `.*\\(${signatureSuite}\\)`} signature verifies`));
					const tampered = fileItem(tamperedCopy(sandbox.control.record('KE-1001').bytes), `${ks}.json`, 'application/json');
					const refused = await reader({ resource: 'record', operation: 'verify', ks, checkCopy: true }, [tampered]);
					expect(refused.output(READER).map((item) => added(item.json, 'copy_matches'))).toEqual([false]);

					// SSO without a passkey: said as a passkey problem, never as a rejected token.
					const sso = await reader({
						resource: 'sso',
						operation: 'setConfiguration',
						providerType: 'OIDC',
						emailDomains: { domain: [{ name: 'buyer.example' }] },
						groupRoleMapping: { mapping: [{ group: 'procurement', role: 'reader_analyst' }] },
					});
					expect(sso.error(READER)?.message).toMatch(/passkey|Passkey/);
					expect(sso.error(READER)?.message).not.toMatch(/rejected the access token/);

					// Trigger: activation registers its URL (or fails naming the setting); one endpoint for its URL, also when its stored state is lost.
					let triggerCredentials = credentials;
					const harness = new TriggerHarness({ nodeType: new ServiceTrigger(), credentials, publicUrl: 'https://n8n.buyer.example' });
					const mine = () => sandbox.control.webhookEndpoints().filter((e) => e.url === harness.webhookUrl());
					try {
						await harness.activate();
					} catch (error) {
						requestSettingNamed(`${(error as Error).message} ${(error as { description?: string }).description ?? ''}`, drawn);
						expect(mine()).toEqual([]);
						triggerCredentials = { serviceApi: fixed };
						await new TriggerHarness({ nodeType: new ServiceTrigger(), credentials: triggerCredentials, publicUrl: 'https://n8n.buyer.example' }).activate();
					}
					expect(mine()).toHaveLength(1);
					// The Events list: every event type of the catalogue, however many pages it comes in.
					const events = await new TriggerHarness({ nodeType: new ServiceTrigger(), credentials: triggerCredentials, publicUrl: 'https://n8n.buyer.example' }).loadOptions('getEvents');
					expect(events.map((event) => event.value)).toEqual(expect.arrayContaining(eventCatalogue.map((event) => event.event_type)));
					const forgetful = new TriggerHarness({ nodeType: new ServiceTrigger(), credentials: triggerCredentials, publicUrl: 'https://n8n.buyer.example' });
					await forgetful.activate();
					expect(mine()).toHaveLength(1);
					await forgetful.deactivate();
					expect(mine()).toEqual([]);
				} finally {
					await sandbox.close();
				}
			}),
			runs(30),
		);
	}, 300_000);

	test('the trigger accepts every genuine delivery and refuses tampered and stale ones, in every signature dialect', async () => {
		const tls = await receiverTls();
		let harness: TriggerHarness | undefined;
		const receiver = await startTriggerReceiver(tls, () => harness!);
		try {
			await fc.assert(
				fc.asyncProperty(dialect, async (drawn) => {
					// Sixty times faster retries: a refused delivery's next attempt comes within a second or two.
					const sandbox = await startSandbox({ dialect: drawn, trustedCas: [tls.ca], timeScale: 60 });
					try {
						trustCa(sandbox.ca);
						recentKeys.forgetAll();
						// Request Names and Import Upload as the drawn Service reads them (the property above covers finding them).
						const credentials = { serviceApi: { ...serviceApi(sandbox), advancedSettings: true, ...requestSettings(drawn) } };
						harness = new TriggerHarness({ nodeType: new ServiceTrigger(), credentials, publicUrl: receiver.origin });
						await harness.activate();
						const firstAnswer = async (alertId: string) => {
							const answered = (d: Delivery) => d.alertId === alertId && d.attempts[0]?.status !== undefined;
							return (await sandbox.control.waitForDeliveries((list) => list.some(answered))).find(answered)?.attempts[0]?.status;
						};
						const started = async (alertId: string) => {
							await receiver.drained();
							return receiver.executions.filter((e) => String(e.items[0]?.json.alert_id) === alertId).length;
						};
						const genuine = sandbox.control.emit('ledger_high', { organisation: 'KE-1001' });
						const tampered = sandbox.control.sendTampered('ledger_high', { organisation: 'KE-1002' }, { mode: 'body' });
						const forged = sandbox.control.sendTampered('ledger_high', { organisation: 'KE-1003' }, { mode: 'signature' });
						const stale = sandbox.control.sendStale('ledger_high', { organisation: 'KE-1004' }, { ageSeconds: 600 });
						const answers = {
							genuine: await firstAnswer(genuine.alertId),
							tampered: await firstAnswer(tampered.alertId),
							forged: await firstAnswer(forged.alertId),
							stale: await firstAnswer(stale.alertId),
						};
						expect(answers).toEqual({ genuine: 200, tampered: 401, forged: 401, stale: 401 });
						expect([await started(genuine.alertId), await started(tampered.alertId), await started(forged.alertId), await started(stale.alertId)]).toEqual([1, 0, 0, 0]);
						// The body as sent, every field in its JSON type; ke beside it, or under _reader when the Service sent a ke.
						const body = JSON.parse(genuine.body) as Record<string, unknown>;
						const item = receiver.executions.find((e) => String(e.items[0]?.json.alert_id) === genuine.alertId)!.items[0].json;
						expect(item).toEqual('ke' in body ? { ...body, _reader: { ke: 'KE-1001' } } : { ...body, ke: 'KE-1001' });
						// A redelivery of the same alert_id, whatever its type, starts nothing more.
						sandbox.control.redeliver(genuine.alertId);
						await sandbox.control.waitForDeliveries((list) => list.filter((d) => d.alertId === genuine.alertId).every((d) => d.attempts[0]?.status !== undefined) && list.filter((d) => d.alertId === genuine.alertId).length === 2);
						expect(await started(genuine.alertId)).toBe(1);
						await harness.deactivate();
					} finally {
						await sandbox.close();
					}
				}),
				runs(20),
			);
		} finally {
			await receiver.close();
		}
	}, 300_000);
});

describe('the Service Changes Trigger on generated Service dialects', () => {
	/** Activation (the baseline poll); when it fails, the error must name a setting, and with it set it must succeed. */
	async function activated(sandbox: Sandbox): Promise<PollHarness> {
		const credentials = serviceCredentials(sandbox, { pageSize: 3 });
		const harness = new PollHarness({ nodeType: new ServiceChangesTrigger(), credentials });
		try {
			await harness.activate();
			return harness;
		} catch (error) {
			const message = `${(error as Error).message} ${(error as { description?: string }).description ?? ''}`;
			Object.assign(credentials.serviceApi, { advancedSettings: true, ...settingNamed(message, sandbox.dialect.csv) });
			const set = new PollHarness({ nodeType: new ServiceChangesTrigger(), credentials });
			await set.activate();
			return set;
		}
	}

	test('a poll emits exactly the portfolio rows changed and removed at the Service, in every dialect', async () => {
		await fc.assert(
			fc.asyncProperty(dialect, async (drawn) => {
				const sandbox = await startSandbox({ dialect: drawn });
				try {
					trustCa(sandbox.ca);
					const harness = await activated(sandbox);
					const before = portfolioCsvRows(sandbox);
					sandbox.control.endShare('KE-1002');
					const was = before.find((row) => row.ke === 'KE-1008')!;
					sandbox.control.changeShare('KE-1008', { tier: `${was.tier}-next` });
					const now = portfolioCsvRows(sandbox);
					const { items, error } = await harness.poll();
					expect(error).toBeUndefined();
					expect(items?.map((item) => item.json)).toEqual([
						{ change: 'changed', export: 'portfolio', key: 'KE-1008', row: now.find((row) => row.ke === 'KE-1008'), previous: { tier: was.tier } },
						{ change: 'removed', export: 'portfolio', key: 'KE-1002', row: before.find((row) => row.ke === 'KE-1002') },
					]);
				} finally {
					await sandbox.close();
				}
			}),
			runs(15),
		);
	}, 300_000);
});
