import { exportOperation } from '../../exports/operation';

/** GET /v1/reader/exports/portfolio: one row per company that shares (tier, status, decision due). */
export const { description, execute } = exportOperation({
	resource: 'portfolio',
	listing: 'portfolio',
	label: 'portfolio export',
	csv: true,
});
