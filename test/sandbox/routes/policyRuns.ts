import type { Route } from '../context';
import { HttpError, sendJson } from '../http';
import { findingsFor } from '../records';
import type { PolicyRun, Statement } from '../types';
import { notShared } from './exports';
import { requestObject } from '../jsonApi';
import { canonicalBody, nameFor } from '../requestDialect';
import { listLater } from '../jobs';

export const policyRunRoutes: Route[] = [
	{
		method: 'POST',
		pattern: /^\/v1\/reader\/policy-runs$/,
		access: 'reader',
		handler: (ctx) => {
			const request = ctx.sandbox.dialect.request;
			const { ke, ...parameters } = canonicalBody(request, 'policyRun', requestObject(ctx, 'policyRun'), { status: 422 });
			if (typeof ke !== 'string' || ke.trim() === '') {
				throw new HttpError(422, 'invalid_policy_run', `Send the company as "${nameFor(request, 'policyRun.ke')}": the KE of a company that shares with you.`);
			}
			const { state } = ctx.sandbox;
			if (!state.isShared(ctx.reader.key, ke)) throw notShared(ke, ctx.sandbox.dialect);
			const company = state.company(ke);
			const runId = state.nextId('RUN');
			const statement: Statement = {
				id: state.nextId('STM'),
				run_id: runId,
				ke,
				// Findings only: the decision stays with the reader.
				findings: [
					...findingsFor(company),
					...(typeof parameters.policy === 'string'
						? [{ code: 'policy_applied', text: `Checked against the reader's policy "${parameters.policy}".` }]
						: []),
				],
				created_at: state.nowIso(),
			};
			const run: PolicyRun = {
				id: runId, ke, status: 'completed', statement_id: statement.id, created_at: statement.created_at, parameters,
			};
			ctx.reader.policyRuns.push(run);
			const { jobs } = ctx.sandbox.dialect;
			if (jobs.policyRun === 'running') {
				// Accepted running: the statement is listed a little later, and the answer does not name it yet.
				listLater(ctx.reader, statement, jobs.statementAfterReads);
				return sendJson(ctx.res, 201, { id: run.id, ke: run.ke, status: 'running', created_at: run.created_at });
			}
			if (jobs.policyRun === 'acceptedNoJob') {
				// Accepted, pointing at the run where nothing is served: the run was made all the same.
				listLater(ctx.reader, statement, jobs.statementAfterReads);
				return sendJson(ctx.res, 202, { id: run.id, ke: run.ke, status: 'accepted' }, { Location: `/v1/reader/policy-runs/${run.id}` });
			}
			ctx.reader.statements.push(statement);
			sendJson(ctx.res, 201, { id: run.id, ke: run.ke, status: run.status, statement_id: run.statement_id, created_at: run.created_at });
		},
	},
];
