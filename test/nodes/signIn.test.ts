import { READER, readerWorkflow, runWorkflow, trustCa } from '../harness';
import { TriggerHarness } from '../harness/triggerHarness';
import { ServiceTrigger } from '../../nodes/ServiceTrigger/ServiceTrigger.node';
import { startSandbox, type Sandbox } from '../sandbox';
import { dialectFromEnvironment, dialectNamed, type SandboxSignIn } from '../sandbox/dialect';
import { serviceApi, signInSettings } from '../sandbox/credential';
import { binaryBytes } from './reader/helpers';
import { getMany, portfolioCsvRows, serviceCredentials } from './reader/exportHelpers';

/**
 * A Service (or its gateway) that reads the token from another header or after another scheme: with
 * Send Token As set, every kind of operation works (an export, a record, a trigger's activation); without
 * it, the 401 names the setting and the value; the token never appears in an error or the Service's log.
 */
const SIGN_INS: Array<[string, SandboxSignIn, string]> = [
	['X-Api-Key, named in the challenge', { form: 'header', header: 'X-Api-Key', challenge: 'ApiKey header="X-Api-Key"', words: 'Send the API key.' }, 'Token Header Name to X-Api-Key'],
	['X-Service-Key, named in the words only', { form: 'header', header: 'X-Service-Key', challenge: 'Key realm="service"', words: 'Missing X-Service-Key header.' }, 'Token Header Name to X-Service-Key'],
	['Authorization: Token', { form: 'scheme', scheme: 'Token', challenge: 'Token realm="service"', words: 'Unauthorized.' }, 'Token Scheme to Token'],
];

describe.each(SIGN_INS)('a Service that reads the token as %s', (_label, signIn, named) => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ dialect: { ...dialectNamed(dialectFromEnvironment()), signIn } });
		trustCa(sandbox.ca);
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => sandbox.control.clearRequests());

	const set = () => serviceApi(sandbox);
	const unset = () => {
		const { tokenPlacement: _p, authHeaderName: _h, authScheme: _s, ...rest } = serviceApi(sandbox);
		return rest;
	};

	test('without Send Token As, the 401 names the setting and the exact value; the token is in no error', async () => {
		const run = await runWorkflow(readerWorkflow({ resource: 'record', operation: 'get', ke: 'KE-1009' }), { credentials: { serviceApi: unset() } });
		const error = run.error(READER)!;
		expect(error.message).toContain('(401): set Send Token As to Another');
		expect(error.message).toContain(named);
		expect(error.description).toContain('turn on Advanced Settings');
		expect(JSON.stringify(error)).not.toContain(sandbox.tokens.reader);
		expect(sandbox.control.requests().map((r) => r.status)).toEqual([401]);
	});

	test('with it set: a record, byte for byte; the token sent only as asked', async () => {
		const run = await runWorkflow(readerWorkflow({ resource: 'record', operation: 'get', ke: 'KE-1009' }), { credentials: { serviceApi: set() } });
		expect(run.error(READER)).toBeUndefined();
		const [item] = run.output(READER);
		expect((await binaryBytes(item.binary!.data)).equals(sandbox.control.record('KE-1009').bytes)).toBe(true);
		const [received] = sandbox.control.requests();
		// The sandbox logs no Authorization nor the token header: what remains carries no token.
		expect(JSON.stringify(received.headers)).not.toContain(sandbox.tokens.reader);
		expect(set()).toMatchObject(signInSettings(sandbox.dialect));
	});

	test('with it set: every page of an export', async () => {
		const credentials = serviceCredentials(sandbox, { pageSize: 3 });
		const run = await runWorkflow(readerWorkflow(getMany('portfolio', { returnAll: true })), { credentials });
		expect(run.error(READER)).toBeUndefined();
		expect(run.output(READER).map((item) => item.json)).toEqual(portfolioCsvRows(sandbox));
		expect(new Set(sandbox.control.requests().map((r) => r.status))).toEqual(new Set([200]));
	});

	test('with it set: the trigger registers its endpoint on activation and deletes it on deactivation; unset, activation fails naming the setting', async () => {
		const publicUrl = 'https://n8n.buyer.example';
		const refused = new TriggerHarness({ nodeType: new ServiceTrigger(), credentials: { serviceApi: unset() }, publicUrl });
		await expect(refused.activate()).rejects.toThrow(/Send Token As/);
		const harness = new TriggerHarness({ nodeType: new ServiceTrigger(), credentials: { serviceApi: set() }, publicUrl });
		await harness.activate();
		const mine = () => sandbox.control.webhookEndpoints().filter((e) => e.url === harness.webhookUrl());
		expect(mine()).toHaveLength(1);
		await harness.deactivate();
		expect(mine()).toEqual([]);
	});
});

describe('a company whose share ended, answered 410 Gone', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ dialect: { ...dialectNamed(dialectFromEnvironment()), notSharedStatus: 410 } });
		trustCa(sandbox.ca);
	});
	afterAll(async () => await sandbox.close());

	test('With When Company Does Not Share: Output Item, Record > Get, Audit Pack > Get and Policy Run > Create give { ke, shared: false }', async () => {
		const credentials = { serviceApi: serviceApi(sandbox) };
		const options = { whenNotShared: 'outputItem' };
		const record = await runWorkflow(readerWorkflow({ resource: 'record', operation: 'get', ke: 'KE-1012', options }), { credentials });
		expect(record.output(READER).map((item) => item.json)).toEqual([{ ke: 'KE-1012', shared: false }]);
		const pack = await runWorkflow(readerWorkflow({ resource: 'auditPack', operation: 'get', ke: 'KE-1012', packId: 'AP-1012-1', options }), { credentials });
		expect(pack.output(READER).map((item) => item.json)).toEqual([{ ke: 'KE-1012', pack_id: 'AP-1012-1', shared: false }]);
		const run = await runWorkflow(readerWorkflow({ resource: 'policyRun', operation: 'create', ke: 'KE-1012', options }), { credentials });
		expect(run.output(READER).map((item) => item.json)).toEqual([{ ke: 'KE-1012', shared: false }]);
		expect(sandbox.control.requests().filter((r) => !r.path.startsWith('/v1/reader/exports/records/') || r.status !== 410).every((r) => r.status === 410)).toBe(true);
	});
});
