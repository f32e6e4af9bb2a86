import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { fileNameFromContentDisposition } from '../../../shared/contentDisposition';
import { headerValue } from '../../../shared/transport/serviceRequest';
import { bodyBytes, companyRequest, whenNotSharedOption } from '../common/companyShare';
import { binaryFieldName, pathParameter } from '../common/itemInput';

const show = { resource: ['auditPack'], operation: ['get'] };

export const description: INodeProperties[] = [
	{
		displayName: 'KE',
		name: 'ke',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'KE-1001',
		description: 'The KE of the company the decision is about',
		displayOptions: { show },
	},
	{
		displayName: 'Pack ID',
		name: 'packId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'AP-1001-1',
		description: 'The audit pack\'s pack_id, as in the decisions export',
		displayOptions: { show },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Put Output File in Field',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
				hint: 'The name of the output binary field to put the audit pack in',
			},
			whenNotSharedOption,
		],
	},
];

/**
 * GET /v1/reader/exports/audit-packs/{ke}/{pack_id}: the pack as a binary file with the Service's
 * content type and file name, and what it is in json.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const ke = pathParameter.call(this, itemIndex, 'ke', 'KE');
	const packId = pathParameter.call(this, itemIndex, 'packId', 'Pack ID');
	const fieldName = binaryFieldName.call(
		this,
		itemIndex,
		this.getNodeParameter('options.binaryPropertyName', itemIndex, 'data'),
		'Put Output File in Field',
	);
	const path = `/v1/reader/exports/audit-packs/${encodeURIComponent(ke)}/${encodeURIComponent(packId)}`;
	const result = await companyRequest.call(
		this,
		itemIndex,
		{ method: 'GET', path, response: 'buffer' },
		{
			ke,
			identifiers: { pack_id: packId },
			// README, Assumptions: a 404 coded other than not_shared on this route means no such pack,
			// which must not be mistaken for an ended share (a sync workflow would drop its copies).
			otherNotFound: (code, said) =>
				code !== undefined && code !== 'not_shared'
					? {
							message: `The Service has no audit pack ${packId} for company ${ke} (404)`,
							description: `Take the pack_id from the decisions export (Decision > Get Many).${said}`,
						}
					: undefined,
		},
	);
	if (!result.shared) return [result.item];

	const bytes = bodyBytes(result.answer.body);
	const headers = result.answer.headers;
	const fileName = fileNameFromContentDisposition(headerValue(headers, 'content-disposition')) ?? packId;
	const binary = await this.helpers.prepareBinaryData(bytes, fileName, headerValue(headers, 'content-type'));
	return [
		{
			json: {
				ke,
				pack_id: packId,
				file_name: binary.fileName ?? fileName,
				mime_type: binary.mimeType,
				size: bytes.length,
			},
			binary: { [fieldName]: binary },
		},
	];
}
