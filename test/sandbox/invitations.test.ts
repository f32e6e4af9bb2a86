import type { InvitationStatus } from './index';
import { useReceiverEndpoint, useSandboxWithClient } from './useSandbox';

const { sandbox, client } = useSandboxWithClient();
const receiver = useReceiverEndpoint(sandbox);

const header = 'company_name,registration_number,work_email,reader_reference';

function importCsv(body: string | Buffer) {
	return client.request('/v1/reader/invitations/imports', {
		method: 'POST', body, headers: { 'Content-Type': 'text/csv; charset=utf-8' },
	});
}

describe('POST /v1/reader/invitations', () => {
	it('creates one invitation with status sent', async () => {
		const reply = await client.request('/v1/reader/invitations', {
			method: 'POST',
			body: { company_name: 'Umbrella Corp', registration_number: 'GB55500001', work_email: 'buyer@umbrella.example', reader_reference: 'U-1' },
		});
		expect(reply.status).toBe(201);
		const invitation = reply.json();
		expect(invitation).toEqual({
			id: expect.stringMatching(/^INV-\d{4}$/),
			company_name: 'Umbrella Corp',
			registration_number: 'GB55500001',
			work_email: 'buyer@umbrella.example',
			reader_reference: 'U-1',
			status: 'sent',
			created_at: expect.any(String),
			updated_at: expect.any(String),
			expires_on: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
		});
		expect(sandbox.control.invitations().map((i) => i.id)).toContain(invitation.id);
	});

	it.each([
		[{ registration_number: 'GB1', work_email: 'a@firm.example' }, 'The company name is missing: fill in company_name.'],
		[{ company_name: 'A', work_email: 'a@firm.example' }, 'The registration number is missing: fill in registration_number from the company register.'],
		[{ company_name: 'A', registration_number: 'GB1' }, 'The work email is missing: fill in work_email with a contact at the company.'],
		[{ company_name: 'A', registration_number: 'GB1', work_email: 'a@@firm' }, 'The work email "a@@firm" is not a valid email address: check it for typos.'],
		[{ company_name: 'A', registration_number: 'GB1', work_email: 'someone@Gmail.com' }, 'The work email "someone@Gmail.com" is a personal free-mail address (gmail.com): use the contact\'s work address at the company.'],
		[{ company_name: 42, registration_number: 'GB1', work_email: 'a@firm.example' }, 'company_name must be text, not number.'],
		[{ company_name: 'A', registration_number: 'GB1', work_email: 'a@firm.example', phone: '1' }, 'Unknown field phone: the fields are company_name, registration_number, work_email, reader_reference.'],
	])('refuses %j with 422 and a plain-words message', async (body, message) => {
		const reply = await client.request('/v1/reader/invitations', { method: 'POST', body });
		expect(reply.status).toBe(422);
		expect(reply.json()).toEqual({ error: { code: 'invalid_invitation', message } });
	});

	it('refuses a duplicate of an existing invitation with 422 duplicate_invitation', async () => {
		const reply = await client.request('/v1/reader/invitations', {
			method: 'POST', body: { company_name: 'Northwind', registration_number: 'gb 10000001', work_email: 'x@northwind.example' },
		});
		expect(reply.status).toBe(422);
		expect(reply.json().error).toEqual({
			code: 'duplicate_invitation',
			message: 'An invitation for registration number gb 10000001 already exists (INV-0001, status sent): it was not sent again.',
		});
	});

	it('refuses a body that is not JSON with 400', async () => {
		const reply = await client.request('/v1/reader/invitations', { method: 'POST', body: 'company_name=A' });
		expect(reply.status).toBe(400);
		expect(reply.json().error).toEqual({ code: 'invalid_json', message: 'The request body is not valid JSON: send a JSON object.' });
	});
});

describe('POST /v1/reader/invitations/imports', () => {
	it('answers every row: accepted rows become invitations, each problem is named in plain words', async () => {
		const longName = 'L'.repeat(201);
		const csv = [
			header,
			'Good Company Ltd,GB70000001,buyer@good.example,REF-1',
			',GB70000002,a@nameless.example,REF-2',
			'No Number Ltd,,a@nonumber.example,REF-3',
			'Bad Email Ltd,GB70000004,not-an-email,REF-4',
			'Free Mail Ltd,GB70000005,someone@hotmail.com,REF-5',
			'Good Company Again,gb70000001,other@good.example,REF-6',
			'Northwind Again,GB10000001,x@northwind.example,REF-7',
			'Too Many,GB70000008,a@many.example,REF-8,extra',
			'Too Few,GB70000009',
			`${longName},GB70000010,a@long.example,REF-10`,
			'"Smith, Jones & ""Partners""\nLLP",GB70000011,office@smith.example,',
		].join('\r\n');
		const reply = await importCsv(csv);
		expect(reply.status).toBe(200);
		const result = reply.json();
		expect(result.rows.map((r: { row: number; ok: boolean; check: string }) => [r.row, r.ok, r.check])).toEqual([
			[1, true, 'Invitation sent to buyer@good.example.'],
			[2, false, 'The company name is missing: fill in company_name.'],
			[3, false, 'The registration number is missing: fill in registration_number from the company register.'],
			[4, false, 'The work email "not-an-email" is not a valid email address: check it for typos.'],
			[5, false, 'The work email "someone@hotmail.com" is a personal free-mail address (hotmail.com): use the contact\'s work address at the company.'],
			[6, false, 'Duplicate of row 1: the same registration number gb70000001 appears twice in the file.'],
			[7, false, 'An invitation for registration number GB10000001 already exists (INV-0001, status sent): it was not sent again.'],
			[8, false, 'Row has 5 values but the header has 4 columns: put quotes around values that contain commas.'],
			[9, false, 'Row has 2 values but the header has 4 columns: fill in every column, even if empty.'],
			[10, false, 'company_name is 201 characters long; the limit is 200: shorten it.'],
			[11, true, 'Invitation sent to office@smith.example.'],
		]);
		expect(result.accepted).toBe(2);
		expect(result.refused).toBe(9);
		expect(result.rows[0]).toEqual({
			row: 1,
			ok: true,
			check: 'Invitation sent to buyer@good.example.',
			invitation_id: expect.stringMatching(/^INV-/),
			data: { company_name: 'Good Company Ltd', registration_number: 'GB70000001', work_email: 'buyer@good.example', reader_reference: 'REF-1' },
		});
		expect(result.rows[1].invitation_id).toBeUndefined();
		const created = sandbox.control.invitations().filter((i) => result.rows.some((r: { invitation_id?: string }) => r.invitation_id === i.id));
		expect(created.map((i) => [i.company_name, i.status])).toEqual([
			['Good Company Ltd', 'sent'],
			['Smith, Jones & "Partners"\nLLP', 'sent'],
		]);
	});

	it('lists several problems of one row together', async () => {
		const reply = await importCsv(`${header}\n,,someone@yahoo.com,\n`);
		expect(reply.json().rows[0].check).toBe(
			'The company name is missing: fill in company_name. The registration number is missing: fill in registration_number from the company register. '
			+ 'The work email "someone@yahoo.com" is a personal free-mail address (yahoo.com): use the contact\'s work address at the company.',
		);
	});

	it('accepts a header in plain words and a UTF-8 byte-order mark', async () => {
		const reply = await importCsv(`\uFEFFCompany Name,Registration Number,Work Email,Reader Reference\nÉté SARL,FR70000020,achat@ete.example,R20\n`);
		expect(reply.json().rows[0]).toMatchObject({ ok: true, data: { company_name: 'Été SARL' } });
	});

	it('refuses every row when the header has unknown columns', async () => {
		const reply = await importCsv(`${header},phone\nA Ltd,GB71000001,a@a.example,R1,123\nB Ltd,GB71000002,b@b.example,R2,456\n`);
		const message = 'Unknown column "phone" in the header: the columns are company_name,registration_number,work_email,reader_reference.';
		expect(reply.json()).toEqual({
			rows: [
				{ row: 1, ok: false, check: message, data: { company_name: 'A Ltd', registration_number: 'GB71000001', work_email: 'a@a.example', reader_reference: 'R1', phone: '123' } },
				{ row: 2, ok: false, check: message, data: { company_name: 'B Ltd', registration_number: 'GB71000002', work_email: 'b@b.example', reader_reference: 'R2', phone: '456' } },
			],
			accepted: 0,
			refused: 2,
		});
	});

	it('refuses every row when a header column is missing', async () => {
		const reply = await importCsv('company_name,registration_number,reader_reference\nA Ltd,GB72000001,R1\n');
		expect(reply.json().rows[0]).toMatchObject({
			ok: false, check: 'The header has no work_email column: the columns are company_name,registration_number,work_email,reader_reference.',
		});
	});

	it('refuses every row of a file that is not UTF-8, naming the line', async () => {
		const latin1 = Buffer.from(`${header}\nGood Ltd,GB73000001,a@good.example,R1\nSoci\xe9t\xe9 SA,FR73000002,b@soc.example,R2\n`, 'latin1');
		const reply = await importCsv(latin1);
		const check = 'The file is not UTF-8 text (the first invalid byte is on line 3): save it as "CSV UTF-8" and upload it again.';
		expect(reply.json().rows.map((r: { ok: boolean; check: string }) => [r.ok, r.check])).toEqual([[false, check], [false, check]]);
		expect(reply.json().accepted).toBe(0);
	});

	it('refuses a file with an unclosed quote', async () => {
		const reply = await importCsv(`${header}\nA Ltd,GB74000001,a@a.example,R1\n"Open quote,GB74000002,b@b.example,R2\n`);
		expect(reply.json().rows).toEqual([
			expect.objectContaining({ row: 1, ok: false, check: 'A quoted value starting on line 3 is never closed: close the quote or remove it.' }),
		]);
	});

	it.each([
		['an empty file', '', 'The file is empty: send a CSV with the header company_name,registration_number,work_email,reader_reference and one row per company.'],
		['blank lines only', '\r\n\r\n', 'The file is empty: send a CSV with the header company_name,registration_number,work_email,reader_reference and one row per company.'],
		['a header only', `${header}\r\n`, 'The file has a header but no rows: add one row per company under the header.'],
	])('answers 422 for %s', async (_label, body, message) => {
		const reply = await importCsv(body);
		expect(reply.status).toBe(422);
		expect(reply.json()).toEqual({ error: { code: 'invalid_import', message } });
	});
});

describe('invitation status', () => {
	it.each<InvitationStatus>(['opened', 'accepted', 'declined', 'bounced', 'expired'])(
		'moves to %s from the control API and announces it with reader_invitation_status',
		async (status) => {
			const created = (await client.request('/v1/reader/invitations', {
				method: 'POST',
				body: { company_name: `Status ${status} Ltd`, registration_number: `GB-ST-${status}`, work_email: `a@${status}.example` },
			})).json();
			const alert = sandbox.control.setInvitationStatus(created.id, status, status === 'accepted' ? { ke: 'KE-1001' } : {});
			const [delivery] = await sandbox.control.whenSettled(alert.alertId);
			expect(delivery.state).toBe('delivered');
			const received = receiver.received.find((r) => JSON.parse(r.body.toString()).alert_id === alert.alertId)!;
			const body = JSON.parse(received.body.toString());
			expect(body).toEqual({
				event_type: 'reader_invitation_status',
				alert_id: alert.alertId,
				ids: status === 'accepted' ? { invitation: created.id, organisation: 'KE-1001' } : { invitation: created.id },
				severity: 'info',
				occurred_at: expect.any(String),
			});
			const csv = await client.request('/v1/reader/exports/invitations?format=csv&page_size=1000');
			expect(csv.text).toContain(`${created.id},Status ${status} Ltd,GB-ST-${status},a@${status}.example,,${status},`);
		},
	);

	it('refuses an unknown status or invitation', () => {
		expect(() => sandbox.control.setInvitationStatus('INV-0001', 'sent')).toThrow(
			'Invitation status must be one of opened, accepted, declined, bounced, expired; got "sent".',
		);
		expect(() => sandbox.control.setInvitationStatus('INV-9999', 'opened')).toThrow('No invitation INV-9999 in the sandbox.');
	});
});
