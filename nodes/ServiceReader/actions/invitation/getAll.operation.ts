import { exportOperation } from '../../exports/operation';

/** GET /v1/reader/exports/invitations: the reader's invitations with their status. */
export const { description, execute } = exportOperation({
	resource: 'invitation',
	listing: 'invitations',
	label: 'invitations export',
	csv: true,
});
