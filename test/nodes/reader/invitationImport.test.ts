import { useSandbox } from '../../sandbox/useSandbox';
import { uploadedCsv } from '../../sandbox/requestDialect';
import { fileItem, READER, runReader } from './helpers';
import { importHelpers } from './importHelpers';

// Invitation > Import from a binary file: every row answered, a refused one with the Service's words (items in importInputItems.test.ts).
const sandbox = useSandbox();
const { PATH, uploadType, HEADER, COLUMNS, fromFile, csvItem, invitationId, data, refused, asSaid } = importHelpers(sandbox);

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
