/**
 * Fields several operations share: the company's KE, the option naming the binary field an
 * operation's one output file goes into, and what to do when a company does not share. Each
 * operation says in its own words what they are for.
 */
import type { IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { SAFE_SEGMENT_PATTERN } from '../../shared/validation';
import { binaryFieldName, pathParameter } from './itemInput';

/**
 * The KE field: plain text in version 1 (existing workflows keep it), a company picker in version 2
 * (From List: the companies that share, searched by name or KE; By KE: typed).
 */
export function keField(show: IDisplayOptions['show'], description: string): INodeProperties[] {
	return [
		{
			displayName: 'KE',
			name: 'ke',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'KE-1001',
			description,
			displayOptions: { show: { ...show, '@version': [1] } },
		},
		{
			displayName: 'KE',
			name: 'ke',
			type: 'resourceLocator',
			required: true,
			default: { mode: 'list', value: '' },
			description,
			displayOptions: { show: { ...show, '@version': [{ _cnd: { gte: 2 } }] } },
			modes: [
				{
					displayName: 'From List',
					name: 'list',
					type: 'list',
					placeholder: 'Select a company...',
					typeOptions: { searchListMethod: 'searchCompanies', searchable: true },
				},
				{
					displayName: 'By KE',
					name: 'id',
					type: 'string',
					placeholder: 'KE-1001',
					validation: [
						{
							type: 'regex',
							// Surrounding spaces are trimmed when the node runs.
							properties: { regex: `\\s*${SAFE_SEGMENT_PATTERN}\\s*`, errorMessage: 'Not a KE: use only letters, digits, ".", "_" and "-"' },
						},
					],
				},
			],
		},
	];
}

/** The KE of the item, checked and trimmed (it goes into the request path): typed (v1) or picked (v2). */
export function keParameter(this: IExecuteFunctions, itemIndex: number): string {
	return pathParameter.call(this, itemIndex, 'ke', 'KE');
}

const OUTPUT_FILE_LABEL = 'Put Output File in Field';

/** For an operation's Options collection. */
export function outputFileOption(hint: string, description?: string): INodeProperties {
	return {
		displayName: OUTPUT_FILE_LABEL,
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		hint,
		...(description === undefined ? {} : { description }),
	};
}

/** The value of `outputFileOption` for the item, or a clear error when it is empty. */
export function outputFileField(this: IExecuteFunctions, itemIndex: number): string {
	return binaryFieldName.call(this, itemIndex, this.getNodeParameter('options.binaryPropertyName', itemIndex, 'data'), OUTPUT_FILE_LABEL);
}

/** Lets a sync workflow mark or delete its copies when a company no longer shares, instead of stopping. */
export const whenNotSharedOption: INodeProperties = {
	displayName: 'When Company Does Not Share',
	name: 'whenNotShared',
	type: 'options',
	options: [
		{
			name: 'Output Item',
			value: 'outputItem',
			description: 'Output the KE with shared set to false, so the workflow can delete or mark its copies',
		},
		{
			name: 'Stop With Error',
			value: 'stop',
			description: 'Fail the item with an error saying the share may have ended',
		},
	],
	default: 'stop',
	description:
		'What to do when the Service answers that the company does not share with you (404): its share ended, was revoked or was never granted',
};

/** An operation's Options collection, shown for that operation only. */
export function optionsField(show: IDisplayOptions['show'], options: INodeProperties[]): INodeProperties {
	return { displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add Option', default: {}, displayOptions: { show }, options };
}
