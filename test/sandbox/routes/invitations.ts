import type { Route, RouteContext } from '../context';
import { HttpError, sendJson } from '../http';
import { checkImport, existingDuplicate, fieldProblems, importColumns, type InvitationInput } from '../invitationChecks';
import type { Invitation } from '../types';
import { requestObject } from '../jsonApi';
import { canonicalBody, importFile, spokenWords } from '../requestDialect';
import { acceptJob } from './jobs';

/** Days an unanswered invitation stays open. */
const invitationLifetimeDays = 30;

function createInvitation(ctx: RouteContext, input: InvitationInput): Invitation {
	const { state } = ctx.sandbox;
	const invitation: Invitation = {
		id: state.nextId('INV'),
		...input,
		status: 'sent',
		created_at: state.nowIso(),
		updated_at: state.nowIso(),
		expires_on: state.dateInDays(invitationLifetimeDays),
	};
	ctx.reader.invitations.push(invitation);
	return invitation;
}

export const invitationRoutes: Route[] = [
	{
		method: 'POST',
		pattern: /^\/v1\/reader\/invitations$/,
		access: 'reader',
		handler: (ctx) => {
			const request = ctx.sandbox.dialect.request;
			const spoken = (error: HttpError) => new HttpError(error.status, error.code, spokenWords(request, 'invitation', error.message));
			const body = canonicalBody(request, 'invitation', requestObject(ctx, 'invitation'), { status: 422 });
			try {
				invite(ctx, body);
			} catch (error) {
				throw error instanceof HttpError ? spoken(error) : error;
			}
		},
	},
	{
		method: 'POST',
		pattern: /^\/v1\/reader\/invitations\/imports$/,
		access: 'reader',
		handler: (ctx) => {
			const file = importFile(ctx.sandbox.dialect.request, String(ctx.req.headers['content-type'] ?? ''), ctx.body);
			const result = checkImport(file, ctx.reader.invitations);
			if (result.kind === 'unreadable') throw new HttpError(422, 'invalid_import', result.message);
			const rows = result.rows.map(({ input, ...row }) => {
				if (!input) return row;
				return { ...row, invitation_id: createInvitation(ctx, input).id };
			});
			const accepted = rows.filter((r) => r.ok).length;
			const answer = { rows, accepted, refused: rows.length - accepted };
			// Checked at once, answered at once or as a job to follow (the dialect's jobs).
			if (ctx.sandbox.dialect.jobs.import === 'immediate') sendJson(ctx.res, 200, answer);
			else acceptJob(ctx, answer);
		},
	},
];

/** One invitation from a body in the documented names. */
function invite(ctx: RouteContext, body: Record<string, unknown>): void {
	const unknown = Object.keys(body).filter((k) => !(importColumns as readonly string[]).includes(k));
	const problems = unknown.length
		? [`Unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: the fields are ${importColumns.join(', ')}.`]
		: fieldProblems(body);
	if (problems.length === 0) {
		const duplicate = existingDuplicate(body.registration_number as string, ctx.reader.invitations);
		if (duplicate) throw new HttpError(422, 'duplicate_invitation', duplicate);
	}
	if (problems.length) throw new HttpError(422, 'invalid_invitation', problems.join(' '));
	const text = (key: keyof InvitationInput) => ((body[key] as string | undefined) ?? '').trim();
	const invitation = createInvitation(ctx, {
		company_name: text('company_name'),
		registration_number: text('registration_number'),
		work_email: text('work_email'),
		reader_reference: text('reader_reference'),
	});
	sendJson(ctx.res, 201, invitation);
}
