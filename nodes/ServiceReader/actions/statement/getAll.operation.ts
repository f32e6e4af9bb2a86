import { listOperation } from '../../helpers/listExport';

/** GET /v1/reader/exports/statements: the statements of the reader's policy runs, a paged JSON list. */
export const { description, execute } = listOperation({
	resource: 'statement',
	listing: 'statements',
	label: 'statements export',
	csv: false,
});
