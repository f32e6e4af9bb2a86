import { exportOperation } from '../../exports/operation';

/** GET /v1/reader/exports/statements: the statements of the reader's policy runs, a paged JSON list. */
export const { description, execute } = exportOperation({
	resource: 'statement',
	listing: 'statements',
	label: 'statements export',
	csv: false,
});
