import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { serviceApi } from '../../sandbox/credential';
import { dialectFromEnvironment, dialectNamed } from '../../sandbox/dialect';
import { immediateJobs } from '../../sandbox/jobs';
import { useSandbox } from '../../sandbox/useSandbox';
import { fileItem } from './helpers';

// One deadline per answer, from its request's start: a job's status URL answering 404 with a body that
// trickles in a byte at a time ends at the Request Timeout (it ran on for the body's whole length before).
const sandbox = useSandbox({ dialect: { ...dialectNamed(dialectFromEnvironment()), jobs: { ...immediateJobs, import: 'location', retryAfterSeconds: 0 } } });
const CSV = 'company_name,registration_number,work_email,reader_reference\r\nDrip Ltd,GB44400001,buyer@drip.example,D1\r\n';

test('a job poll whose 404 body trickles: read within the Request Timeout from the poll\'s start, the accepted import said as such', async () => {
	// The sandbox's first job in this file; its status URL answers 404, one byte every 200 ms for 200 s.
	sandbox.control.failRoute({ method: 'GET', path: '/v1/reader/jobs/JOB-0001', mode: 'drip', status: 404, everyMs: 200, body: `{"error":"${'x'.repeat(1000)}"}` });
	const started = Date.now();
	const result = await runWorkflow(readerWorkflow({ resource: 'invitation', operation: 'import', source: 'binaryFile' }), {
		credentials: { serviceApi: serviceApi(sandbox, { advanced: { requestTimeout: 2 } }) },
		inputItems: [fileItem(Buffer.from(CSV), 'invitations.csv', 'text/csv')],
	});
	const took = Date.now() - started;
	// The bound: a poll's wait (Retry-After 0 is 1 s) and one Request Timeout (2 s), with the engine's own time.
	expect({ took: took < 8_000 ? 'within the bound' : `${took} ms, past the 8,000 ms bound` }).toEqual({ took: 'within the bound' });
	expect(result.error(READER)?.message).toBe('The Service accepted the import (202), but its rows\' answers could not be awaited');
	expect(sandbox.control.requests().map((r) => [r.method, r.path])).toEqual([
		['POST', '/v1/reader/invitations/imports'],
		['GET', '/v1/reader/jobs/JOB-0001'],
	]);
}, 60_000);
