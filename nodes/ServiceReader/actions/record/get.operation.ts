import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { headerValue } from '../../../shared/transport/answer';
import { getServiceSettings } from '../../../shared/transport/serviceRequest';
import { companyRequest } from '../../helpers/companyShare';
import { fileNameFromContentDisposition } from '../../helpers/contentDisposition';
import { keField, keParameter, outputFileField, outputFileOption, whenNotSharedOption, optionsField } from '../../helpers/fields';
import { parseExactJson } from '../../../shared/exactJson';

const show = { resource: ['record'], operation: ['get'] };

export const description: INodeProperties[] = [
	...keField(show, 'The company\'s KE, as webhook events and the portfolio export show it'),
	optionsField(show, [
		outputFileOption(
			'The name of the output binary field to put the signed file in',
			'The signed record is kept byte for byte in this binary field: re-serialising the JSON would break its signature',
		),
		whenNotSharedOption,
	]),
];

/**
 * GET /v1/reader/exports/records/{ke}: the parsed record in json and the exact bytes as a binary
 * .json file. Only the bytes verify; the parsed JSON is for reading fields in the workflow.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const ke = keParameter.call(this, itemIndex);
	const fieldName = outputFileField.call(this, itemIndex);
	const path = `/v1/reader/exports/records/${encodeURIComponent(ke)}`;
	const result = await companyRequest.call(this, itemIndex, { method: 'GET', path, response: 'buffer', download: true }, { ke });
	if (!result.shared) return [result.item];

	const bytes = result.answer.body as Buffer;
	let parsed: unknown;
	try {
		// The BOM, if any, is not part of the JSON text; the stored file keeps it.
		parsed = parseExactJson(bytes.toString('utf8').replace(/^\uFEFF/, ''));
	} catch (error) {
		throw new NodeApiError(this.getNode(), { ke }, {
			message: `The Service's record for ${ke} is not valid JSON`,
			description: `${(error as Error).message}. The Service should answer a signed JSON file (GET ${path}).`,
			itemIndex,
		});
	}
	const json: IDataObject =
		parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as IDataObject) : { record: parsed as IDataObject };
	const ks = typeof json.ks === 'string' ? json.ks : undefined;
	const fileName =
		fileNameFromContentDisposition(headerValue(result.answer.headers, 'content-disposition'), (await getServiceSettings.call(this, itemIndex)).redactFileName) ?? `${ks ?? ke}.json`;
	const mimeType = headerValue(result.answer.headers, 'content-type') ?? 'application/json';
	const binary = await this.helpers.prepareBinaryData(bytes, fileName, mimeType);
	return [{ json, binary: { [fieldName]: binary } }];
}
