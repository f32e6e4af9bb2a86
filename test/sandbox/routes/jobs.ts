import type { ServerResponse } from 'node:http';

import type { Route, RouteContext } from '../context';
import { shapeAnswer } from '../answerShapes';
import { HttpError, sendJson, wordAnswers } from '../http';
import { jobPath, jobsOf, type JobAnswers, type SandboxJob } from '../jobs';

const IMPORT_PATH = '/v1/reader/invitations/imports';

/** The job's URL as the dialect gives it: a path on this origin, or the same server named `localhost` (another origin). */
function jobUrl(ctx: RouteContext, path: string): string {
	// Signed as object stores and job queues sign theirs: the query is never to be shown.
	const signed = `${path}?sig=${JOB_SIGNATURE}`;
	return ctx.sandbox.dialect.jobs.origin === 'other' ? `https://localhost:${ctx.req.socket.localPort}${signed}` : signed;
}

export const JOB_SIGNATURE = 'job-signature-s3cr3t';

const retryAfter = (answers: JobAnswers): Record<string, string> =>
	answers.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(answers.retryAfterSeconds) };

/** The result of the work, as the route that accepted it words and shapes its answer. */
function sendResult(res: ServerResponse, ctx: RouteContext, job: SandboxJob, status = 200): void {
	wordAnswers(res, ctx.sandbox.dialect, 'POST', IMPORT_PATH);
	sendJson(res, status, job.result);
}

/** The work accepted as a job (202), as the dialect says; `result` is what the route would have answered at once. */
export function acceptJob(ctx: RouteContext, result: unknown): void {
	const answers = ctx.sandbox.dialect.jobs;
	const id = ctx.sandbox.state.nextId('JOB');
	jobsOf(ctx.reader).set(id, { id, result, answers, polls: 0 });
	const url = jobUrl(ctx, jobPath(id));
	// The job's answers are its own, never worded as the route that accepted it.
	wordAnswers(ctx.res, ctx.sandbox.dialect, 'GET', jobPath(id));
	if (answers.import === 'bare') return sendJson(ctx.res, 202, {}, retryAfter(answers));
	if (answers.import === 'statusUrl' || answers.import === 'inline') {
		return sendJson(ctx.res, 202, { job: { id, status: 'queued', links: { self: url } } }, retryAfter(answers));
	}
	sendJson(ctx.res, 202, { id, status: 'processing' }, { Location: url, ...retryAfter(answers) });
}

function job(ctx: RouteContext): SandboxJob {
	const found = jobsOf(ctx.reader).get(ctx.params[0]);
	if (!found) throw new HttpError(404, 'not_found', `No job ${ctx.params[0]}.`);
	return found;
}

export const jobRoutes: Route[] = [
	{
		method: 'GET',
		pattern: /^\/v1\/reader\/jobs\/([^/]+)$/,
		access: 'reader',
		handler: (ctx) => {
			const found = job(ctx);
			const { answers, id } = found;
			found.polls++;
			const inBody = answers.import === 'statusUrl' || answers.import === 'inline';
			const status = (fields: Record<string, unknown>) => (inBody ? { job: { id, ...fields } } : { id, ...fields });
			if (answers.ending === 'never' || found.polls <= answers.pollsBeforeEnd) {
				return sendJson(ctx.res, inBody ? 200 : 202, status({ status: 'running' }), retryAfter(answers));
			}
			if (answers.ending === 'failed') {
				return sendJson(ctx.res, 200, status({ status: 'failed', error: { code: 'import_failed', message: 'The import queue rejected the file: try again in an hour.' } }));
			}
			if (answers.import === 'seeOther') {
				ctx.res.writeHead(303, { Location: jobUrl(ctx, `${jobPath(id)}/result`), 'Content-Length': 0 });
				return void ctx.res.end();
			}
			if (answers.import === 'statusUrl') return sendJson(ctx.res, 200, status({ status: 'completed', links: { result: jobUrl(ctx, `${jobPath(id)}/result`) } }));
			if (answers.import === 'inline') {
				// Inline JSON holds JSON: rows numbered and worded as the dialect does, never as CSV text.
				const { dialect } = ctx.sandbox;
				const shaped = shapeAnswer({ ...dialect.answers, importAs: 'json' }, 'POST', IMPORT_PATH, dialect.answer('POST', IMPORT_PATH, found.result));
				return sendJson(ctx.res, 200, { id, status: 'succeeded', result: 'json' in shaped ? shaped.json : null });
			}
			sendResult(ctx.res, ctx, found);
		},
	},
	{
		method: 'GET',
		pattern: /^\/v1\/reader\/jobs\/([^/]+)\/result$/,
		access: 'reader',
		handler: (ctx) => sendResult(ctx.res, ctx, job(ctx)),
	},
];
