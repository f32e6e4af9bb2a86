import type { INodeParameters } from 'n8n-workflow';

import { useSandbox } from '../../sandbox/useSandbox';
import { documentedBody } from '../../sandbox/requestDialect';
import { dialectFromEnvironment, dialectNamed } from '../../sandbox/dialect';
import { immediateJobs } from '../../sandbox/jobs';
import { afterFirstAnswer, READER, runReader } from './helpers';

const sandbox = useSandbox();

const PATH = '/v1/reader/policy-runs';
const STATEMENT_NOTE =
	'The statement of this run (its findings, never a verdict) is listed at the statements export, /v1/reader/exports/statements: read it with Statement > Get Many and match it by statement_id or run_id.';
const runCreate = (ke: string, options: INodeParameters = {}) => ({ resource: 'policyRun', operation: 'create', ke, options });

describe('Policy Run > Create', () => {
	it('creates the run with the extra fields and says where its statement appears', async () => {
		const logBefore = sandbox.control.accessLog().length;
		const result = await runReader(sandbox, runCreate('KE-1010', { extraFields: '{"policy": "standard", "depth": 2}' }));

		const [run] = sandbox.control.policyRuns();
		expect(result.output(READER)).toEqual([
			{
				json: {
					id: run.id,
					ke: 'KE-1010',
					status: 'completed',
					statement_id: run.statement_id,
					created_at: run.created_at,
					statement_location: '/v1/reader/exports/statements',
					statement_note: STATEMENT_NOTE,
					statement_wait: 'did_not_wait',
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(run).toMatchObject({ ke: 'KE-1010', parameters: { policy: 'standard', depth: 2 } });
		expect(sandbox.control.statements()).toEqual([
			expect.objectContaining({ id: run.statement_id, run_id: run.id, ke: 'KE-1010' }),
		]);
		const [request] = sandbox.control.requests();
		expect([request.method, request.path, request.reader, request.status]).toEqual(['POST', PATH, 'reader', 201]);
		expect(request.headers['content-type']).toBe('application/json');
		expect(documentedBody(sandbox.dialect.request, 'policyRun', request.body)).toEqual({ ke: 'KE-1010', policy: 'standard', depth: 2 });
		// A policy run is not an export: nothing is written to the access log.
		expect(sandbox.control.accessLog()).toHaveLength(logBefore);
	});

	it('sends only the KE when there are no extra fields', async () => {
		const result = await runReader(sandbox, runCreate('KE-1001'));
		expect(result.output(READER)[0].json).toMatchObject({ ke: 'KE-1001', status: 'completed' });
		expect(sandbox.control.requests().map((r) => documentedBody(sandbox.dialect.request, 'policyRun', r.body))).toEqual([{ ke: 'KE-1001' }]);
	});

	it('stops with the share words when the company does not share; no run is created', async () => {
		const runsBefore = sandbox.control.policyRuns().length;
		const result = await runReader(sandbox, runCreate('KE-1012'));
		const error = result.error(READER)!;
		expect(error.message).toBe(`Company KE-1012 does not share with this reader (${sandbox.dialect.notSharedStatus}): the share may have ended`);
		expect(error.description).toContain('(POST /v1/reader/policy-runs)');
		expect(sandbox.control.requests().map((r) => [r.path, r.status])).toEqual([[PATH, sandbox.dialect.notSharedStatus]]);
		expect(sandbox.control.policyRuns()).toHaveLength(runsBefore);
	});

	it('share revoked between two items: first run created, second { ke, shared: false }', async () => {
		const stop = afterFirstAnswer(PATH, () => sandbox.control.revokeShare('KE-1008'));
		let output;
		try {
			const result = await runReader(sandbox, runCreate('KE-1008', { whenNotShared: 'outputItem' }), {
				inputItems: [{ json: {} }, { json: {} }],
			});
			output = result.output(READER);
		} finally {
			stop();
		}
		expect(output[0].json).toMatchObject({ ke: 'KE-1008', status: 'completed' });
		expect(output[1]).toEqual({ json: { ke: 'KE-1008', shared: false }, pairedItem: { item: 1 } });
		expect(sandbox.control.requests().map((r) => r.status)).toEqual([201, sandbox.dialect.notSharedStatus]);
	});

	it.each([
		['{"policy": ', /^Extra Fields \(JSON\) is not valid JSON \(.+\): enter a JSON object such as \{"policy": "standard"\}\. \[item 0\]$/],
		['[1, 2]', /^Extra Fields \(JSON\) must be a JSON object such as \{"policy": "standard"\}, not a list\. \[item 0\]$/],
		['"standard"', /^Extra Fields \(JSON\) must be a JSON object such as \{"policy": "standard"\}, not string\. \[item 0\]$/],
		['{"ke": "KE-1002"}', /^Extra Fields \(JSON\) must not contain "ke": the node sets it from its own field\. \[item 0\]$/],
	])('refuses extra fields %s before any request', async (extraFields, message) => {
		const result = await runReader(sandbox, runCreate('KE-1001', { extraFields }));
		expect(result.error(READER)?.message).toMatch(message);
		expect(sandbox.control.requests()).toEqual([]);
	});

	it('refuses an empty KE before any request', async () => {
		const result = await runReader(sandbox, runCreate('={{ $json.ke }}'), { inputItems: [{ json: { ke: '' } }] });
		expect(result.error(READER)?.message).toBe('KE is empty. Enter the KE exactly as the Service shows it. [item 0]');
		expect(sandbox.control.requests()).toEqual([]);
	});
});

describe('Policy Run > Create: Wait for Statement', () => {
	// A Service that accepts the run `running` and lists its statement after two readings of the statements export.
	const later = useSandbox({ dialect: { ...dialectNamed(dialectFromEnvironment()), jobs: { ...immediateJobs, policyRun: 'running', statementAfterReads: 2 } } });
	const STATEMENTS = '/v1/reader/exports/statements';

	it('waits until the statement is listed and adds it beside the run; only GETs of the statements export follow the POST', async () => {
		const result = await runReader(later, runCreate('KE-1010', { statementWait: 30 }));
		expect(result.error(READER)).toBeUndefined();
		const [run] = later.control.policyRuns();
		const [statement] = later.control.statements();
		const { json } = result.output(READER)[0];
		expect(json).toMatchObject({ id: run.id, status: 'running', statement_wait: 'found', statement_location: STATEMENTS });
		// The statement as the export sent it (as JSON: its findings a list).
		expect(json.statement).toEqual(expect.objectContaining({ id: statement.id, run_id: run.id, ke: 'KE-1010' }));
		expect(later.control.requests().map((r) => [r.method, r.path])).toEqual([
			['POST', PATH],
			['GET', STATEMENTS],
			['GET', STATEMENTS],
		]);
	});

	it('gives up at the bound and says so; the run is output without a statement', async () => {
		const result = await runReader(later, runCreate('KE-1001', { statementWait: 1 }));
		expect(result.error(READER)).toBeUndefined();
		const { json } = result.output(READER)[0];
		expect(json).toMatchObject({ ke: 'KE-1001', status: 'running', statement_wait: 'gave_up' });
		expect(json).not.toHaveProperty('statement');
		// One reading, then the 1 s pause would pass the bound.
		expect(later.control.requests().map((r) => r.method)).toEqual(['POST', 'GET']);
	});

	it('a statements export whose cursors never end: the wait ends at its bound, pages included, never read up to Max Pages', async () => {
		later.control.failRoute({ method: 'GET', path: STATEMENTS, mode: 'endlessCursor' });
		const started = Date.now();
		const result = await runReader(later, runCreate('KE-1001', { statementWait: 1 }));
		later.control.clearFaults();
		expect(result.error(READER)).toBeUndefined();
		expect(result.output(READER)[0].json).toMatchObject({ ke: 'KE-1001', status: 'running', statement_wait: 'gave_up' });
		const pages = later.control.requests({ method: 'GET', path: STATEMENTS }).length;
		expect(pages).toBeGreaterThan(1);
		// Pages of about a millisecond each for 1 s: hundreds at most, not Max Pages (100,000).
		expect(pages).toBeLessThan(5_000);
		expect(Date.now() - started).toBeLessThan(15_000);
	});

	it('does not wait unless asked, and says so', async () => {
		const result = await runReader(later, runCreate('KE-1001'));
		expect(result.output(READER)[0].json).toMatchObject({ status: 'running', statement_wait: 'did_not_wait' });
		expect(later.control.requests().map((r) => r.method)).toEqual(['POST']);
	});
});

describe('Policy Run > Create: a 202 whose job cannot be followed (its Location answers 404)', () => {
	// The run is made; the Location names nothing the Service serves, and the statement is listed a little later.
	const accepted = useSandbox({ dialect: { ...dialectNamed(dialectFromEnvironment()), jobs: { ...immediateJobs, policyRun: 'acceptedNoJob', statementAfterReads: 1 } } });
	const STATEMENTS = '/v1/reader/exports/statements';

	it('passes the accepted answer on, saying in _reader that its job was not followed, and never sends the run again', async () => {
		const result = await runReader(accepted, runCreate('KE-1010'));
		expect(result.error(READER)).toBeUndefined();
		const [run] = accepted.control.policyRuns();
		const { json } = result.output(READER)[0];
		expect(json).toMatchObject({ id: run.id, ke: 'KE-1010', status: 'accepted', statement_wait: 'did_not_wait' });
		expect(json._reader).toEqual({ job: 'not_followed', job_note: expect.any(String) });
		const note = (json._reader as { job_note: string }).job_note;
		expect(note.startsWith(`The Service accepted the request (202), but its job at /v1/reader/policy-runs/${run.id} answered 404`)).toBe(true);
		expect(note.endsWith('so its result was not awaited. The request was not sent again: what it did is at the Service.')).toBe(true);
		expect(accepted.control.policyRuns()).toHaveLength(1);
		expect(accepted.control.requests().map((r) => [r.method, r.path, r.status])).toEqual([
			['POST', PATH, 202],
			['GET', `/v1/reader/policy-runs/${run.id}`, 404],
		]);
	});

	it('Wait for Statement still finds the statement without a job', async () => {
		const result = await runReader(accepted, runCreate('KE-1010', { statementWait: 30 }));
		expect(result.error(READER)).toBeUndefined();
		const run = accepted.control.policyRuns().at(-1)!;
		const { json } = result.output(READER)[0];
		expect(json).toMatchObject({ id: run.id, statement_wait: 'found', _reader: { job: 'not_followed' } });
		expect(json.statement).toEqual(expect.objectContaining({ run_id: run.id, ke: 'KE-1010' }));
		expect(accepted.control.requests({ method: 'POST' })).toHaveLength(1);
		expect(accepted.control.requests({ method: 'GET', path: STATEMENTS }).length).toBeGreaterThan(0);
	});
});
