import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { headerValue } from '../../../shared/transport/answer';
import { BodyReadError } from '../../../shared/transport/body';
import { getServiceSettings } from '../../../shared/transport/serviceRequest';
import { companyRequest } from '../../helpers/companyShare';
import { fileNameFromContentDisposition } from '../../helpers/contentDisposition';
import { keField, keParameter, outputFileField, outputFileOption, whenNotSharedOption, optionsField } from '../../helpers/fields';
import { pathParameter } from '../../helpers/itemInput';

const show = { resource: ['auditPack'], operation: ['get'] };

export const description: INodeProperties[] = [
	...keField(show, 'The KE of the company the decision is about'),
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
	optionsField(show, [
		outputFileOption('The name of the output binary field to put the audit pack in'),
		whenNotSharedOption,
	]),
];

/**
 * GET /v1/reader/exports/audit-packs/{ke}/{pack_id}: the pack as a binary file with the Service's
 * content type and file name, and what it is in json.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const ke = keParameter.call(this, itemIndex);
	const packId = pathParameter.call(this, itemIndex, 'packId', 'Pack ID');
	const fieldName = outputFileField.call(this, itemIndex);
	const path = `/v1/reader/exports/audit-packs/${encodeURIComponent(ke)}/${encodeURIComponent(packId)}`;
	const result = await companyRequest.call(
		this,
		itemIndex,
		{ method: 'GET', path, response: 'stream', download: true },
		{
			ke,
			identifiers: { pack_id: packId },
			notFoundElse: {
				message: `The Service has no audit pack ${packId} for company ${ke} (404)`,
				description: 'Take the pack_id from the decisions export (Decision > Get Many).',
			},
		},
	);
	if (!result.shared) return [result.item];

	const headers = result.answer.headers;
	const fileName = fileNameFromContentDisposition(headerValue(headers, 'content-disposition'), (await getServiceSettings.call(this, itemIndex)).redactFileName) ?? packId;
	// Streamed into n8n's binary data: a pack of any size never sits in memory whole.
	const body = result.answer.body as Parameters<typeof this.helpers.prepareBinaryData>[0];
	let binary;
	try {
		binary = await this.helpers.prepareBinaryData(body, fileName, headerValue(headers, 'content-type'));
	} catch (error) {
		const tooLarge = error instanceof BodyReadError && error.kind === 'too-large';
		throw new NodeOperationError(this.getNode(), `Audit pack ${packId} could not be downloaded whole: ${(error as Error).message}`, {
			itemIndex,
			description: tooLarge
				? 'No file was passed on. If the pack really is that large, raise Max File Size under Advanced Settings in the Service API credential.'
				: 'No file was passed on. Run the node again; if the Service is just slow, raise Request Timeout under Advanced Settings in the Service API credential.',
		});
	}
	return [
		{
			json: {
				ke,
				pack_id: packId,
				file_name: binary.fileName ?? fileName,
				mime_type: binary.mimeType,
				size: binary.bytes,
			},
			binary: { [fieldName]: binary },
		},
	];
}
