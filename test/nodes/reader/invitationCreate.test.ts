import { useSandbox } from '../../sandbox/useSandbox';
import { documentedBody } from '../../sandbox/requestDialect';
import { READER, runReader } from './helpers';

const sandbox = useSandbox();

const create = (fields: { companyName: string; registrationNumber: string; workEmail: string; readerReference?: string }) => ({
	resource: 'invitation',
	operation: 'create',
	companyName: fields.companyName,
	registrationNumber: fields.registrationNumber,
	workEmail: fields.workEmail,
	additionalFields: fields.readerReference === undefined ? {} : { readerReference: fields.readerReference },
});

describe('Invitation > Create', () => {
	it('sends one invitation and outputs it as the Service stored it', async () => {
		const result = await runReader(
			sandbox,
			create({ companyName: 'Umbrella Corp', registrationNumber: 'GB55500001', workEmail: 'buyer@umbrella.example', readerReference: 'U-1' }),
		);

		const stored = sandbox.control.invitations().find((i) => i.registration_number === 'GB55500001')!;
		expect(result.output(READER)).toEqual([{ json: { ...stored }, pairedItem: { item: 0 } }]);
		expect(stored).toMatchObject({ company_name: 'Umbrella Corp', work_email: 'buyer@umbrella.example', reader_reference: 'U-1', status: 'sent' });
		const [request] = sandbox.control.requests();
		expect([request.method, request.path, request.reader, request.status]).toEqual(['POST', '/v1/reader/invitations', 'reader', 201]);
		expect(documentedBody(sandbox.dialect.request, 'invitation', request.body)).toEqual({
			company_name: 'Umbrella Corp',
			registration_number: 'GB55500001',
			work_email: 'buyer@umbrella.example',
			reader_reference: 'U-1',
		});
		expect(sandbox.control.accessLog()).toEqual([]);
	});

	it('leaves the reader reference out when it is not set', async () => {
		await runReader(sandbox, create({ companyName: 'Wayne Ltd', registrationNumber: 'GB55500002', workEmail: 'a@wayne.example' }));
		expect(documentedBody(sandbox.dialect.request, 'invitation', sandbox.control.requests()[0].body)).toEqual({
			company_name: 'Wayne Ltd',
			registration_number: 'GB55500002',
			work_email: 'a@wayne.example',
		});
	});

	it('a duplicate of an existing invitation fails with the Service\'s words', async () => {
		const result = await runReader(sandbox, create({ companyName: 'Northwind', registrationNumber: 'GB10000001', workEmail: 'x@northwind.example' }));
		const error = result.error(READER)!;
		expect(error.message).toBe(
			'The Service refused the request (422): An invitation for registration number GB10000001 already exists (INV-0001, status sent): it was not sent again.',
		);
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(0);
		expect(sandbox.control.requests().map((r) => r.status)).toEqual([422]);
	});

	it('a personal free-mail address fails with the Service\'s words', async () => {
		const result = await runReader(sandbox, create({ companyName: 'Free Ltd', registrationNumber: 'GB55500003', workEmail: 'someone@gmail.com' }));
		expect(result.error(READER)?.message).toBe(
			'The Service refused the request (422): The work email "someone@gmail.com" is a personal free-mail address (gmail.com): use the contact\'s work address at the company.',
		);
	});

	it('refuses empty required fields before any request, naming them and the item', async () => {
		const result = await runReader(
			sandbox,
			create({ companyName: '={{ $json.name }}', registrationNumber: '={{ $json.number }}', workEmail: 'a@b.example' }),
			{ inputItems: [{ json: { name: 'Fine Ltd', number: 'GB1' } }, { json: { name: ' ', number: '' } }] },
		);
		expect(result.error(READER)?.message).toBe(
			'Company Name, Registration Number are empty: fill them in to send the invitation [item 1]',
		);
		expect(sandbox.control.requests().map((r) => r.status)).toEqual([201]);
	});
});
