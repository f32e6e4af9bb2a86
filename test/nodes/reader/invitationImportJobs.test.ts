import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { serviceApi } from '../../sandbox/credential';
import { dialectFromEnvironment, dialectNamed } from '../../sandbox/dialect';
import { immediateJobs, type JobAnswers } from '../../sandbox/jobs';
import { JOB_SIGNATURE } from '../../sandbox/routes/jobs';
import { useSandbox } from '../../sandbox/useSandbox';
import { fileItem } from './helpers';

/** The import accepted as a job (202) and followed to its per-row result: jobs.ts against the sandbox's job answers. */
const sandbox = useSandbox({ dialect: { ...dialectNamed(dialectFromEnvironment()), jobs: { ...immediateJobs } } });

const PATH = '/v1/reader/invitations/imports';
const HEADER = 'company_name,registration_number,work_email,reader_reference';
let serial = 0;
/** Two rows, the first accepted and the second refused, with numbers no other test uses. */
function twoRows() {
	serial++;
	const good = `GB9${String(serial).padStart(7, '0')}`;
	return { good, csv: `${HEADER}\r\nJob Good Ltd,${good},buyer@jobgood.example,J${serial}\r\nJob Bad Ltd,GB8${String(serial).padStart(7, '0')},not-an-email,K${serial}\r\n` };
}
const jobs = (answers: Partial<JobAnswers>) => {
	sandbox.dialect.jobs = { ...immediateJobs, ...answers };
};
afterAll(() => jobs({}));

async function importFile(csv: string, advanced: IDataObject = {}) {
	return await runWorkflow(readerWorkflow({ resource: 'invitation', operation: 'import', source: 'binaryFile' }), {
		credentials: { serviceApi: serviceApi(sandbox, { advanced }) },
		inputItems: [fileItem(Buffer.from(csv), 'invitations.csv', 'text/csv')],
	});
}

/** The node's fields of each row item (beside the Service's own, which the dialect words). */
const rowsOf = (items: INodeExecutionData[]) => items.map(({ json }) => [json.row, json.ok, json.invitation_id ?? null]);
const invitationId = (registrationNumber: string) => sandbox.control.invitations().find((i) => i.registration_number === registrationNumber)!.id;
const jobRequests = () => sandbox.control.requests().filter((r) => r.path.startsWith('/v1/reader/jobs/'));

describe('Invitation > Import accepted as a job', () => {
	it.each([
		['a Location to poll (202 while running, then the rows)', 'location', 3],
		['a status URL in the body (200 running, then done with a result URL)', 'statusUrl', 4],
		['a status URL in the body, done with the rows inline', 'inline', 3],
		['a Location answered 303 See Other to the rows', 'seeOther', 4],
	] as const)('%s: every row answered, one POST and GETs only', async (_name, variant, gets) => {
		jobs({ import: variant, pollsBeforeEnd: 2, retryAfterSeconds: 0 });
		const { good, csv } = twoRows();
		const result = await importFile(csv);

		expect(result.error(READER)).toBeUndefined();
		expect(rowsOf(result.output(READER))).toEqual([
			[1, true, invitationId(good)],
			[2, false, null],
		]);
		expect(result.output(READER)[1].json.check).toMatch(/email/i);
		const requests = sandbox.control.requests();
		// Never sent again: the one POST, then polls and the result, each a GET with the token (reader) on the Service's origin.
		expect(requests.filter((r) => r.method !== 'GET')).toEqual([expect.objectContaining({ method: 'POST', path: PATH, status: 202 })]);
		expect(requests[0].path).toBe(PATH);
		expect(jobRequests().map((r) => [r.method, r.reader])).toEqual(Array(gets).fill(['GET', 'reader']));
		expect(jobRequests().every((r) => r.query.sig === JOB_SIGNATURE)).toBe(true);
	});

	it('honours Retry-After: each poll comes no sooner than the Service asked', async () => {
		jobs({ import: 'location', pollsBeforeEnd: 1, retryAfterSeconds: 1 });
		const { csv } = twoRows();
		const result = await importFile(csv);
		expect(result.error(READER)).toBeUndefined();
		expect(result.output(READER)).toHaveLength(2);
		const at = sandbox.control.requests().map((r) => Date.parse(r.at));
		expect(sandbox.control.requests().map((r) => [r.method, r.status])).toEqual([['POST', 202], ['GET', 202], ['GET', 200]]);
		// Lower bounds only (a sleep is never shorter): 1 s after the 202, 1 s after the running answer.
		expect(at[1] - at[0]).toBeGreaterThanOrEqual(950);
		expect(at[2] - at[1]).toBeGreaterThanOrEqual(950);
	});

	it('a failed job fails the item in the Service\'s words; nothing is sent again', async () => {
		jobs({ import: 'statusUrl', pollsBeforeEnd: 1, retryAfterSeconds: 0, ending: 'failed' });
		const result = await importFile(twoRows().csv);
		const error = result.error(READER)!;
		expect(error.message).toBe('The Service\'s job ended as failed: The import queue rejected the file: try again in an hour.');
		expect(error.description).toContain(`(POST ${PATH})`);
		expect(error.description).not.toContain(JOB_SIGNATURE);
		expect(sandbox.control.requests().map((r) => r.method)).toEqual(['POST', 'GET', 'GET']);
	});

	it('a job that never ends fails at Job Wait, naming the setting and the job\'s path, never its query', async () => {
		jobs({ import: 'location', retryAfterSeconds: 0, ending: 'never' });
		const started = Date.now();
		const result = await importFile(twoRows().csv, { jobWait: 2 });
		const error = result.error(READER)!;
		expect(error.message).toMatch(/^The Service's job was still running after [\d.]+ s, within Job Wait \(2 s\)$/);
		expect(error.description).toMatch(/^The job at \/v1\/reader\/jobs\/JOB-\d+ gave no result in time, .*Raise Job Wait \(Seconds\) under Advanced Settings in the Service API credential/);
		expect(error.description).not.toContain(JOB_SIGNATURE);
		expect(Date.now() - started).toBeLessThan(30_000);
		const methods = sandbox.control.requests().map((r) => r.method);
		expect(methods[0]).toBe('POST');
		expect(methods.slice(1).every((m) => m === 'GET')).toBe(true);
		// Retry-After 0 is read as 1 s at least: within 2 s, at most two polls.
		expect(methods.length).toBeLessThanOrEqual(3);
	});

	it('a job URL on another origin is refused: nothing is sent there, the token least of all', async () => {
		jobs({ import: 'location', retryAfterSeconds: 0, origin: 'other' });
		const result = await importFile(twoRows().csv);
		const error = result.error(READER)!;
		expect(error.message).toBe(`The Service named a job to follow on another origin (localhost:${sandbox.port}), which is not asked`);
		expect(error.description).toContain('nothing was sent there');
		// The sandbox answers at localhost too and records every request: only the POST arrived.
		expect(sandbox.control.requests().map((r) => [r.method, r.path])).toEqual([['POST', PATH]]);
	});

	it('a 202 naming no job is said, never read as the rows', async () => {
		jobs({ import: 'bare' });
		const result = await importFile(twoRows().csv);
		expect(result.error(READER)?.message).toBe('The Service accepted the request (202) but named no job to wait for');
		expect(sandbox.control.requests().map((r) => r.method)).toEqual(['POST']);
	});

	it('Input Items: each row item paired with its input item through the job', async () => {
		jobs({ import: 'seeOther', pollsBeforeEnd: 1, retryAfterSeconds: 0 });
		serial++;
		const items = [0, 1, 2].map((k) => ({
			json: { company_name: `Paired ${k} Ltd`, registration_number: `GB7${String(serial * 10 + k).padStart(7, '0')}`, work_email: k === 1 ? 'nope' : `a${k}@paired.example`, reader_reference: '' },
		}));
		const result = await runWorkflow(readerWorkflow({ resource: 'invitation', operation: 'import', source: 'inputItems' }), {
			credentials: { serviceApi: serviceApi(sandbox) },
			inputItems: items,
		});
		expect(result.error(READER)).toBeUndefined();
		expect(result.output(READER).map((item) => [item.json.row, item.json.ok, item.pairedItem])).toEqual([
			[1, true, { item: 0 }],
			[2, false, { item: 1 }],
			[3, true, { item: 2 }],
		]);
		expect(sandbox.control.requests().filter((r) => r.method === 'POST')).toHaveLength(1);
	});
});
