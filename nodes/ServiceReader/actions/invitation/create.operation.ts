import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { serviceRequest } from '../../../shared/transport/serviceRequest';
import { kindOf } from '../../../shared/validation';
import { inputProblem } from '../../helpers/itemInput';

const show = { resource: ['invitation'], operation: ['create'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Company Name',
		name: 'companyName',
		type: 'string',
		required: true,
		default: '',
		description: 'The name of the company to invite',
		displayOptions: { show },
	},
	{
		displayName: 'Registration Number',
		name: 'registrationNumber',
		type: 'string',
		required: true,
		default: '',
		description: 'The company\'s number on the company register',
		displayOptions: { show },
	},
	{
		displayName: 'Work Email',
		name: 'workEmail',
		type: 'string',
		placeholder: 'name@email.com',
		required: true,
		default: '',
		description: 'The work address of a contact at the company (not a personal free-mail address)',
		displayOptions: { show },
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Reader Reference',
				name: 'readerReference',
				type: 'string',
				default: '',
				description: 'Your own reference for the company, e.g. its supplier number',
			},
		],
	},
];

/** POST /v1/reader/invitations with one invitation; the Service checks it and answers in words. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const labels: Record<string, string> = {
		company_name: 'Company Name',
		registration_number: 'Registration Number',
		work_email: 'Work Email',
		reader_reference: 'Reader Reference',
	};
	const text = (name: string, field: string) => {
		const value = this.getNodeParameter(name, itemIndex, '') as unknown;
		if (typeof value === 'number') return String(value);
		if (typeof value === 'string') return value.trim();
		if (value === null || value === undefined) return '';
		// An expression that gives an object or a list is a mapping mistake, not an empty field.
		throw inputProblem.call(this, itemIndex, `${labels[field]} must be text; got ${kindOf(value)}: map it to a single text field`);
	};
	const body: IDataObject = {
		company_name: text('companyName', 'company_name'),
		registration_number: text('registrationNumber', 'registration_number'),
		work_email: text('workEmail', 'work_email'),
	};
	const empty = Object.keys(body).filter((key) => body[key] === '');
	if (empty.length > 0) {
		const names = empty.map((key) => labels[key]);
		throw inputProblem.call(
			this,
			itemIndex,
			`${names.join(', ')} ${names.length > 1 ? 'are' : 'is'} empty: fill ${names.length > 1 ? 'them' : 'it'} in to send the invitation`,
		);
	}
	const reference = text('additionalFields.readerReference', 'reader_reference');
	if (reference !== '') body.reader_reference = reference;

	const answer = await serviceRequest.call(
		this,
		{ method: 'POST', path: '/v1/reader/invitations', body, names: 'invitation' },
		{ itemIndex },
	);
	return [{ json: answer.body as IDataObject }];
}
