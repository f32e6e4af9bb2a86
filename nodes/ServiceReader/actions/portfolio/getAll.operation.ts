import type { ExportSpec } from '../../exports/description';
import { exportOperation } from '../../exports/operation';

/** The portfolio export: also the company picker's list (methods/listSearch.ts). */
export const PORTFOLIO: ExportSpec = {
	resource: 'portfolio',
	listing: 'portfolio',
	label: 'portfolio export',
	csv: true,
};

/** GET /v1/reader/exports/portfolio: one row per company that shares (tier, status, decision due). */
export const { description, execute } = exportOperation(PORTFOLIO);
