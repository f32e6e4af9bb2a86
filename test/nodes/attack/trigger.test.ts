import { gzipSync } from 'node:zlib';

import { postDelivery, TestCredentialsHelper } from '../../harness';
import { portfolioReadings } from '../../../nodes/ServiceTrigger/companyDetails/companyDetails';
import { renewalAttempts } from '../../../nodes/ServiceTrigger/lifecycle/renewal';
import { heldSecrets, resealRetries } from '../../../nodes/ServiceTrigger/verify/heldSecrets';
import { recentKeys } from '../../../nodes/ServiceTrigger/verify/recentKeys';
import { refusalLog } from '../../../nodes/ServiceTrigger/verify/refusalLog';
import { allFields, expectNoToken } from '../../property/tokenDecoders';
import { serviceApi } from '../../sandbox/credential';
import { newSigningSecret, signatureHeader } from '../../sandbox/signing';
import { encodeToken } from '../../sandbox/tokenForms';
import { useTriggerSetup } from '../trigger/setup';

/**
 * Issue 31, the attacker's second round against the Service Trigger: forged deliveries against the
 * renewal, the token in Add Company Details' errors and company, keys from Service text as alert ids,
 * KEs and columns, bursts against the portfolio readings. Each probe named by the promise it checks
 * (docs/token-and-limits.md, README "Limits and safety").
 */
const KE = 'KE-1001';
const PORTFOLIO = '/v1/reader/exports/portfolio';
const now = () => Math.floor(Date.now() / 1000);
const body = (alertId: string, ids: Record<string, string> = { organisation: KE }, eventType = 'ledger_high') =>
	JSON.stringify({ event_type: eventType, alert_id: alertId, ids, severity: 'high', occurred_at: '2026-01-01T00:00:00.000Z' });

/** What a restart forgets: every secret, key and attempt this process held. */
function freshProcess(): void {
	heldSecrets.clear();
	resealRetries.clear();
	recentKeys.forgetAll();
	renewalAttempts.clear();
}

/** Forged deliveries an attacker who knows the URL sends: no header, adversarial headers, wrong secrets, odd bodies. */
function forgeries(): Array<{ headers: Record<string, string>; body: string }> {
	const t = now();
	const payload = body('al_forged');
	const other = newSigningSecret();
	return [
		{ headers: {}, body: payload },
		{ headers: { 'Service-Signature': `t=${t},v1=${'0'.repeat(64)},${', ;\t'.repeat(3_900)}x` }, body: payload },
		{ headers: { 'Service-Signature': `${'='.repeat(15_000)}t=${t}` }, body: payload },
		{ headers: { 'Service-Signature': signatureHeader(other, t, payload) }, body: payload },
		{ headers: { 'Service-Signature': `t=${t},t=${t - 1},v1=${'a'.repeat(64)}` }, body: payload },
		{ headers: { 'Service-Signature': signatureHeader(other, t - 10_000, payload) }, body: payload },
		{ headers: { 'Service-Signature': signatureHeader(other, t, '') }, body: '' },
		{ headers: { 'Service-Signature': signatureHeader(other, t, 'not json') }, body: 'not json' },
	];
}

describe('attack, operators: "a delivery renews a trigger\'s endpoint ... only while the stored secret opens with neither the current token nor this process\'s memory"', () => {
	const heal = useTriggerSetup({ sandbox: { timeScale: 86_400 } });
	const posts = () => heal.sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' });
	const stored = () => (heal.harness.savedNodeData().endpoints as Record<string, { renewalAttemptedAt?: string }>)[heal.harness.webhookUrl()];
	const url = () => heal.harness.webhookUrl();

	// A test that rotates the token leaves the Service with the new one: later tests start with it.
	let currentToken: string | undefined;
	const rotate = () => (currentToken = heal.sandbox.control.rotateToken());

	beforeEach(() => {
		heal.harness = heal.newHarness(currentToken === undefined ? {} : { credentials: { serviceApi: serviceApi(heal.sandbox, { token: currentToken }) } });
		refusalLog.forgetAll();
	});
	afterEach(async () => {
		await heal.harness.deactivate();
		freshProcess();
	});

	async function sendAll(list: Array<{ headers: Record<string, string>; body: string }>) {
		return await Promise.all(list.map((f) => postDelivery(url(), { headers: f.headers, body: f.body, ca: heal.receiverCa })));
	}

	test('healthy and just restarted: eight kinds of forgery (no header, 16 KiB of separators, 15,000 "=", another secret, two t, stale, empty and non-JSON bodies), sent twice together, register and delete nothing', async () => {
		const { sandbox } = heal;
		await heal.harness.activate();
		const [endpoint] = sandbox.control.webhookEndpoints();
		freshProcess();
		heal.harness = heal.harness.restart();
		sandbox.control.clearRequests();
		const answers = await sendAll([...forgeries(), ...forgeries()]);
		expect(answers.map((a) => a.status)).toEqual(Array(16).fill(401));
		expect(posts()).toHaveLength(0);
		expect(sandbox.control.requests({ method: 'DELETE' })).toHaveLength(0);
		expect(sandbox.control.webhookEndpoints().map((e) => e.id)).toEqual([endpoint.id]);
		expect(stored().renewalAttemptedAt).toBeUndefined();
		// And the real alerts still pass.
		const alert = sandbox.control.emit('ledger_high', { organisation: KE });
		expect((await sandbox.control.whenSettled(alert.alertId)).map((d) => d.attempts.map((a) => a.status))).toEqual([[200]]);
	});

	test('token rotated but this process still holds the secret (no restart): forgeries register nothing', async () => {
		const { sandbox } = heal;
		await heal.harness.activate();
		// A delivery first, so the process holds the secret in memory.
		const first = sandbox.control.emit('ledger_high', { organisation: KE });
		await sandbox.control.whenSettled(first.alertId);
		const token = rotate();
		heal.harness = heal.harness.restart({ credentials: { serviceApi: serviceApi(sandbox, { token }) } });
		sandbox.control.clearRequests();
		const answers = await sendAll(forgeries());
		expect(answers.every((a) => a.status === 401)).toBe(true);
		expect(posts()).toHaveLength(0);
		expect(sandbox.control.requests({ method: 'DELETE' })).toHaveLength(0);
	});

	test('"at most **once an hour per trigger and URL**, whatever is sent (a forgery included)": 24 forgeries together, then 8 more, in the renewal state make one renewal', async () => {
		const { sandbox } = heal;
		await heal.harness.activate();
		const token = rotate();
		freshProcess();
		heal.harness = heal.harness.restart({ credentials: { serviceApi: serviceApi(sandbox, { token }) } });
		sandbox.control.clearRequests();
		await sendAll([...forgeries(), ...forgeries(), ...forgeries()]);
		await sendAll(forgeries());
		expect(posts().length).toBeLessThanOrEqual(1);
		expect(sandbox.control.requests({ method: 'DELETE' }).length).toBeLessThanOrEqual(2);
		expect(sandbox.control.webhookEndpoints()).toHaveLength(1);
	});
});

describe('attack, Add Company Details', () => {
	const setup = useTriggerSetup({ parameters: { options: { addCompanyDetails: true, companyDetailsMaxPages: 10 } }, activate: true });
	const portfolioReads = () => setup.sandbox.control.requests({ method: 'GET', path: PORTFOLIO });
	afterEach(() => setup.sandbox.control.clearFaults());

	async function signed(alertId: string, ids: Record<string, string>, eventType = 'ledger_high') {
		const [{ secret, url }] = setup.sandbox.control.webhookEndpoints();
		const payload = body(alertId, ids, eventType);
		return await postDelivery(url, { headers: { 'Service-Signature': signatureHeader(secret, now(), payload) }, body: payload, ca: setup.receiverCa });
	}

	test('"every own field of every error ... `errorResponse`": a portfolio page answering 400 with the token at depth (\\u, &#x..;, %xx) fails the execution and shows it nowhere, nor in the log', async () => {
		const TOKEN = setup.sandbox.tokens.reader;
		setup.sandbox.control.failRoute({
			path: PORTFOLIO, mode: 'answer', status: 400, contentType: 'application/json',
			body: `{"error":{"code":"${encodeToken(TOKEN, 'jsonEscaped')}","message":"${encodeToken(TOKEN, 'urlLower')}","details":[{"a":{"b":"${encodeToken(TOKEN, 'htmlHex')}"}}]}}`,
		});
		const errorsBefore = setup.receiver.errors.length;
		const logsBefore = setup.logs.length;
		const alert = setup.sandbox.control.emit('ledger_high', { organisation: 'KE-1002' });
		await setup.sandbox.control.whenSettled(alert.alertId);
		expect(await setup.executionsOf(alert.alertId)).toHaveLength(0);
		const errors = setup.receiver.errors.slice(errorsBefore);
		expect(errors).toHaveLength(1);
		expectNoToken(JSON.stringify({ errors: allFields(errors), logs: setup.logs.slice(logsBefore) }), TOKEN);
	});

	test('"Nothing the Service sends back shows the token ... in an output item": the token as a portfolio column and cell is not in company', async () => {
		const TOKEN = setup.sandbox.tokens.reader;
		setup.sandbox.control.failRoute({
			path: PORTFOLIO, mode: 'answer', status: 200, contentType: 'text/csv; charset=utf-8', times: 1,
			body: `ke,company_name,${TOKEN}\r\nKE-1003,"${encodeToken(TOKEN, 'mixed')}",${encodeToken(TOKEN, 'urlLower')}\r\n`,
		});
		const alert = setup.sandbox.control.emit('ledger_high', { organisation: 'KE-1003' });
		await setup.sandbox.control.whenSettled(alert.alertId);
		const runs = await setup.executionsOf(alert.alertId);
		expect(runs).toHaveLength(1);
		expect((runs[0].items[0].json.company as Record<string, unknown>).ke).toBe('KE-1003');
		expectNoToken(JSON.stringify(allFields(runs)), TOKEN);
	});

	test('"Keys from the Service\'s text keep their values": KEs __proto__ (listed) and constructor, toString (not listed) get their own company, never a prototype\'s', async () => {
		setup.sandbox.control.failRoute({
			path: PORTFOLIO, mode: 'answer', status: 200, contentType: 'text/csv; charset=utf-8',
			body: 'ke,company_name,hasOwnProperty\r\n__proto__,Proto Ltd,h\r\nKE-1001,Acme,x\r\n',
		});
		const company = async (alertId: string, ke: string) => {
			expect((await signed(alertId, { organisation: ke })).status).toBe(200);
			const runs = await setup.executionsOf(alertId);
			expect(runs).toHaveLength(1);
			return runs[0].items[0].json.company as Record<string, unknown>;
		};
		const proto = await company('al_k_proto', '__proto__');
		expect(JSON.stringify(proto)).toBe('{"ke":"__proto__","name":"Proto Ltd","company_name":"Proto Ltd","hasOwnProperty":"h","shared":true}');
		expect(await company('al_k_ctor', 'constructor')).toEqual({ ke: 'constructor', shared: false });
		expect(await company('al_k_tostring', 'toString')).toEqual({ ke: 'toString', shared: false });
	});

	test('"Two alert ids ... are two alerts": alert ids __proto__, constructor, toString, hasOwnProperty each pass once, a redelivery of each is dropped', async () => {
		const ids = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
		for (const id of ids) expect((await signed(id, { organisation: KE })).status).toBe(200);
		for (const id of ids) expect((await signed(id, { organisation: KE })).status).toBe(200);
		for (const id of ids) {
			const runs = await setup.executionsOf(id);
			expect(runs).toHaveLength(1);
			expect(runs[0].items[0].json.alert_id).toBe(id);
		}
	});

	test('"bytes: at most 28 MiB of rows and header rows ... 32 MiB in all, counted as 2 bytes a character": 9 pages of 4 rows of 1 MiB names (72 MiB counted) hold at most 32 MiB, and the last company is still found', async () => {
		const { control } = setup.sandbox;
		const name = (page: number, row: number) => `${String.fromCharCode(65 + page)}${row}`.padEnd(1024 * 1024, 'x');
		for (let page = 0; page < 9; page++) {
			const rows = [0, 1, 2, 3].map((row) => `KE-B${page}${row},${name(page, row)}\r\n`).join('');
			control.failRoute({
				path: PORTFOLIO, mode: 'answer', status: 200, contentType: 'text/csv; charset=utf-8', times: 1, body: `ke,company_name\r\n${rows}`,
				headers: page < 8 ? { 'X-Service-Next-Cursor': `big${page + 1}` } : {},
			});
		}
		const [{ secret, url }] = control.webhookEndpoints();
		const payload = body('al_big_last', { organisation: 'KE-B83' });
		expect((await postDelivery(url, { headers: { 'Service-Signature': signatureHeader(secret, now(), payload) }, body: payload, ca: setup.receiverCa })).status).toBe(200);
		const [run] = await setup.executionsOf('al_big_last');
		const company = run.items[0].json.company as Record<string, unknown>;
		expect(company.ke).toBe('KE-B83');
		expect(company.company_name).toBe(name(8, 3));
		expect(portfolioReadings.heldBytes()).toBeLessThanOrEqual(32 * 1024 * 1024);
	}, 60_000);

	test('a gzip portfolio page (windows-1252 bytes) gives the company as the CSV has it, every other byte as sent', async () => {
		const page = Buffer.from('ke,company_name\r\nKE-1005,M\xfcller \x80\r\n', 'latin1');
		setup.sandbox.control.failRoute({ path: PORTFOLIO, mode: 'answer', status: 200, contentType: 'text/csv; charset=utf-8', times: 1, body: gzipSync(page).toString('latin1'), bodyEncoding: 'latin1', headers: { 'Content-Encoding': 'gzip' } });
		const [{ secret, url }] = setup.sandbox.control.webhookEndpoints();
		const payload = body('al_gzip', { organisation: 'KE-1005' });
		expect((await postDelivery(url, { headers: { 'Service-Signature': signatureHeader(secret, now(), payload) }, body: payload, ca: setup.receiverCa })).status).toBe(200);
		const [run] = await setup.executionsOf('al_gzip');
		const company = run.items[0].json.company as Record<string, unknown>;
		expect(company.ke).toBe('KE-1005');
		// Read as UTF-8 (the charset sent): 0xFC and 0x80 are not UTF-8, so each shows as U+FFFD; nothing else changes.
		expect(company.company_name).toBe('M\ufffdller \ufffd');
	});

	test('"N alerts arriving together cost at most two readings": 30 alerts of four event types for 30 KEs, most not listed, against a portfolio that never ends: at most 2 × Company Details Max Pages requests', async () => {
		const { control } = setup.sandbox;
		control.failRoute({ path: PORTFOLIO, mode: 'endlessCursor', csv: true });
		control.clearRequests();
		const types = ['ledger_high', 'share_revoked', 'ledger_high', 'share_granted'];
		const results = await Promise.all(Array.from({ length: 30 }, (_, i) => signed(`al_burst_${i}`, { organisation: `KE-9${String(i).padStart(3, '0')}` }, types[i % 4])));
		expect(results.every((r) => r.status === 200)).toBe(true);
		for (let i = 0; i < 30; i++) expect(await setup.executionsOf(`al_burst_${i}`)).toHaveLength(0);
		expect(portfolioReads().length).toBeLessThanOrEqual(20);
	});
});

describe('attack, Add Company Details over a paged portfolio (3 companies a page, 4 pages)', () => {
	const setup = useTriggerSetup({ parameters: { options: { addCompanyDetails: true } }, sandbox: { pageSize: 3 }, activate: true });
	const portfolioReads = () => setup.sandbox.control.requests({ method: 'GET', path: PORTFOLIO });

	async function signed(alertId: string, ids: Record<string, string>, eventType: string) {
		const [{ secret, url }] = setup.sandbox.control.webhookEndpoints();
		const payload = body(alertId, ids, eventType);
		expect((await postDelivery(url, { headers: { 'Service-Signature': signatureHeader(secret, now(), payload) }, body: payload, ca: setup.receiverCa })).status).toBe(200);
		const runs = await setup.executionsOf(alertId);
		expect(runs).toHaveLength(1);
		return runs[0].items[0].json.company as Record<string, unknown>;
	}

	test('"KEs known not to be listed" stay known across readings: two unlisted KEs alternating with row-changing alerts (each a new reading) cost page 1 each time, not a whole reading', async () => {
		const { control } = setup.sandbox;
		control.clearRequests();
		await signed('al_known_start', { organisation: 'KE-1001' }, 'ledger_high');
		// A KE not listed: the rest of the portfolio read once.
		expect(await signed('al_known_x0', { organisation: 'KE-8001', questionnaire: 'QN-0001' }, 'questionnaire_answered')).toEqual({ ke: 'KE-8001', shared: false });
		expect(portfolioReads()).toHaveLength(4);
		control.clearRequests();
		for (let i = 0; i < 4; i++) {
			// Row-changing: a new reading, which finds KE-1001 on page 1.
			await signed(`al_known_row_${i}`, { organisation: 'KE-1001' }, 'ledger_high');
			const ke = i % 2 ? 'KE-8002' : 'KE-8001';
			expect(await signed(`al_known_alt_${i}`, { organisation: ke, questionnaire: 'QN-0001' }, 'questionnaire_answered')).toEqual({ ke, shared: false });
		}
		// Page 1 four times, and at most once the rest (for KE-8002, if a complete reading's absentees are not all known): never 4 pages an alert.
		expect(portfolioReads().length).toBeLessThanOrEqual(4 + 3);
	});
});

describe('attack, keys in deliveries: event types and ids named like Object.prototype', () => {
	const setup = useTriggerSetup({ parameters: { events: ['finding_new'] }, activate: true });

	async function signedRaw(payload: string) {
		const [{ secret, url }] = setup.sandbox.control.webhookEndpoints();
		return await postDelivery(url, { headers: { 'Service-Signature': signatureHeader(secret, now(), payload) }, body: payload, ca: setup.receiverCa });
	}

	test('"Whether an event starts the workflow" (Events: finding_new): event types __proto__, constructor, toString, hasOwnProperty start nothing; ledger_high (never silenced) does', async () => {
		for (const eventType of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'ledger_high']) {
			const alertId = `al_type_${eventType}`;
			expect((await signedRaw(body(alertId, { organisation: KE }, eventType))).status).toBe(200);
			expect(await setup.executionsOf(alertId)).toHaveLength(eventType === 'ledger_high' ? 1 : 0);
		}
	});

	test('"a delivery\'s `ids` are built with own properties": ids named constructor, toString, hasOwnProperty, valueOf and __proto__ keep their values', async () => {
		const payload = `{"event_type":"finding_new","alert_id":"al_ids_keys","ids":{"organisation":"${KE}","report":"KS-1","constructor":"c","toString":"t","hasOwnProperty":"h","valueOf":"v","__proto__":"p"},"severity":"low","occurred_at":"2026-01-01T00:00:00.000Z"}`;
		expect((await signedRaw(payload)).status).toBe(200);
		const [run] = await setup.executionsOf('al_ids_keys');
		const ids = run.items[0].json.ids as Record<string, unknown>;
		for (const [key, value] of [['constructor', 'c'], ['toString', 't'], ['hasOwnProperty', 'h'], ['valueOf', 'v'], ['__proto__', 'p'], ['organisation', KE]]) {
			expect(Object.getOwnPropertyDescriptor(ids, key)?.value).toBe(value);
		}
		expect(run.items[0].json.ke).toBe(KE);
	});

	test('an ids object holding only __proto__ names no company: ke is null, not an object', async () => {
		const payload = `{"event_type":"finding_new","alert_id":"al_ids_proto_only","ids":{"__proto__":{"organisation":"KE-1002"}},"severity":"low","occurred_at":"2026-01-01T00:00:00.000Z"}`;
		expect((await signedRaw(payload)).status).toBe(200);
		const runs = await setup.executionsOf('al_ids_proto_only');
		// Either refused as malformed (no execution) or passed on with no KE: never KE-1002 read through a prototype.
		if (runs.length > 0) expect(runs[0].items[0].json.ke ?? null).not.toBe('KE-1002');
	});
});

describe('attack, token in deliveries and refusals: "Never output or log the access token or the signing secret"', () => {
	const setup = useTriggerSetup({ activate: true });
	beforeEach(() => refusalLog.forgetAll());

	test('a forged delivery whose header and body hold the token and the signing secret (raw, %xx, \\u): refused, neither in the log', async () => {
		const TOKEN = setup.sandbox.tokens.reader;
		const [{ secret, url }] = setup.sandbox.control.webhookEndpoints();
		const logsBefore = setup.logs.length;
		for (const text of [TOKEN, encodeToken(TOKEN, 'urlLower'), secret]) {
			const payload = body(`al_${text}`, { organisation: KE, report: text });
			const answer = await postDelivery(url, { headers: { 'Service-Signature': `t=${now()},v1=${text},${text}=${text}` }, body: payload, ca: setup.receiverCa });
			expect(answer.status).toBe(401);
			expectNoToken(answer.body, TOKEN);
			refusalLog.forgetAll();
		}
		const logs = JSON.stringify(setup.logs.slice(logsBefore));
		expectNoToken(logs, TOKEN);
		expect(logs).not.toContain(secret);
	});

	test('"Nothing the Service sends back shows the token ... in an output item": a signed delivery holding the token in its ids and alert_id (raw, \\u, %xx)', async () => {
		const TOKEN = setup.sandbox.tokens.reader;
		const [{ secret, url }] = setup.sandbox.control.webhookEndpoints();
		const payload = `{"event_type":"finding_new","alert_id":"al_tok_${encodeToken(TOKEN, 'jsonEscaped')}","ids":{"organisation":"${KE}","report":"${TOKEN}","x":"${encodeToken(TOKEN, 'urlLower')}"},"severity":"low","occurred_at":"2026-01-01T00:00:00.000Z"}`;
		const logsBefore = setup.logs.length;
		const answer = await postDelivery(url, { headers: { 'Service-Signature': signatureHeader(secret, now(), payload) }, body: payload, ca: setup.receiverCa });
		expect(answer.status).toBe(200);
		// Passed on once, the token in each field replaced by ***, the rest as sent.
		const runs = await setup.executionsOf('al_tok_***');
		expect(runs).toHaveLength(1);
		expect(runs[0].items[0].json.ids).toEqual({ organisation: KE, report: '***', x: '***' });
		expect(runs[0].items[0].json.ke).toBe(KE);
		expectNoToken(JSON.stringify({ runs: allFields(runs), logs: setup.logs.slice(logsBefore), answer: answer.body }), TOKEN);
	});

	test('the same while the keys read a moment ago settle the delivery: no credential read of its own (docs/performance.md), the token still in no item', async () => {
		const TOKEN = setup.sandbox.tokens.reader;
		const [{ secret, url }] = setup.sandbox.control.webhookEndpoints();
		const send = async (payload: string) =>
			await postDelivery(url, { headers: { 'Service-Signature': signatureHeader(secret, now(), payload) }, body: payload, ca: setup.receiverCa });
		// An ordinary alert first: its delivery reads the keys and the token, which are then remembered for a minute.
		expect((await send(body('al_remembered_first'))).status).toBe(200);
		await setup.executionsOf('al_remembered_first');
		const reads = () => [...TestCredentialsHelper.reads.values()].reduce((sum, n) => sum + n, 0);
		const readsBefore = reads();
		const payload = `{"event_type":"finding_new","alert_id":"al_tok2_${encodeToken(TOKEN, 'htmlHex')}","ids":{"organisation":"${KE}","report":"${encodeToken(TOKEN, 'jsonEscaped')}","x":"${TOKEN}"},"severity":"low"}`;
		expect((await send(payload)).status).toBe(200);
		const runs = await setup.executionsOf('al_tok2_***');
		expect(runs).toHaveLength(1);
		expect(runs[0].items[0].json.ids).toEqual({ organisation: KE, report: '***', x: '***' });
		expectNoToken(JSON.stringify(allFields(runs)), TOKEN);
		// Neither the delivery nor its execution read the credential.
		expect(reads() - readsBefore).toBe(0);
	});
});
