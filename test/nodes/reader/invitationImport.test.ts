import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { shapeAnswer } from '../../sandbox/answerShapes';
import { useSandbox } from '../../sandbox/useSandbox';
import { uploadedCsv } from '../../sandbox/requestDialect';
import { fileItem, READER, runReader } from './helpers';

const sandbox = useSandbox();

const PATH = '/v1/reader/invitations/imports';
/** The content type of an upload as the dialect's user sets Import Upload: the CSV itself, or a form holding it. */
const uploadType = () => sandbox.dialect.request.importUpload.form === 'csv' ? 'text/csv; charset=utf-8' : expect.stringMatching(/^multipart\/form-data; boundary=\S+$/);
const HEADER = 'company_name,registration_number,work_email,reader_reference';
const COLUMNS = 'company_name,registration_number,work_email,reader_reference';
const fromFile = (extra: Record<string, unknown> = {}) => ({ resource: 'invitation', operation: 'import', source: 'binaryFile', ...extra });
const fromItems = (extra: Record<string, unknown> = {}) => ({ resource: 'invitation', operation: 'import', source: 'inputItems', ...extra });
const csvItem = (text: string | Buffer) => fileItem(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'), 'invitations.csv', 'text/csv');
const invitationId = (registrationNumber: string) =>
	sandbox.control.invitations().find((i) => i.registration_number === registrationNumber)!.id;
const data = (company_name: string, registration_number: string, work_email: string, reader_reference: string) => ({
	company_name,
	registration_number,
	work_email,
	reader_reference,
});
const refused = (row: number, check: string, rowData: Record<string, string>, item: number): INodeExecutionData => ({
	json: { row, ok: false, check, data: rowData },
	pairedItem: { item },
});
/**
 * Expected items with every field the Service sent for each row beside the node's own: the row as the
 * sandbox's dialect words it (the default dialect's row is the node's fields already).
 */
const asSaid = (items: INodeExecutionData[]): INodeExecutionData[] =>
	items.map((item) => {
		if (item.json.row === undefined) return item;
		const worded = sandbox.dialect.answer('POST', PATH, { rows: [item.json], accepted: 0, refused: 0 });
		const shaped = shapeAnswer(sandbox.dialect.answers, 'POST', PATH, worded);
		const answer = ('json' in shaped ? shaped.json : worded) as Record<string, unknown>;
		const [said] = Object.values(answer).find(Array.isArray) as IDataObject[];
		return { ...item, json: { ...said, ...item.json } };
	});

describe('Invitation > Import from a binary file', () => {
	const longName = 'L'.repeat(201);
	const mainFile = [
		HEADER,
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
		'No Email Ltd,GB70000011,,REF-11',
		',,someone@yahoo.com,',
		'"Smith, Jones & ""Partners""\nLLP",GB70000013,office@smith.example,',
	].join('\r\n');
	const unknownColumnFile = `${HEADER},phone\nA Ltd,GB71000001,a@a.example,R1,123\nB Ltd,GB71000002,b@b.example,R2,456\n`;
	const latin1File = Buffer.from(`${HEADER}\nGood Ltd,GB73000001,a@good.example,R1\nSoci\xe9t\xe9 SA,FR73000002,b@soc.example,R2\n`, 'latin1');
	const missingColumnFile = 'company_name,registration_number,reader_reference\nA Ltd,GB72000001,R1\n';

	it('answers every row of every file, each paired with the item its file came from; nothing is dropped', async () => {
		const logBefore = sandbox.control.accessLog().length;
		const result = await runReader(sandbox, fromFile(), {
			inputItems: [csvItem(mainFile), csvItem(unknownColumnFile), csvItem(latin1File), csvItem(missingColumnFile)],
		});

		const unknownColumn = `Unknown column "phone" in the header: the columns are ${COLUMNS}.`;
		const notUtf8 = 'The file is not UTF-8 text (the first invalid byte is on line 3): save it as "CSV UTF-8" and upload it again.';
		expect(result.output(READER)).toEqual(asSaid([
			{
				json: {
					row: 1,
					ok: true,
					check: 'Invitation sent to buyer@good.example.',
					invitation_id: invitationId('GB70000001'),
					data: data('Good Company Ltd', 'GB70000001', 'buyer@good.example', 'REF-1'),
				},
				pairedItem: { item: 0 },
			},
			refused(2, 'The company name is missing: fill in company_name.', data('', 'GB70000002', 'a@nameless.example', 'REF-2'), 0),
			refused(
				3,
				'The registration number is missing: fill in registration_number from the company register.',
				data('No Number Ltd', '', 'a@nonumber.example', 'REF-3'),
				0,
			),
			refused(
				4,
				'The work email "not-an-email" is not a valid email address: check it for typos.',
				data('Bad Email Ltd', 'GB70000004', 'not-an-email', 'REF-4'),
				0,
			),
			refused(
				5,
				'The work email "someone@hotmail.com" is a personal free-mail address (hotmail.com): use the contact\'s work address at the company.',
				data('Free Mail Ltd', 'GB70000005', 'someone@hotmail.com', 'REF-5'),
				0,
			),
			refused(
				6,
				'Duplicate of row 1: the same registration number gb70000001 appears twice in the file.',
				data('Good Company Again', 'gb70000001', 'other@good.example', 'REF-6'),
				0,
			),
			refused(
				7,
				'An invitation for registration number GB10000001 already exists (INV-0001, status sent): it was not sent again.',
				data('Northwind Again', 'GB10000001', 'x@northwind.example', 'REF-7'),
				0,
			),
			refused(
				8,
				'Row has 5 values but the header has 4 columns: put quotes around values that contain commas.',
				data('Too Many', 'GB70000008', 'a@many.example', 'REF-8'),
				0,
			),
			refused(
				9,
				'Row has 2 values but the header has 4 columns: fill in every column, even if empty.',
				{ company_name: 'Too Few', registration_number: 'GB70000009' },
				0,
			),
			refused(
				10,
				'company_name is 201 characters long; the limit is 200: shorten it.',
				data(longName, 'GB70000010', 'a@long.example', 'REF-10'),
				0,
			),
			refused(
				11,
				'The work email is missing: fill in work_email with a contact at the company.',
				data('No Email Ltd', 'GB70000011', '', 'REF-11'),
				0,
			),
			refused(
				12,
				'The company name is missing: fill in company_name. The registration number is missing: fill in registration_number from the company register. '
					+ 'The work email "someone@yahoo.com" is a personal free-mail address (yahoo.com): use the contact\'s work address at the company.',
				data('', '', 'someone@yahoo.com', ''),
				0,
			),
			{
				json: {
					row: 13,
					ok: true,
					check: 'Invitation sent to office@smith.example.',
					invitation_id: invitationId('GB70000013'),
					data: data('Smith, Jones & "Partners"\nLLP', 'GB70000013', 'office@smith.example', ''),
				},
				pairedItem: { item: 0 },
			},
			refused(1, unknownColumn, { ...data('A Ltd', 'GB71000001', 'a@a.example', 'R1'), phone: '123' }, 1),
			refused(2, unknownColumn, { ...data('B Ltd', 'GB71000002', 'b@b.example', 'R2'), phone: '456' }, 1),
			refused(1, notUtf8, data('Good Ltd', 'GB73000001', 'a@good.example', 'R1'), 2),
			refused(2, notUtf8, data('Soci\uFFFDt\uFFFD SA', 'FR73000002', 'b@soc.example', 'R2'), 2),
			refused(
				1,
				`The header has no work_email column: the columns are ${COLUMNS}.`,
				{ company_name: 'A Ltd', registration_number: 'GB72000001', reader_reference: 'R1' },
				3,
			),
		]));

		// One request per file, each file sent byte for byte as CSV (the body, or the one file of a form, as Import Upload says).
		const requests = sandbox.control.requests();
		expect(requests.map((r) => [r.method, r.path, r.reader, r.status, r.headers['content-type']])).toEqual(
			Array(4).fill(['POST', PATH, 'reader', 200, uploadType()]),
		);
		expect(requests.map((r) => uploadedCsv(sandbox.dialect.request, r))).toEqual([
			mainFile,
			unknownColumnFile,
			latin1File.toString('utf8'),
			missingColumnFile,
		]);
		expect(sandbox.control.invitations().filter((i) => /^GB7[0-3]/.test(i.registration_number)).map((i) => i.company_name)).toEqual([
			'Good Company Ltd',
			'Smith, Jones & "Partners"\nLLP',
		]);
		expect(sandbox.control.accessLog()).toHaveLength(logBefore);
	});

	it('fails clearly, quoting the Service, when a row sent gets no answer (unclosed quote)', async () => {
		const file = `${HEADER}\nA Ltd,GB74000001,a@a.example,R1\n"Open quote,GB74000002,b@b.example,R2\n`;
		const result = await runReader(sandbox, fromFile(), { inputItems: [csvItem(file)] });
		const error = result.error(READER)!;
		expect(error.message).toBe('The Service did not answer every row of the import');
		// Numbered by file line, the one answer (line 2) cannot be told from row 2 here: it still fails, loudly.
		const [unanswered, answered] = sandbox.dialect.answers.importNumbering === 'line' ? [1, 2] : [2, 1];
		expect(error.description).toBe(
			`The Service answered 1 of the 2 rows sent: row ${unanswered} got no answer. Check the file and import the unanswered rows again. `
				+ `The Service said: row ${answered}: refused, "A quoted value starting on line 3 is never closed: close the quote or remove it.".`,
		);
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(0);
		expect(sandbox.control.requests().map((r) => r.status)).toEqual([200]);
	});

	it('a file the Service cannot read at all fails with its words', async () => {
		const result = await runReader(sandbox, fromFile(), { inputItems: [csvItem(`${HEADER}\r\n`)] });
		expect(result.error(READER)?.message).toBe(
			'The Service refused the request (422): The file has a header but no rows: add one row per company under the header.',
		);
	});

	it('reads the file from the binary field it is told to', async () => {
		const file = `${HEADER}\nField Ltd,GB75000001,a@field.example,F1\n`;
		const result = await runReader(sandbox, fromFile({ binaryPropertyName: 'upload' }), {
			inputItems: [fileItem(Buffer.from(file), 'x.csv', 'text/csv', 'upload')],
		});
		expect(result.output(READER).map((item) => [item.json.row, item.json.ok])).toEqual([[1, true]]);
	});

	it('refuses an item without the file before any request', async () => {
		const result = await runReader(sandbox, fromFile(), { inputItems: [{ json: { note: 'no file' } }] });
		const error = result.error(READER)!;
		expect(error.message).toBe('The input item has no binary field "data" holding the CSV file to import [item 0]');
		expect(sandbox.control.requests()).toEqual([]);
	});
});

describe('Invitation > Import from input items', () => {
	it('builds one CSV from the items with the default mapping; each row is paired with its item', async () => {
		const items = [
			{ company_name: 'Items Good Ltd', registration_number: 'GB81000001', work_email: 'buyer@itemsgood.example', reader_reference: 'IT-1' },
			{ company_name: 'Smith, Jones & "Partners"\nLLP', registration_number: 'GB81000002', work_email: 'office@smithitems.example' },
			{ company_name: '=HYPERLINK("http://evil.example","x")', registration_number: 'GB81000003', work_email: 'x@evil-items.example', reader_reference: ' padded ' },
			{ company_name: 'Private Mail Ltd', registration_number: 81000004, work_email: 'me@gmail.com', reader_reference: 'IT-4' },
			{ company_name: '', registration_number: 'GB81000005', work_email: 'a@e.example' },
		];
		const result = await runReader(sandbox, fromItems(), { inputItems: items.map((json) => ({ json })) });

		const [request, ...more] = sandbox.control.requests();
		expect(more).toEqual([]);
		expect([request.method, request.path, request.status, request.headers['content-type']]).toEqual([
			'POST',
			PATH,
			200,
			uploadType(),
		]);
		// Quoted where needed; the formula-like name goes as it is (the formula guard is the Service's business).
		expect(uploadedCsv(sandbox.dialect.request, request)).toBe(
			`${HEADER}\r\n`
				+ 'Items Good Ltd,GB81000001,buyer@itemsgood.example,IT-1\r\n'
				+ '"Smith, Jones & ""Partners""\nLLP",GB81000002,office@smithitems.example,\r\n'
				+ '"=HYPERLINK(""http://evil.example"",""x"")",GB81000003,x@evil-items.example," padded "\r\n'
				+ 'Private Mail Ltd,81000004,me@gmail.com,IT-4\r\n'
				+ ',GB81000005,a@e.example,\r\n',
		);
		expect(result.output(READER)).toEqual(asSaid([
			{
				json: {
					row: 1,
					ok: true,
					check: 'Invitation sent to buyer@itemsgood.example.',
					invitation_id: invitationId('GB81000001'),
					data: data('Items Good Ltd', 'GB81000001', 'buyer@itemsgood.example', 'IT-1'),
				},
				pairedItem: { item: 0 },
			},
			{
				json: {
					row: 2,
					ok: true,
					check: 'Invitation sent to office@smithitems.example.',
					invitation_id: invitationId('GB81000002'),
					data: data('Smith, Jones & "Partners"\nLLP', 'GB81000002', 'office@smithitems.example', ''),
				},
				pairedItem: { item: 1 },
			},
			{
				json: {
					row: 3,
					ok: true,
					check: 'Invitation sent to x@evil-items.example.',
					invitation_id: invitationId('GB81000003'),
					data: data('=HYPERLINK("http://evil.example","x")', 'GB81000003', 'x@evil-items.example', ' padded '),
				},
				pairedItem: { item: 2 },
			},
			refused(
				4,
				'The work email "me@gmail.com" is a personal free-mail address (gmail.com): use the contact\'s work address at the company.',
				data('Private Mail Ltd', '81000004', 'me@gmail.com', 'IT-4'),
				3,
			),
			refused(5, 'The company name is missing: fill in company_name.', data('', 'GB81000005', 'a@e.example', ''), 4),
		]));
		expect(sandbox.control.accessLog()).toEqual([]);
	});

	it('uses a custom column mapping', async () => {
		const result = await runReader(
			sandbox,
			fromItems({
				mapCompanyName: '={{ $json.supplier.name }}',
				mapRegistrationNumber: '={{ $json.supplier.reg }}',
				mapWorkEmail: '={{ $json.contact }}',
				mapReaderReference: '={{ "SUP-" + $json.id }}',
			}),
			{ inputItems: [{ json: { id: 7, supplier: { name: 'Mapped Ltd', reg: 'GB82000001' }, contact: 'ops@mapped.example' } }] },
		);
		expect(uploadedCsv(sandbox.dialect.request, sandbox.control.requests()[0])).toBe(`${HEADER}\r\nMapped Ltd,GB82000001,ops@mapped.example,SUP-7\r\n`);
		expect(result.output(READER)).toEqual(asSaid([
			{
				json: {
					row: 1,
					ok: true,
					check: 'Invitation sent to ops@mapped.example.',
					invitation_id: invitationId('GB82000001'),
					data: data('Mapped Ltd', 'GB82000001', 'ops@mapped.example', 'SUP-7'),
				},
				pairedItem: { item: 0 },
			},
		]));
	});

	it('refuses a mapping that finds no value, naming the item and column, before any request', async () => {
		const result = await runReader(sandbox, fromItems(), {
			inputItems: [
				{ json: { company_name: 'A Ltd', registration_number: 'GB83000001', work_email: 'a@a.example' } },
				{ json: { company_name: 'B Ltd', registration_number: 'GB83000002', email: 'b@b.example' } },
			],
		});
		const error = result.error(READER)!;
		expect(error.message).toBe(
			'The Work Email mapping gives no value: point it at the item\'s field that holds the work email (e.g. {{ $json.work_email }}), or enter an empty text on purpose. [item 1]',
		);
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
		expect(sandbox.control.requests()).toEqual([]);
	});

	it('refuses a mapping that gives a list or object', async () => {
		const result = await runReader(sandbox, fromItems({ mapCompanyName: '={{ $json.names }}' }), {
			inputItems: [{ json: { names: ['A', 'B'], registration_number: 'GB84000001', work_email: 'a@a.example' } }],
		});
		expect(result.error(READER)?.message).toBe('The Company Name mapping gives a list, not text: map it to a single text field. [item 0]');
		expect(sandbox.control.requests()).toEqual([]);
	});

	it('with Continue On Fail, a badly mapped item gets an error item and the others are imported', async () => {
		const result = await runReader(sandbox, fromItems(), {
			continueOnFail: true,
			inputItems: [
				{ json: { company_name: 'Cof One Ltd', registration_number: 'GB85000001', work_email: 'a@cof1.example' } },
				{ json: { company_name: 'Cof Two Ltd', registration_number: 'GB85000002' } },
				{ json: { company_name: 'Cof Three Ltd', registration_number: 'GB85000003', work_email: 'a@cof3.example' } },
			],
		});
		expect(sandbox.control.requests().map((r) => uploadedCsv(sandbox.dialect.request, r))).toEqual([
			`${HEADER}\r\nCof One Ltd,GB85000001,a@cof1.example,\r\nCof Three Ltd,GB85000003,a@cof3.example,\r\n`,
		]);
		expect(result.output(READER)).toEqual(asSaid([
			{
				json: {
					row: 1,
					ok: true,
					check: 'Invitation sent to a@cof1.example.',
					invitation_id: invitationId('GB85000001'),
					data: data('Cof One Ltd', 'GB85000001', 'a@cof1.example', ''),
				},
				pairedItem: { item: 0 },
			},
			{
				json: {
					error:
						'The Work Email mapping gives no value: point it at the item\'s field that holds the work email (e.g. {{ $json.work_email }}), or enter an empty text on purpose. [item 1]',
					description: 'Nothing was sent: fix the mapping and run the node again.',
				},
				pairedItem: { item: 1 },
			},
			{
				json: {
					row: 2,
					ok: true,
					check: 'Invitation sent to a@cof3.example.',
					invitation_id: invitationId('GB85000003'),
					data: data('Cof Three Ltd', 'GB85000003', 'a@cof3.example', ''),
				},
				pairedItem: { item: 2 },
			},
		]));
	});

	it('with Continue On Fail, a failed request gives every item an error item', async () => {
		const result = await runReader(sandbox, fromItems(), {
			continueOnFail: true,
			token: 'svc_wrong_token_for_import',
			inputItems: [
				{ json: { company_name: 'X Ltd', registration_number: 'GB86000001', work_email: 'a@x.example' } },
				{ json: { company_name: 'Y Ltd', registration_number: 'GB86000002', work_email: 'a@y.example' } },
			],
		});
		const output = result.output(READER);
		expect(output.map((item) => [item.json.error, item.pairedItem])).toEqual([
			['The Service rejected the access token (401)', { item: 0 }],
			['The Service rejected the access token (401)', { item: 1 }],
		]);
		expect(JSON.stringify(output)).not.toContain('svc_wrong_token_for_import');
	});
});
