import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';
import { request } from 'node:https';

import { READER, readerWorkflow, runWorkflow, trustCa } from '../harness';
import { certificates } from '../tls/certificates';
import { listenHttps } from '../tls/httpsServer';
import { getMany } from '../nodes/reader/exportHelpers';
import { fileItem } from '../nodes/reader/helpers';
import { startFifthService, type FifthService } from './fifthService';

/**
 * A new user's trial of the real nodes (n8n-core's engine, test/harness) against the fifth Service
 * (test/trial/FIFTH-CHOICES.md: OAuth2 client credentials, cursor in a Service-Cursor header, 20-digit
 * numbers, windows-1252 / UTF-16LE / sep=; CSV, RFC 9457 problems, field names of its own, an HTML proxy).
 * The user picks Service OAuth2 API, fills in the token URL and the reader client, and reads what the nodes say.
 */
let service: FifthService;
beforeAll(async () => {
	service = await startFifthService({ statementDelayMs: 300 });
	trustCa(service.ca);
});
afterAll(async () => await service?.close());

const CURSOR_HEADER = { cursorPlacement: 'header', cursorHeaderName: 'Service-Cursor' };
const NAMES = { requestNames: { name: [
	{ concept: 'invitation.company_name', serviceName: 'name' },
	{ concept: 'invitation.registration_number', serviceName: 'registration_no' },
	{ concept: 'invitation.work_email', serviceName: 'email' },
] } };

/** The Service OAuth2 API credential as a new user fills it in: token URL, reader client, Advanced Settings as told. */
const credential = (advanced: IDataObject = {}, target = service): ICredentialDataDecryptedObject => ({
	baseUrl: target.baseUrl,
	grantType: 'clientCredentials',
	accessTokenUrl: target.tokenUrl,
	clientId: target.reader.clientId,
	clientSecret: target.reader.clientSecret,
	authentication: 'header',
	scope: '',
	...(Object.keys(advanced).length ? { advancedSettings: true, ...advanced } : {}),
});

async function run(cred: ICredentialDataDecryptedObject, parameters: INodeParameters, stored: Record<string, ICredentialDataDecryptedObject> = { serviceOAuth2Api: cred }) {
	const result = await runWorkflow(
		readerWorkflow({ authentication: 'oAuth2', ...parameters }, { credentials: { serviceOAuth2Api: { id: 'cred-oauth2', name: 'Service OAuth2 API' } } }),
		{ credentials: stored },
	);
	const error = result.error(READER);
	return { error, words: error ? `${error.message} ${error.description ?? ''}` : '', items: error ? [] : result.output(READER).map((i) => i.json) };
}

/** A direct call to the Service, as curl would make it (to see what it holds, not through the nodes). */
function call(method: string, path: string, headers: Record<string, string>, body?: string, target = service): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
	return new Promise((resolve, reject) => {
		const req = request(new URL(path, target.baseUrl), { method, headers, ca: target.ca }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
		});
		req.on('error', reject);
		req.end(body);
	});
}
async function token(target = service): Promise<string> {
	const basic = Buffer.from(`${target.reader.clientId}:${target.reader.clientSecret}`).toString('base64');
	const reply = await call('POST', '/oauth/token', { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` }, 'grant_type=client_credentials', target);
	return JSON.parse(reply.text).access_token as string;
}

/** A pass-through HTTPS hop in front of the Service that records each request's headers (the Service keeps none). */
async function recordingHop(seen: Array<Record<string, unknown>>, target = service) {
	const { leaves } = await certificates('Fifth Service test CA', { service: 'fifth-service' });
	return await listenHttps(leaves.service, (req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const record: Record<string, unknown> = { method: req.method, url: req.url, ...req.headers };
			seen.push(record);
			const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host')) as Record<string, string>;
			call(req.method ?? 'GET', req.url ?? '/', headers, Buffer.concat(chunks).toString('utf8'), target).then(
				(reply) => {
					record.status = reply.status;
					res.writeHead(reply.status, reply.headers as Record<string, string>).end(reply.text);
				},
				() => res.writeHead(599).end(),
			);
		});
	});
}

const once = (values: unknown[]) => new Set(values.map(String)).size === values.length;

test('1. Decisions > Get Many: default settings stop naming Send Cursor As; Send Cursor As = Header reads all 40 once, 20 digits exact', async () => {
	const plain = await run(credential(), getMany('decision', { returnAll: true }));
	expect(plain.error?.message).toBe('Page 2 of the decisions export repeated rows already read, so the Service did not read the cursor: check Send Cursor As');
	expect(plain.words).toContain('set Send Cursor As to Header with that Cursor Header Name');
	// The settings are named in the credential the user is on.
	expect(plain.words).toContain('under Advanced Settings in the Service OAuth2 API credential');
	expect(plain.words).not.toContain('Service API credential');
	expect(plain.items).toEqual([]); // nothing passed on, so nothing duplicated

	const told = await run(credential(CURSOR_HEADER), getMany('decision', { returnAll: true }));
	expect(told.error).toBeUndefined();
	expect(told.items).toHaveLength(40);
	expect(once(told.items.map((d) => d.id))).toBe(true);
	const twenty = told.items.find((d) => String(d.registry_number).length === 20);
	expect(twenty?.registry_number).toBe('18446744073709550084');
	expect(told.items[0]).toEqual(expect.objectContaining({ id: '18446744073709546084', registry_number: '9007199254740993', ke: 'KE700100' }));
});

test('2. Portfolio (windows-1252), Expiries (UTF-16LE + BOM), Invitations (sep=;) read to the right rows', async () => {
	const portfolio = await run(credential(CURSOR_HEADER), getMany('portfolio', { returnAll: true }));
	expect(portfolio.items).toHaveLength(30);
	expect(once(portfolio.items.map((r) => r.ke))).toBe(true);
	const names = portfolio.items.map((r) => r.company_name);
	expect(names).toEqual(expect.arrayContaining(['Müller Stahlbau GmbH', 'Œuvre Façades S.A.', 'Škoda Díly s.r.o.']));
	expect(portfolio.items[1]).toEqual({ ke: 'KE700101', company_name: 'Société Générale d’Équipement', registry_number: '18446744073709550084', tier: 'silver', status: 'active', decision_due: 'yes' });

	// The Service offers no window filter: asking for 30 days is refused loudly, naming Request Names' Window Parameter.
	const windowed = await run(credential(CURSOR_HEADER), getMany('expiry', { returnAll: true, window: '30' }));
	expect(windowed.error?.message).toBe('Row 4 of the expiries export lies outside the 30-day window asked for (its window_days is 60)');
	expect(windowed.words).toContain('Map Expiries > Window Parameter to the Service\'s name for it in Request Names');
	const expiries = await run(credential(CURSOR_HEADER), getMany('expiry', { returnAll: true }));
	expect(expiries.items).toHaveLength(18);
	expect(Object.keys(expiries.items[0])).toEqual(['kind', 'ke', 'subject', 'ends_on', 'window_days']);
	expect(expiries.items[0]).toEqual(expect.objectContaining({ ke: 'KE700100', subject: expect.stringContaining('Müller Stahlbau GmbH') }));
	expect(new Set(expiries.items.map((r) => r.window_days))).toEqual(new Set(['30', '60', '90']));

	const invitations = await run(credential(CURSOR_HEADER), getMany('invitation', { returnAll: true }));
	expect(invitations.items.length).toBeGreaterThanOrEqual(8);
	expect(invitations.items[0]).toEqual({ id: 'inv_8800', name: 'Invited Co 1; Ltd', registration_no: 'HRB 10400', email: 'buyer0@invited0.example', ref: 'REF-0', status: 'opened', sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) });
	expect(once(invitations.items.map((r) => r.id))).toBe(true);
});

test('3. Service > Check Settings proposes Send Cursor As Header (Service-Cursor)', async () => {
	const { items } = await run(credential(), { resource: 'service', operation: 'checkSettings' });
	const changes = items.filter((f) => f.verdict === 'change').map((f) => ({ topic: f.topic, settings: f.settings }));
	// Recorded: the only change proposed. Page Size Parameter `limit` is offered as info; JSON Format and Window Parameter unknown.
	expect(changes).toEqual([{ topic: 'Cursor Parameter', settings: [
		{ field: 'cursorPlacement', label: 'Send Cursor As', value: 'header' },
		{ field: 'cursorHeaderName', label: 'Cursor Header Name', value: 'Service-Cursor' },
	] }]);
	const window = items.find((f) => f.topic === 'Window Parameter');
	expect(window?.verdict).toBe('unknown');
	expect(window?.evidence).toContain('answered 400 ("limit must be 1 to 50.: must be 1 to 50 (pointer \"#/query/limit\")")');
});

test('4. The token expires mid-export: every row once', async () => {
	let clock = Date.parse('2026-03-10T12:00:00Z');
	const short = await startFifthService({ now: () => new Date((clock += 200)), tokenLifetimeSeconds: 3 });
	try {
		const first = await token(short);
		const seen: Array<Record<string, unknown>> = [];
		const hop = await recordingHop(seen, short);
		const cred = { ...credential({ ...CURSOR_HEADER, pageSizeParameter: 'limit', pageSize: 5 }, short), baseUrl: hop.origin };
		const stored = { serviceOAuth2Api: { ...cred, oauthTokenData: { access_token: first, token_type: 'Bearer', expires_in: 3 } } };
		const { error, items } = await run(cred, getMany('decision', { returnAll: true }), stored).finally(async () => await hop.close());
		expect(error).toBeUndefined();
		expect(items).toHaveLength(40);
		expect(once(items.map((d) => d.id))).toBe(true);
		// The stored token was refused mid-export (401), n8n fetched a new one, sent that page again, and stored the token.
		const pages = seen.filter((r) => String(r.url).startsWith('/v1/reader/exports/decisions'));
		expect(pages.filter((r) => r.status === 200)).toHaveLength(8);
		expect(pages.findIndex((r) => r.status === 401)).toBeGreaterThan(0);
		expect(new Set(pages.map((r) => r.authorization)).size).toBeGreaterThan(1);
		expect((stored.serviceOAuth2Api.oauthTokenData as IDataObject).access_token).not.toBe(first);
	} finally {
		await short.close();
	}
});

const invite = { resource: 'invitation', operation: 'create', companyName: 'New Co Ltd', registrationNumber: 'HRB 9', workEmail: 'a@newco.example' };

test('5. Invitation > Create: default names get the 422 problem; with Request Names rows it is created', async () => {
	const before = service.writes.length;
	const plain = await run(credential(), invite);
	// What a user is told, exactly: the problem's pointers (/name, /registration_no, /email) paired with the three rows to set.
	expect(plain.error?.message).toBe(
		'The Service answered 422 naming `name`, `registration_no`, `email`, which the node did not send. Set Request Names > Invitation > Company Name to `name` (sent as `company_name`). Set Request Names > Invitation > Registration Number to `registration_no` (sent as `registration_number`). Set Request Names > Invitation > Work Email to `email` (sent as `work_email`). (Request Names under Advanced Settings in the Service OAuth2 API credential.)',
	);
	expect(service.writes.length).toBe(before);

	const seen: Array<Record<string, unknown>> = [];
	const hop = await recordingHop(seen);
	const told = await run({ ...credential(NAMES), baseUrl: hop.origin }, invite).finally(async () => await hop.close());
	expect(told.error).toBeUndefined();
	const posts = seen.filter((r) => r.method === 'POST');
	expect(posts).toHaveLength(1);
	expect(posts[0]['idempotency-key']).toMatch(/^\S{16,}$/);
	expect(told.items).toEqual([expect.objectContaining({ id: expect.stringMatching(/^inv_/), name: 'New Co Ltd', registration_no: 'HRB 9', email: 'a@newco.example', status: 'sent' })]);
	expect(service.writes.slice(before)).toEqual([{ route: 'invitations', body: expect.objectContaining({ name: 'New Co Ltd', registration_no: 'HRB 9', email: 'a@newco.example' }) }]);
});

test('6. Policy Run > Create: 202 with a Location that 404s, then Wait for Statement', async () => {
	const plain = await run(credential(), { resource: 'policyRun', operation: 'create', ke: 'KE700102', options: {} });
	expect(plain.items).toEqual([expect.objectContaining({ run_ref: expect.stringMatching(/^run_/), state: 'queued', statement_wait: 'did_not_wait', _reader: expect.objectContaining({ job: 'not_followed' }) })]);
	expect((plain.items[0]._reader as IDataObject).job_note).toContain('answered 404');

	// The answer's id is `run_ref`, and the statement names the run only inside its observations' text: no statement
	// holds the run's id as a value, so the wait reads to its bound and says so; the accepted run is passed on, created once.
	const before = service.writes.length;
	const waited = await run(credential(CURSOR_HEADER), { resource: 'policyRun', operation: 'create', ke: 'KE700103', options: { statementWait: 6 } });
	expect(waited.error).toBeUndefined();
	expect(waited.items[0]).toMatchObject({ statement_wait: 'gave_up', statement_location: '/v1/reader/exports/statements' });
	expect(service.writes.slice(before)).toEqual([{ route: 'policy-runs', body: { ke: 'KE700103' } }]);
	// Found as statement_location says: the statement is listed (after statementDelayMs), naming run_ref only in its text.
	const runRef = String(waited.items[0].run_ref);
	await new Promise((resolve) => setTimeout(resolve, 800));
	const statements = await run(credential(CURSOR_HEADER), getMany('statement', { returnAll: true }));
	expect(statements.items.filter((s) => JSON.stringify(s.observations) === JSON.stringify([`run ${runRef}`]))).toEqual([expect.objectContaining({ ke: 'KE700103' })]);
});

test('7. A 502 page after an invitation create: outcome unknown, naming the Idempotency-Key; one POST reached the Service', async () => {
	const before = service.writes.length;
	service.injectGatewayFault({ status: 502, afterHandling: true, method: 'POST', pathPrefix: '/v1/reader/invitations' });
	const lost = await run(credential(NAMES), { ...invite, companyName: 'Lost Answer Ltd' });
	expect(lost.error?.message).toBe('The outcome of this write is unknown: the Service answered 502');
	expect(lost.words).toContain('so the node did not send it again');
	expect(lost.words).toContain('Idempotency-Key');
	expect(service.writes.slice(before)).toEqual([{ route: 'invitations', body: expect.objectContaining({ name: 'Lost Answer Ltd' }) }]);
	// The key named is the one the Service stored: the same key with another body is refused as reused.
	const key = /Idempotency-Key:? "?([\w-]{8,})/.exec(lost.words)?.[1];
	expect(key).toBeDefined();
	const reuse = await call('POST', '/v1/reader/invitations', { Authorization: `Bearer ${await token()}`, 'Content-Type': 'application/json', 'Idempotency-Key': key! },
		JSON.stringify({ name: 'Other Ltd', registration_no: 'HRB 8', email: 'b@other.example' }));
	expect([reuse.status, JSON.parse(reuse.text).title]).toEqual([422, 'Idempotency Key Reused']);
	expect(service.writes.length).toBe(before + 1);
});

test('8. Invitation > Import answered 207 Multi-Status: one item per row, its own status and words', async () => {
	const before = service.writes.length;
	const csv = 'name,registration_no,email,ref\r\nMulti One Ltd,HRB 11,one@multi.example,R1\r\nMulti Two Ltd,,not-an-email,R2\r\n';
	const result = await runWorkflow(
		readerWorkflow({ authentication: 'oAuth2', resource: 'invitation', operation: 'import', source: 'binaryFile' }, { credentials: { serviceOAuth2Api: { id: 'cred-oauth2', name: 'Service OAuth2 API' } } }),
		{ credentials: { serviceOAuth2Api: credential() }, inputItems: [fileItem(Buffer.from(csv), 'invitations.csv', 'text/csv')] },
	);
	expect(result.error(READER)).toBeUndefined();
	// Rows numbered by file line (2, 3) as rows 1 and 2; the Service's own fields pass on, the node's beside them.
	expect(result.output(READER).map((item) => item.json)).toEqual([
		expect.objectContaining({ ok: true, check: '', invitation_id: expect.stringMatching(/^inv_/), status: 201, id: expect.stringMatching(/^inv_/) }),
		expect.objectContaining({ ok: false, check: 'registration_no: is required; email: is not a work email address', status: 422 }),
	]);
	expect(result.output(READER).map((item) => [item.json.row, (item.json._reader as IDataObject | undefined)?.row])).toEqual([[2, 1], [3, 2]]);
	expect(service.writes.slice(before)).toEqual([{ route: 'imports', body: 2 }]);
});

test('9. A 422 problem with an errors extension: each field and its words, nothing written', async () => {
	const before = service.writes.length;
	const refused = await run(credential(NAMES), { ...invite, companyName: 'Wrong Mail Ltd', workEmail: 'not-an-email' });
	// The field was sent under the name the Service reads: its words on the value lead; the setting follows.
	expect(refused.error?.message).toBe('The Service refused the request (422): The invitation was not sent.: is not a work email address (pointer "/email")');
	expect(refused.error?.description).toBe(
		'The Service answered 422 naming `email` (Invitation > Work Email), which the node sent: if the Service reads it under another name, map it in Request Names under Advanced Settings in the Service OAuth2 API credential; otherwise check the value sent. Check the parameters of this node against what the Service expects. (POST /v1/reader/invitations)',
	);
	expect(service.writes.length).toBe(before);
});
