import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { discardBody } from '../../shared/transport/body';
import { describeServiceError, readErrorBody } from '../../shared/transport/errors';
import { NOT_SHARED_STATUSES, notSharedMeaning } from './shareStatus';
import type { ServiceAnswer, ServiceCall } from '../../shared/transport/serviceRequest';
import { serviceRequest } from '../../shared/transport/serviceRequest';

export type CompanyAnswer = { shared: true; answer: ServiceAnswer } | { shared: false; item: INodeExecutionData };

export interface CompanyCallOptions {
	ke: string;
	/** Extra identifiers for the `{ ke, shared: false }` item, e.g. pack_id. */
	identifiers?: IDataObject;
	/**
	 * For routes that can also answer 404 for another reason (no such audit pack): the words for
	 * it. A 404 that does not itself say "not shared" is then settled by asking the company's record
	 * route (one extra request, only on a 404), never guessed from an error code the spec does not show.
	 */
	notFoundElse?: { message: string; description: string };
}

/**
 * One request to a company route (record export, audit pack, policy run). These answer 404 when
 * the company does not share with the reader: the share ended, was revoked or was never granted
 * (spec sections 3 and 7); others say it with 410, or a 403 whose words say so (shareStatus.ts). That
 * answer becomes either an error in words or a `{ ke, shared: false }` item, as the operation's
 * Options > When Company Does Not Share says.
 */
export async function companyRequest(
	this: IExecuteFunctions,
	itemIndex: number,
	call: ServiceCall,
	options: CompanyCallOptions,
): Promise<CompanyAnswer> {
	const whenNotShared = this.getNodeParameter('options.whenNotShared', itemIndex, 'stop') as string;
	const answer = await serviceRequest.call(this, call, { itemIndex, allowStatuses: [...NOT_SHARED_STATUSES] });
	const status = answer.statusCode;
	if (!(NOT_SHARED_STATUSES as readonly number[]).includes(status)) return { shared: true, answer };

	const { code, message } = readErrorBody(answer.body);
	const said = message ? ` The Service said: "${message}"` : '';
	const meaning = notSharedMeaning(status, code, message);
	if (meaning === 'other') {
		// A 403 for the token's rights, not the share: the error it would have been (the body is redacted already).
		const words = describeServiceError(status, answer.body);
		throw new NodeApiError(this.getNode(), { status, code: code ?? null } as JsonObject, {
			message: words.message,
			description: `${words.description} (${call.method} ${call.path})`,
			httpCode: String(status),
			itemIndex,
		});
	}
	const other = options.notFoundElse;
	if (other && meaning === 'maybe' && (await stillShares.call(this, options.ke, itemIndex))) {
		throw new NodeApiError(this.getNode(), { status, code: code ?? null } as JsonObject, {
			message: other.message.replace('(404)', `(${status})`),
			description: `${other.description} The company still shares with you.${said} (${call.method} ${call.path})`,
			httpCode: String(status),
			itemIndex,
		});
	}
	if (whenNotShared === 'outputItem') {
		return { shared: false, item: { json: { ke: options.ke, ...options.identifiers, shared: false } } };
	}
	throw new NodeApiError(this.getNode(), { status, code: code ?? null } as JsonObject, {
		message: `Company ${options.ke} does not share with this reader (${status}): the share may have ended`,
		description:
			`The share of ${options.ke} was revoked, ended or never granted. Delete or mark the copies you hold of its data; ` +
			`to do that in the workflow, set Options > When Company Does Not Share to Output Item ({ ke, shared: false }).${said} (${call.method} ${call.path})`,
		httpCode: String(status),
		itemIndex,
	});
}

/** Whether the company's record route still answers for `ke`: the one route whose 404 means only "not shared". */
async function stillShares(this: IExecuteFunctions, ke: string, itemIndex: number): Promise<boolean> {
	const answer = await serviceRequest.call(
		this,
		{ method: 'GET', path: `/v1/reader/exports/records/${encodeURIComponent(ke)}`, response: 'stream', download: true },
		{ itemIndex, allowStatuses: [404, 410] },
	);
	discardBody(answer.body);
	return answer.statusCode !== 404 && answer.statusCode !== 410;
}
