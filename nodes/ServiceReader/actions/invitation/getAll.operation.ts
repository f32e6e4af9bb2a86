import { listOperation } from '../../helpers/listExport';

/** GET /v1/reader/exports/invitations: the reader's invitations with their status. */
export const { description, execute } = listOperation({
	resource: 'invitation',
	listing: 'invitations',
	label: 'invitations export',
	csv: true,
});
