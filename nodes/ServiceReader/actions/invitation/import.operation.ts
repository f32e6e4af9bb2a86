import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ImportAnswerRow, ImportRow } from './import/invitationImport';
import {
	buildImportCsv,
	IMPORT_COLUMNS,
	ImportAnswerError,
	mappedCell,
	matchImportAnswer,
	readImportFile,
} from './import/invitationImport';
import { withAdded } from '../../../shared/addedFields';
import { serviceRequest } from '../../../shared/transport/serviceRequest';
import { binaryFieldName, inputFileBytes, inputProblem } from '../../helpers/itemInput';

const show = { resource: ['invitation'], operation: ['import'] };
const PATH = '/v1/reader/invitations/imports';
const CSV_TYPE = 'text/csv; charset=utf-8';
/** The file's name in a multipart upload (Import Upload: Multipart Form). */
const FILE_NAME = 'invitations.csv';

/** Mapping parameter of each CSV column (Input Items source). */
const MAPPING_PARAMETERS: Record<(typeof IMPORT_COLUMNS)[number], string> = {
	company_name: 'mapCompanyName',
	registration_number: 'mapRegistrationNumber',
	work_email: 'mapWorkEmail',
	reader_reference: 'mapReaderReference',
};

const showItems = { show: { ...show, source: ['inputItems'] } };

export const description: INodeProperties[] = [
	{
		displayName: 'Source',
		name: 'source',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Binary File',
				value: 'binaryFile',
				description: 'A CSV file in a binary field of each input item; each file is one import',
			},
			{
				name: 'Input Items',
				value: 'inputItems',
				description: 'One CSV built from all input items, one row per item, with the column mapping below',
			},
		],
		default: 'binaryFile',
		description: 'Where the rows to import come from',
		displayOptions: { show },
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field holding the CSV file',
		description:
			'The file needs the header company_name,registration_number,work_email,reader_reference and one row per company',
		displayOptions: { show: { ...show, source: ['binaryFile'] } },
	},
	{
		displayName:
			'Each input item becomes one row. The Service checks every row and answers it in words: route refused rows with an IF on ok.',
		name: 'mappingNotice',
		type: 'notice',
		default: '',
		displayOptions: showItems,
	},
	{
		displayName: 'Company Name',
		name: MAPPING_PARAMETERS.company_name,
		type: 'string',
		required: true,
		default: '={{ $json.company_name }}',
		description: 'The company name of the row, usually an expression reading a field of the item',
		displayOptions: showItems,
	},
	{
		displayName: 'Registration Number',
		name: MAPPING_PARAMETERS.registration_number,
		type: 'string',
		required: true,
		default: '={{ $json.registration_number }}',
		description: 'The company\'s number on the company register, usually an expression reading a field of the item',
		displayOptions: showItems,
	},
	{
		displayName: 'Work Email',
		name: MAPPING_PARAMETERS.work_email,
		type: 'string',
		required: true,
		default: '={{ $json.work_email }}',
		description: 'The work address of a contact at the company, usually an expression reading a field of the item',
		displayOptions: showItems,
	},
	{
		displayName: 'Reader Reference',
		name: MAPPING_PARAMETERS.reader_reference,
		type: 'string',
		default: '={{ $json.reader_reference }}',
		description: 'Your own reference for the company; left empty when the item has no such field',
		displayOptions: showItems,
	},
];

/** One output item per row: the Service's check in words, the invitation id when accepted, and the row's data. */
function rowJson(answer: ImportAnswerRow, sent: Record<string, string> | undefined): IDataObject {
	// Every field the Service sent for the row, with the node's own beside them, never instead (addedFields.ts).
	return withAdded(answer.said, {
		row: answer.row,
		ok: answer.ok,
		check: answer.check,
		...(answer.invitation_id !== undefined ? { invitation_id: answer.invitation_id } : {}),
		data: (answer.data ?? sent ?? {}) as IDataObject,
	}) as IDataObject;
}

/** The Service's rows, one per row sent; a row without an answer fails the import in words. */
function answeredRows(
	this: IExecuteFunctions,
	body: unknown,
	sent: number,
	countIsLowerBound: boolean,
	itemOfRow: (row: number) => number,
): ImportAnswerRow[] {
	try {
		return matchImportAnswer(body, sent, countIsLowerBound);
	} catch (error) {
		const note = (body as { _reader?: { job?: unknown; job_note?: unknown } } | undefined)?._reader;
		if (note?.job === 'not_followed') {
			// Accepted: the rows may be invited already, so the import is said as done but unanswered, never as refused.
			throw new NodeApiError(this.getNode(), { rows: sent } as JsonObject, {
				message: 'The Service accepted the import (202), but its rows\' answers could not be awaited',
				description: `${String(note.job_note)} Check the invitations export before importing these rows again.`,
				itemIndex: itemOfRow(1),
			});
		}
		const problem =
			error instanceof ImportAnswerError
				? error
				: new ImportAnswerError(`The Service's answer could not be read as rows: ${error instanceof Error ? error.message : String(error)}`);
		throw new NodeApiError(this.getNode(), { rows: sent } as JsonObject, {
			message: 'The Service did not answer every row of the import',
			description: problem.message,
			itemIndex: itemOfRow(problem.firstUnanswered ?? 1),
		});
	}
}

/** Binary File source: one import per input item, one output item per row of its file. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const fieldName = binaryFieldName.call(
		this,
		itemIndex,
		this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
		'Input Binary Field',
	);
	const bytes = await inputFileBytes.call(this, itemIndex, fieldName, 'the CSV file to import');
	// Counted here so a row the Service leaves unanswered is noticed; the bytes go as they are.
	const file = readImportFile(bytes);
	const answer = await serviceRequest.call(
		this,
		{ method: 'POST', path: PATH, upload: { bytes, fileName: FILE_NAME, contentType: CSV_TYPE } },
		{ itemIndex },
	);
	const rows = answeredRows.call(this, answer.body, file.count, file.unreadableFrom !== undefined, () => itemIndex);
	return rows.map((row) => ({ json: rowJson(row, file.rows[row.row - 1]) }));
}

/** The row of one input item from the column mapping, or a clear error naming the item and column. */
function mappedRow(this: IExecuteFunctions, itemIndex: number): ImportRow {
	const row = {} as ImportRow;
	for (const column of IMPORT_COLUMNS) {
		const cell = mappedCell(column, this.getNodeParameter(MAPPING_PARAMETERS[column], itemIndex, undefined));
		if (!cell.ok) throw inputProblem.call(this, itemIndex, cell.problem, 'Nothing was sent: fix the mapping and run the node again.');
		row[column] = cell.value;
	}
	return row;
}

/** Errors from this operation are already n8n errors; anything else is wrapped so it names the item. */
function nodeError(this: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(this.getNode(), error as Error, { itemIndex });
}

function errorItem(error: Error & { description?: string }, itemIndex: number): INodeExecutionData {
	return {
		json: { error: error.message, ...(error.description ? { description: error.description } : {}) },
		pairedItem: { item: itemIndex },
	};
}

/**
 * Input Items source: all items become one CSV and one request; each row's output item is paired
 * with the input item it came from. Returns undefined for the Binary File source (one import per item).
 */
/** With Source: Input Items, every item is a row of one CSV: one request for all of them. */
export const batch = {
	applies(this: IExecuteFunctions): boolean {
		return this.getNodeParameter('source', 0, 'binaryFile') === 'inputItems';
	},
	execute: importFromItems,
};

async function importFromItems(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	const rows: ImportRow[] = [];
	const itemOfRow: number[] = [];
	const output: INodeExecutionData[] = [];

	// Every mapping is checked before the request, so a bad item stops the import with nothing sent.
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			rows.push(mappedRow.call(this, itemIndex));
			itemOfRow.push(itemIndex);
		} catch (error) {
			if (!this.continueOnFail()) throw nodeError.call(this, error, itemIndex);
			output.push(errorItem(error, itemIndex));
		}
	}

	if (rows.length > 0) {
		try {
			const answer = await serviceRequest.call(
				this,
				{ method: 'POST', path: PATH, upload: { bytes: Buffer.from(buildImportCsv(rows), 'utf8'), fileName: FILE_NAME, contentType: CSV_TYPE } },
				{ itemIndex: itemOfRow[0] },
			);
			const answered = answeredRows.call(this, answer.body, rows.length, false, (row) => itemOfRow[row - 1]);
			answered.forEach((row, k) => {
				output.push({ json: rowJson(row, rows[k]), pairedItem: { item: itemOfRow[k] } });
			});
		} catch (error) {
			if (!this.continueOnFail()) throw nodeError.call(this, error, itemOfRow[0]);
			// The one request failed for every row it carried: each of their items gets the error.
			for (const itemIndex of itemOfRow) output.push(errorItem(error, itemIndex));
		}
	}
	const pairedIndex = (item: INodeExecutionData) => (item.pairedItem as { item: number }).item;
	return output.sort((a, b) => pairedIndex(a) - pairedIndex(b));
}
