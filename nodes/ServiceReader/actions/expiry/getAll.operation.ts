import { listOperation } from '../../helpers/listExport';

/** GET /v1/reader/exports/expiries: shares, invitations, requests and review dates ending within 30, 60 or 90 days. */
export const { description, execute } = listOperation({
	resource: 'expiry',
	listing: 'expiries',
	label: 'expiries export',
	csv: true,
	window: true,
});
