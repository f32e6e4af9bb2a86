import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { withAdded } from '../../../shared/addedFields';
import { companyRequest } from '../../helpers/companyShare';
import { parseExtraFields } from './extraFields';
import { keField, keParameter, whenNotSharedOption, optionsField } from '../../helpers/fields';
import { inputProblem } from '../../helpers/itemInput';
import { waitForStatement } from './statementWait';

const show = { resource: ['policyRun'], operation: ['create'] };

/** Where the run's statement is listed (spec section 4). */
export const STATEMENT_LOCATION = '/v1/reader/exports/statements';
export const STATEMENT_NOTE =
	'The statement of this run (its findings, never a verdict) is listed at the statements export, /v1/reader/exports/statements: read it with Statement > Get Many and match it by statement_id or run_id.';

export const description: INodeProperties[] = [
	...keField(show, 'The KE of the company whose record your policy runs against'),
	optionsField(show, [
		{
			displayName: 'Extra Fields (JSON)',
			name: 'extraFields',
			type: 'json',
			default: '{}',
			description:
				'More fields to send with the run, as a JSON object, e.g. {"policy": "standard"}. The spec does not list them; ke is set from the KE field.',
		},
		{
			displayName: 'Wait for Statement (Seconds)',
			name: 'statementWait',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 3600 },
			default: 60,
			description:
				'Wait up to this long for the run\'s statement to be listed at the statements export (read every page, again after 1, 2, 4… s), and add it to the output as statement. Without this option the node does not wait; statement_wait says which happened.',
		},
		whenNotSharedOption,
	]),
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
	const run = result.answer.body as IDataObject;
	const boundSeconds = Number(this.getNodeParameter('options.statementWait', itemIndex, 0));
	const waited = Number.isFinite(boundSeconds) && boundSeconds > 0 ? await waitForStatement.call(this, itemIndex, run, boundSeconds * 1000, [ke, ...Object.values(extra.fields)]) : { wait: 'did_not_wait' as const };
	return [
		{
			// Beside the Service's fields, never instead (addedFields.ts).
			json: withAdded(run, {
				statement_location: STATEMENT_LOCATION,
				statement_note: STATEMENT_NOTE,
				// found, gave_up (at the option's bound), did_not_wait, no_identifier or ambiguous: never silent about the statement.
				statement_wait: waited.wait,
				...('statement' in waited && waited.statement ? { statement: waited.statement } : {}),
				...('note' in waited && waited.note ? { statement_wait_note: waited.note } : {}),
			}) as IDataObject,
		},
	];
}
