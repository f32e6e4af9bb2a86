import { useSandbox } from '../../sandbox/useSandbox';
import { uploadedCsv } from '../../sandbox/requestDialect';
import { READER, runReader } from './helpers';
import { importHelpers } from './importHelpers';

// Invitation > Import from input items: each row paired with its item (the binary file in invitationImport.test.ts).
const sandbox = useSandbox();
const { PATH, uploadType, HEADER, fromItems, invitationId, data, refused, asSaid } = importHelpers(sandbox);

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
