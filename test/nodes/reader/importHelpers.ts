import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { shapeAnswer } from '../../sandbox/answerShapes';
import type { Sandbox } from '../../sandbox';
import { fileItem } from './helpers';

/** What the Invitation > Import tests share, over the sandbox of the test file. */
export function importHelpers(sandbox: Sandbox) {
	const PATH = '/v1/reader/invitations/imports';
	/** The content type of an upload as the dialect's user sets Import Upload: the CSV itself, or a form holding it. */
	const uploadType = () => sandbox.dialect.request.importUpload.form === 'csv' ? 'text/csv; charset=utf-8' : expect.stringMatching(/^multipart\/form-data; boundary=\S+$/);
	const HEADER = 'company_name,registration_number,work_email,reader_reference';
	const COLUMNS = 'company_name,registration_number,work_email,reader_reference';
	const fromFile = (extra: Record<string, unknown> = {}) => ({ resource: 'invitation', operation: 'import', source: 'binaryFile', ...extra });
	const fromItems = (extra: Record<string, unknown> = {}) => ({ resource: 'invitation', operation: 'import', source: 'inputItems', ...extra });
	const csvItem = (text: string | Buffer) => fileItem(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'), 'invitations.csv', 'text/csv');
	const invitationId = (registrationNumber: string) =>
		sandbox.control.invitations().find((i) => i.registration_number === registrationNumber)!.id;
	const data = (company_name: string, registration_number: string, work_email: string, reader_reference: string) => ({
		company_name,
		registration_number,
		work_email,
		reader_reference,
	});
	const refused = (row: number, check: string, rowData: Record<string, string>, item: number): INodeExecutionData => ({
		json: { row, ok: false, check, data: rowData },
		pairedItem: { item },
	});
	/**
	 * Expected items with every field the Service sent for each row beside the node's own: the row as the
	 * sandbox's dialect words it (the default dialect's row is the node's fields already).
	 */
	const asSaid = (items: INodeExecutionData[]): INodeExecutionData[] =>
		items.map((item) => {
			if (item.json.row === undefined) return item;
			const worded = sandbox.dialect.answer('POST', PATH, { rows: [item.json], accepted: 0, refused: 0 });
			const shaped = shapeAnswer(sandbox.dialect.answers, 'POST', PATH, worded);
			const answer = ('json' in shaped ? shaped.json : worded) as Record<string, unknown>;
			const [said] = Object.values(answer).find(Array.isArray) as IDataObject[];
			return { ...item, json: { ...said, ...item.json } };
		});
	return { PATH, uploadType, HEADER, COLUMNS, fromFile, fromItems, csvItem, invitationId, data, refused, asSaid };
}
