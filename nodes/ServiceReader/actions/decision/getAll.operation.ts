import { exportOperation } from '../../exports/operation';

/** GET /v1/reader/exports/decisions: the reader's own decisions, a paged JSON list. */
export const { description, execute } = exportOperation({
	resource: 'decision',
	listing: 'decisions',
	label: 'decisions export',
	csv: false,
});
