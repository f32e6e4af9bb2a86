import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { credentialName, credentialSecrets } from '../../shared/transport/credentialKind';
import { getServiceSettings } from '../../shared/transport/serviceRequest';
import { PORTFOLIO } from '../actions/portfolio/getAll.operation';
import { csvLineDigests, exportPaging, pageFetcher } from '../../shared/transport/pageFetch';
import { cursorSentWords, pageQuery, pageSum } from '../../shared/paging';
import { sealText, unsealText } from '../../shared/seal';
import { companyChoices, decodePickerToken, encodePickerToken } from './portfolioCompanies';
import { csvPageRead } from '../../shared/csvText';

const PICKER_INFO = 'n8n-nodes-service-reader/ke-picker-pagination/v1';

/**
 * The KE picker's From List: the companies that share with the reader, one portfolio export page
 * (CSV) per call, so a large portfolio is never read at once. n8n asks again with the returned
 * pagination token, which carries the Service's cursor, when the user scrolls down the list. The token
 * goes to the browser sealed under the access token (../../shared/seal.ts), bound to the Base URL: the
 * browser never sees the Service's cursor or header cells, and a token from elsewhere is refused.
 * A company whose share ended is not in the export, so it is not offered.
 */
export async function searchCompanies(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const settings = await getServiceSettings.call(this);
	// Sealed under the Access Token, or the OAuth2 Client Secret (its tokens change within a search).
	const accessToken = credentialSecrets(await this.getCredentials(credentialName(this))).sealKey;
	const opened = paginationToken ? unsealText(paginationToken, accessToken, settings.baseUrl, PICKER_INFO) : undefined;
	const from = opened === undefined ? undefined : decodePickerToken(opened);
	if (paginationToken && from === undefined) {
		throw new NodeOperationError(this.getNode(), 'The company list cannot go on from where it was: search again');
	}
	const paging = exportPaging(settings, { format: 'csv' });
	const fetchPage = pageFetcher.call(this, PORTFOLIO.listing, { settings, itemIndex: 0 }, 'buffer');
	const page = from?.page ?? 1;
	const answer = await fetchPage({ page, cursor: from?.cursor, qs: pageQuery(paging, from?.cursor) });

	// The first page again (a cursor the Service did not read, Send Cursor As): said, never offered twice.
	const csv = { header: from?.headerLine === undefined ? undefined : Buffer.from(from.headerLine, 'base64url') };
	const rows = Buffer.isBuffer(answer.content) ? csvLineDigests(answer.content, page, csv) : Buffer.alloc(0);
	const sum = rows.length > 0 ? pageSum(rows) : undefined;
	if (from?.first !== undefined && sum === from.first) {
		throw new NodeOperationError(this.getNode(), `Page ${page} of the ${PORTFOLIO.label} repeated the companies of page 1, so the Service did not read the cursor: check Send Cursor As`, {
			description: cursorSentWords(settings.cursorParameter, settings.cursorHeader),
		});
	}
	let read: ReturnType<typeof companyChoices>;
	try {
		// Decoded by its charset; a sep= line gives (or must agree with) the delimiter (csvText.ts).
		const holder = { delimiter: from?.delimiter ?? (settings.csvDelimiter === 'auto' ? undefined : settings.csvDelimiter) };
		const text = settings.redact(csvPageRead(answer.content as Buffer, answer.contentType, holder));
		const reading = { delimiter: holder.delimiter ?? settings.csvDelimiter, headerRepeat: settings.csvHeaderRepeat };
		read = companyChoices(text, reading, from, filter);
	} catch (error) {
		throw new NodeOperationError(this.getNode(), `Page ${page} of the ${PORTFOLIO.label} cannot be read as CSV, so its companies cannot be listed`, {
			description: `${(error as Error).message}. Enter the KE By KE instead, or check CSV Delimiter under Advanced Settings in the Service API credential.`,
		});
	}
	const next = answer.nextCursor;
	// A cursor handed back unchanged would offer the same page for ever.
	const more = next !== undefined && next !== '' && next !== from?.cursor;
	return {
		results: read.choices,
		paginationToken: more
			? sealText(
					encodePickerToken({
						cursor: next,
						page: page + 1,
						header: read.header,
						delimiter: read.delimiter,
						...(read.ke === undefined ? {} : { ke: read.ke }),
						...((from?.first ?? (page === 1 ? sum : undefined)) === undefined ? {} : { first: from?.first ?? sum }),
						...(csv.header === undefined ? {} : { headerLine: csv.header.toString('base64url') }),
					}),
					accessToken,
					settings.baseUrl,
					PICKER_INFO,
				)
			: undefined,
	};
}
