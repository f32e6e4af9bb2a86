import { exportOperation } from '../../exports/operation';

/** GET /v1/reader/exports/expiries: shares, invitations, requests and review dates ending within 30, 60 or 90 days. */
export const { description, execute } = exportOperation({
	resource: 'expiry',
	listing: 'expiries',
	label: 'expiries export',
	csv: true,
	window: true,
});
