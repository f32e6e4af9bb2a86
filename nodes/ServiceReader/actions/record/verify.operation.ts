import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { withAdded } from '../../../shared/addedFields';
import { serviceRequest } from '../../../shared/transport/serviceRequest';
import { binaryFieldName, inputFileBytes, pathParameter } from '../../helpers/itemInput';
import { checkRecordCopy, UnreadableVerification, type VerificationFields } from './copy/recordCopy';

const show = { resource: ['record'], operation: ['verify'] };

export const description: INodeProperties[] = [
	{
		displayName: 'KS',
		name: 'ks',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'KS-1001-v1',
		description: 'The KS of the published report, e.g. the ks field of a record from Record > Get',
		displayOptions: { show },
	},
	{
		displayName: 'Check Copy',
		name: 'checkCopy',
		type: 'boolean',
		default: false,
		description:
			'Whether to also check a copy of the record held in a binary field: its digest (SHA-256, SHA-384 or SHA-512) and the signature (Ed25519, ECDSA P-256/P-384, RSA-PSS or PKCS#1 v1.5) over its exact bytes, with the public key the Service publishes',
		displayOptions: { show },
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field holding the copy of the record to check',
		displayOptions: { show: { ...show, checkCopy: [true] } },
	},
	{
		displayName: 'Verification Fields',
		name: 'verificationFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: "Where the Service's verification holds each part, when the node cannot tell by the values (its error then names the fields). A dotted path such as verification.keys[0].",
		displayOptions: { show: { ...show, checkCopy: [true] } },
		options: [
			{ displayName: 'Digest Field', name: 'digest', type: 'string', default: '', placeholder: 'content_digest' },
			{ displayName: 'Public Key Field', name: 'key', type: 'string', default: '', placeholder: 'public_key_pem' },
			{ displayName: 'Signature Field', name: 'signature', type: 'string', default: '', placeholder: 'signature' },
		],
	},
];

/**
 * GET /v1/public/reports/{ks}/verify: the Service's verification, and optionally whether a copy
 * held in the workflow is the signed file (copy_matches with copy_reason).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const ks = pathParameter.call(this, itemIndex, 'ks', 'KS');
	const checkCopy = this.getNodeParameter('checkCopy', itemIndex, false) === true;
	// The copy is read before the request, so a missing file fails without calling the Service.
	let copy: Buffer | undefined;
	if (checkCopy) {
		const fieldName = binaryFieldName.call(
			this,
			itemIndex,
			this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
			'Input Binary Field',
		);
		copy = await inputFileBytes.call(this, itemIndex, fieldName, 'the copy of the record to check');
	}
	const answer = await serviceRequest.call(
		this,
		{ method: 'GET', path: `/v1/public/reports/${encodeURIComponent(ks)}/verify` },
		{ itemIndex },
	);
	const verification = (answer.body ?? {}) as IDataObject;
	if (!copy) return [{ json: verification }];
	let check;
	try {
		check = checkRecordCopy(copy, verification, verificationFields(this.getNodeParameter('verificationFields', itemIndex, {})));
	} catch (error) {
		if (!(error instanceof UnreadableVerification)) throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
		// No check ran: said as such, never as copy_matches false (which would read as a tampered copy).
		throw new NodeOperationError(this.getNode(), `Check Copy could not read the Service's verification: field ${error.field}`, {
			description: `${error.message}. The copy was not checked. Turn Check Copy off to pass the verification on as it is.`,
			itemIndex,
		});
	}
	// Beside the Service's fields, never instead (addedFields.ts).
	return [{ json: withAdded(verification, { ...check }) as IDataObject }];
}

/** The Verification Fields the user filled in, trimmed; empty ones left out. */
function verificationFields(value: unknown): VerificationFields {
	const fields: VerificationFields = {};
	if (value === null || typeof value !== 'object') return fields;
	for (const role of ['key', 'digest', 'signature'] as const) {
		const path = (value as Record<string, unknown>)[role];
		if (typeof path === 'string' && path.trim() !== '') fields[role] = path.trim();
	}
	return fields;
}
