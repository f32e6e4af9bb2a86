import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { withAdded } from '../../../shared/addedFields';
import { companyRequest } from '../../helpers/companyShare';
import { parseExtraFields } from '../../helpers/extraFields';
import { keField, keParameter, whenNotSharedOption } from '../../helpers/fields';
import { inputProblem } from '../../helpers/itemInput';

const show = { resource: ['policyRun'], operation: ['create'] };

/** Where the run's statement is listed (spec section 4). */
export const STATEMENT_LOCATION = '/v1/reader/exports/statements';
export const STATEMENT_NOTE =
	'The statement of this run (its findings, never a verdict) is listed at the statements export, /v1/reader/exports/statements: read it with Statement > Get Many and match it by statement_id or run_id.';

export const description: INodeProperties[] = [
	...keField(show, 'The KE of the company whose record your policy runs against'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Extra Fields (JSON)',
				name: 'extraFields',
				type: 'json',
				default: '{}',
				description:
					'More fields to send with the run, as a JSON object, e.g. {"policy": "standard"}. The spec does not list them; ke is set from the KE field.',
			},
			whenNotSharedOption,
		],
	},
];

/**
 * POST /v1/reader/policy-runs with {"ke", ...extra fields}: the run, and where its statement will
 * appear (statement_location and statement_note).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const ke = keParameter.call(this, itemIndex);
	const extra = parseExtraFields(
		'Extra Fields (JSON)',
		this.getNodeParameter('options.extraFields', itemIndex, '{}'),
		['ke'],
	);
	if (!extra.ok) throw inputProblem.call(this, itemIndex, extra.problem);

	const result = await companyRequest.call(
		this,
		itemIndex,
		{ method: 'POST', path: '/v1/reader/policy-runs', body: { ke, ...extra.fields }, names: 'policyRun' },
		{ ke },
	);
	if (!result.shared) return [result.item];
	return [
		{
			// Beside the Service's fields, never instead (addedFields.ts).
			json: withAdded(result.answer.body as IDataObject, {
				statement_location: STATEMENT_LOCATION,
				statement_note: STATEMENT_NOTE,
			}) as IDataObject,
		},
	];
}
