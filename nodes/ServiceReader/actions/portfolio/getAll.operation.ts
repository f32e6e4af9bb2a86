import { listOperation } from '../../helpers/listExport';

/** GET /v1/reader/exports/portfolio: one row per company that shares (tier, status, decision due). */
export const { description, execute } = listOperation({
	resource: 'portfolio',
	listing: 'portfolio',
	label: 'portfolio export',
	csv: true,
});
