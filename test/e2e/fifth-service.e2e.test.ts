import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seed } from '../trial/fifthData';
import { startFifthService, type FifthService } from '../trial/fifthService';
import { executionItems } from './examples/executions';
import { activationRefusal, csvFileWorkflow, oauth2Credential, manualWorkflow, publicationFailure, readerNode, storedEndpointUrls, triggerWorkflow } from './fifth-workflows';
import { n8nTls, nodeItems, packPackage, startN8n, type N8n } from './n8n';
import { repoRoot } from './n8n-install';
import { GiveUp, waitFor } from './wait-for';

/**
 * Issue 44 in a real n8n: the package from its tarball against the fifth Service (test/trial/FIFTH-CHOICES.md),
 * as a new user meets it: Service OAuth2 API credentials imported into n8n, workflows run by n8n, the
 * Service Trigger registered and delivered to over HTTPS. Expectations are the in-process trial's
 * (test/trial/fifthNewUser.test.ts), checked on what n8n itself ran.
 */
const CURSOR_HEADER = { cursorPlacement: 'header', cursorHeaderName: 'Service-Cursor' };
const NAMES = { requestNames: { name: [
	{ concept: 'invitation.company_name', serviceName: 'name' },
	{ concept: 'invitation.registration_number', serviceName: 'registration_no' },
	{ concept: 'invitation.work_email', serviceName: 'email' },
] } };
// What activation on the bare admin credential tells the user to set (test 3).
const WEBHOOK_NAMES = { requestNames: { name: [{ concept: 'webhook.url', serviceName: 'endpoint_url' }] } };
// At most 16 characters, as n8n makes them: n8n 1.x saves no static data for a longer workflow id (isWorkflowIdValid), so a trigger's secret would not be kept.
const ids = {
	reads: 'fifthDecisions01', exports: 'fifthCsvExports1', invite: 'fifthInviteAfter', inviteBadMail: 'fifthInviteBadMl',
	importRows: 'fifthImport207rw', trigger: 'fifthLedgerAlert', bareTrigger: 'fifthLedgerBare1',
};
// An import of two rows in the Service's own header: one it takes, one it refuses field by field (test 5).
const IMPORT_CSV = 'name,registration_no,email,ref\r\nMulti One Ltd,HRB 11,one@multi.example,R1\r\nMulti Two Ltd,,not-an-email,R2\r\n';
const DECISIONS_PATH = '/v1/reader/exports/decisions';
const TRIGGER = 'Service Trigger: ledger alerts';
const WEBHOOK_ID = 'f1f7f1f7-5e5e-4a4a-9b9b-0c0c0c0c0c44';
const BARE_WEBHOOK_ID = 'f1f7f1f7-5e5e-4a4a-9b9b-0c0c0c0c0c45';

const once = (values: unknown[]) => new Set(values.map(String)).size === values.length;

describe('the fifth Service in a real n8n (OAuth2 client credentials, Service-Cursor header, 20-digit numbers, 207, RFC 9457, rate limits)', () => {
	let work: string | undefined;
	let service: FifthService | undefined;
	let n8n: N8n | undefined;
	const credentials = { reader: 'fifthOAuthReader1', names: 'fifthOAuthNames01', admin: 'fifthOAuthAdmin01', adminBare: 'fifthOAuthAdmin00' };
	const running = () => {
		if (!n8n || !service) throw new Error('n8n or the fifth Service did not start');
		return { n8n, service };
	};
	const credential = (id: string) => ({ id, name: id });

	beforeAll(async () => {
		work = await mkdtemp(join(tmpdir(), 'service-fifth-'));
		const userFolder = join(work, 'n8n');
		// The Service delivers to n8n's https webhook URL: it trusts n8n's CA from its start (as the example stack's sandbox does).
		const n8nCa = (await n8nTls(userFolder)).ca;
		service = await startFifthService({ deliveryCa: n8nCa, retryDelaysMs: [] });
		n8n = await startN8n({ userFolder, trustedCas: [service.ca], communityPackages: [await packPackage(repoRoot, work)] });
		// As a user sets them: the reader client with the settings the in-process trial was told, and the
		// admin client (webhook create needs it), bare and with the Request Names row its activation names.
		const reader = { ...service.reader, scope: 'reader.read reader.write' };
		const admin = { ...service.admin, scope: 'reader.read reader.write reader.admin' };
		await n8n.importCredentials([
			oauth2Credential(credentials.reader, 'Fifth Service reader', service, reader, CURSOR_HEADER),
			oauth2Credential(credentials.names, 'Fifth Service reader, names', service, reader, NAMES),
			oauth2Credential(credentials.adminBare, 'Fifth Service admin', service, admin),
			oauth2Credential(credentials.admin, 'Fifth Service admin, names', service, admin, WEBHOOK_NAMES),
		]);
		await n8n.importWorkflows([
			manualWorkflow(ids.reads, 'Fifth Service: decisions', [
				readerNode('Decisions', 0, credential(credentials.reader), { resource: 'decision', operation: 'getAll', returnAll: true }),
			]),
			manualWorkflow(ids.exports, 'Fifth Service: CSV exports', [
				readerNode('Portfolio', 0, credential(credentials.reader), { resource: 'portfolio', operation: 'getAll', returnAll: true }),
				readerNode('Expiries', 200, credential(credentials.reader), { resource: 'expiry', operation: 'getAll', returnAll: true }),
				readerNode('Invitations', 400, credential(credentials.reader), { resource: 'invitation', operation: 'getAll', returnAll: true }),
			]),
			manualWorkflow(ids.invite, 'Fifth Service: invite', [
				readerNode('Invite', 0, credential(credentials.names), {
					resource: 'invitation', operation: 'create', companyName: 'Lost Answer Ltd', registrationNumber: 'HRB 9', workEmail: 'a@newco.example',
				}),
			]),
			manualWorkflow(ids.inviteBadMail, 'Fifth Service: invite, wrong address', [
				readerNode('Invite', 0, credential(credentials.names), {
					resource: 'invitation', operation: 'create', companyName: 'Wrong Mail Ltd', registrationNumber: 'HRB 9', workEmail: 'not-an-email',
				}),
			]),
			csvFileWorkflow(ids.importRows, 'Fifth Service: import a CSV file', IMPORT_CSV, 'invitations.csv',
				readerNode('Import', 0, credential(credentials.reader), { resource: 'invitation', operation: 'import', source: 'binaryFile' })),
			triggerWorkflow(ids.bareTrigger, 'Fifth Service: ledger alerts (bare credential)', TRIGGER, BARE_WEBHOOK_ID, credential(credentials.adminBare)),
			triggerWorkflow(ids.trigger, 'Fifth Service: ledger alerts', TRIGGER, WEBHOOK_ID, credential(credentials.admin)),
		]);
	}, 300_000);

	afterAll(async () => {
		await n8n?.stop();
		await service?.close();
		if (work) await rm(work, { recursive: true, force: true });
	}, 60_000);

	test('1. Decision > Get Many (Return All) on the OAuth2 credential, Send Cursor As Header: all 40 once, 20 digits exact', async () => {
		const { n8n } = running();
		const run = await n8n.executeWorkflow(ids.reads);
		expect(run.data.resultData.error).toBeUndefined();
		const items = nodeItems(run, 'Decisions');
		expect(items).toHaveLength(40);
		expect(once(items.map((d) => d.id))).toBe(true);
		const twenty = items.find((d) => String(d.registry_number).length === 20);
		expect(twenty?.registry_number).toBe('18446744073709550084');
		expect(items[0]).toEqual(expect.objectContaining({ id: '18446744073709546084', registry_number: '9007199254740993', ke: 'KE700100' }));
		// Every decision's id and registry number are the digits the Service holds (its seed), in its order.
		const held = seed(new Date()).decisions.map((d) => ({ id: String(d.id), ke: d.ke, registry_number: String(d.registryNumber) }));
		expect(items.map((d) => ({ id: d.id, ke: d.ke, registry_number: d.registry_number }))).toEqual(held);
	}, 180_000);

	test('2. Portfolio (windows-1252), Expiries (UTF-16LE + BOM), Invitations (sep=;) read to the right rows', async () => {
		const { n8n } = running();
		const run = await n8n.executeWorkflow(ids.exports);
		expect(run.data.resultData.error).toBeUndefined();

		const portfolio = nodeItems(run, 'Portfolio');
		expect(portfolio).toHaveLength(30);
		expect(once(portfolio.map((r) => r.ke))).toBe(true);
		expect(portfolio.map((r) => r.company_name)).toEqual(expect.arrayContaining(['Müller Stahlbau GmbH', 'Œuvre Façades S.A.', 'Škoda Díly s.r.o.']));
		expect(portfolio[1]).toEqual({ ke: 'KE700101', company_name: 'Société Générale d’Équipement', registry_number: '18446744073709550084', tier: 'silver', status: 'active', decision_due: 'yes' });

		const expiries = nodeItems(run, 'Expiries');
		expect(expiries).toHaveLength(18);
		expect(Object.keys(expiries[0])).toEqual(['kind', 'ke', 'subject', 'ends_on', 'window_days']);
		expect(expiries[0]).toEqual(expect.objectContaining({ ke: 'KE700100', subject: expect.stringContaining('Müller Stahlbau GmbH') }));
		expect(new Set(expiries.map((r) => r.window_days))).toEqual(new Set(['30', '60', '90']));

		const invitations = nodeItems(run, 'Invitations');
		expect(invitations.length).toBeGreaterThanOrEqual(8);
		expect(invitations[0]).toEqual({ id: 'inv_8800', name: 'Invited Co 1; Ltd', registration_no: 'HRB 10400', email: 'buyer0@invited0.example', ref: 'REF-0', status: 'opened', sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) });
		expect(once(invitations.map((r) => r.id))).toBe(true);
	}, 180_000);

	test('3. Service Trigger on the OAuth2 credential: activation names the Request Names row; with it set, the https webhook URL is registered and two ledger_high deliveries (the second gzip) start two executions, 20 digits exact', async () => {
		const { n8n, service } = running();
		// On the bare admin credential, activation fails where the editor shows it (n8n 1.x: the activation's answer), naming the row to set.
		const refused = await activationRefusal(n8n, ids.bareTrigger);
		expect(refused).toBe(
			'The Service answered 422 naming `endpoint_url`, which the node did not send. Set Request Names > Webhook Endpoint > URL to `endpoint_url` (sent as `url`). (Request Names under Advanced Settings in the Service OAuth2 API credential.)',
		);
		await n8n.api.deactivateWorkflow(ids.bareTrigger);

		// With that row set (the admin credential WEBHOOK_NAMES): registered, then each delivery verified and passed on.
		const url = `${n8n.url}/webhook/${WEBHOOK_ID}/webhook`;
		await n8n.api.activateWorkflow(ids.trigger);
		// Activation answers before the trigger's create() has run: ready once n8n keeps the endpoint registered for this URL.
		await waitFor(async () => {
			if ((await storedEndpointUrls(n8n, ids.trigger)).includes(url)) return true;
			const failed = await publicationFailure(n8n, ids.trigger);
			if (failed) throw new GiveUp(`activation failed: ${failed}`);
			return undefined;
		}, { what: `the Service Trigger to register ${url}`, timeoutMs: 60_000 });

		const first = await service.deliver('ledger_high', 'KE700101', 'high');
		const second = await service.deliver('ledger_high', 'KE700101', 'high');
		// One endpoint at the Service (this trigger's), each delivery accepted at its first attempt, the second gzip-encoded.
		expect([first, second]).toEqual([
			[{ delivered: true, attempts: [{ status: 200, gzip: false }] }],
			[{ delivered: true, attempts: [{ status: 200, gzip: true }] }],
		]);

		const executions = await n8n.api.waitForExecutions(ids.trigger, 2, 60_000);
		expect(executions).toHaveLength(2);
		const alerts = executions.map((execution) => executionItems(execution, TRIGGER)).reverse();
		expect(alerts.map((items) => items.length)).toEqual([1, 1]);
		// Each execution holds the alert as the Service sent it (20-digit numbers as their digits), with the node's ke and alert_id_bytes beside it.
		for (const [alert] of alerts) {
			expect(alert).toEqual({
				event_type: 'ledger_high',
				alert_id: expect.stringMatching(/^\d{20}$/),
				ids: { organisation: 'KE700101', registry_number: '18446744073709550084' },
				severity: 'high',
				occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
				ke: 'KE700101',
				alert_id_bytes: Buffer.from(String(alert.alert_id)).toString('base64'),
			});
		}
		// The Service numbers its alerts one apart: the first delivery's execution, then the second's (gzip), each once.
		const [firstId, secondId] = alerts.map(([alert]) => BigInt(String(alert.alert_id)));
		expect(firstId - secondId).toBe(1n);
	}, 240_000);

	test('4. Invitation > Create answered by a 502 page after the Service wrote it: the execution fails as outcome unknown, naming the Idempotency-Key; one invitation written', async () => {
		const { n8n, service } = running();
		const before = service.writes.length;
		service.injectGatewayFault({ status: 502, afterHandling: true, method: 'POST', pathPrefix: '/v1/reader/invitations' });
		const run = await n8n.executeWorkflow(ids.invite);
		expect(run.status).toBe('error');
		const error = run.data.resultData.error as { message: string; description?: string } | undefined;
		expect(error?.message).toBe('The outcome of this write is unknown: the Service answered 502');
		const words = `${error?.message} ${error?.description ?? ''}`;
		expect(words).toContain('so the node did not send it again');
		expect(words).toContain('Idempotency-Key');
		expect(service.writes.slice(before)).toEqual([{ route: 'invitations', body: expect.objectContaining({ name: 'Lost Answer Ltd' }) }]);
		// Nothing of the client's secret in what n8n kept of the run.
		expect(JSON.stringify(run)).not.toContain(service.reader.clientSecret);
	}, 180_000);

	test('5. Invitation > Import of a file (Set, Convert to File) answered 207 Multi-Status: one item per row, its own status and words', async () => {
		const { n8n, service } = running();
		const before = service.writes.length;
		const run = await n8n.executeWorkflow(ids.importRows);
		expect(run.data.resultData.error).toBeUndefined();
		const rows = nodeItems(run, 'Import');
		// Neither a whole success nor a whole failure: the row taken and the row refused, each with the Service's words.
		expect(rows).toEqual([
			expect.objectContaining({ ok: true, check: '', invitation_id: expect.stringMatching(/^inv_/), status: 201, row: 2 }),
			expect.objectContaining({ ok: false, check: 'registration_no: is required; email: is not a work email address', status: 422, row: 3 }),
		]);
		expect(rows.map((row) => (row._reader as { row?: number } | undefined)?.row)).toEqual([1, 2]);
		expect(service.writes.slice(before)).toEqual([{ route: 'imports', body: 2 }]);
	}, 180_000);

	test('6. Invitation > Create refused with an RFC 9457 problem (errors extension): the field and its words; nothing written', async () => {
		const { n8n, service } = running();
		const before = service.writes.length;
		const run = await n8n.executeWorkflow(ids.inviteBadMail);
		expect(run.status).toBe('error');
		const error = run.data.resultData.error as { message: string; description?: string } | undefined;
		expect(error?.message).toBe('The Service refused the request (422): The invitation was not sent.: is not a work email address (pointer "/email")');
		expect(error?.description).toBe(
			'The Service answered 422 naming `email` (Invitation > Work Email), which the node sent: if the Service reads it under another name, map it in Request Names under Advanced Settings in the Service OAuth2 API credential; otherwise check the value sent. Check the parameters of this node against what the Service expects. (POST /v1/reader/invitations)',
		);
		expect(service.writes.length).toBe(before);
	}, 180_000);

	test('7. A 503 page with Retry-After as an HTTP-date, then 429s under RateLimit-Policy / RateLimit: each waited for, all 40 decisions once', async () => {
		const { n8n, service } = running();
		// Two requests per 3 s for each client, and the gateway's 503 page before the first page.
		service.limitRate(2, 3);
		service.injectGatewayFault({ status: 503, retryAfterSeconds: 1, method: 'GET', pathPrefix: DECISIONS_PATH });
		const from = service.answers.length;
		try {
			const run = await n8n.executeWorkflow(ids.reads);
			expect(run.data.resultData.error).toBeUndefined();
			const items = nodeItems(run, 'Decisions');
			expect(items).toHaveLength(40);
			expect(once(items.map((d) => d.id))).toBe(true);
			const statuses = service.answers.slice(from).filter((answer) => answer.path === DECISIONS_PATH).map((answer) => answer.status);
			// The 503 first, then the four pages, with at least one 429 among them (each asked again after its wait).
			expect(statuses.filter((status) => status !== 429)).toEqual([503, 200, 200, 200, 200]);
			expect(statuses).toContain(429);
		} finally {
			service.limitRate(1000, 60);
		}
	}, 180_000);
});
