import { awaitsResult, followJob, JobError, jobReference, jobState, pollWaitMs, sameOrigin, type JobDeps, type JobRaw } from '../../nodes/shared/transport/jobs';

const BASE = 'https://svc.example.com/api';

describe('jobs: where a 202 says its work is followed', () => {
	test.each([
		['the Location header', { Location: '/v1/reader/jobs/1?sig=x' }, {}, '/v1/reader/jobs/1?sig=x'],
		['a status_url in the body', {}, { id: 'J1', status_url: 'https://svc.example.com/jobs/J1' }, 'https://svc.example.com/jobs/J1'],
		['links.self at depth', {}, { job: { id: 'J1', links: { self: '/jobs/J1' } } }, '/jobs/J1'],
		['_links.self.href (HAL)', {}, { _links: { self: { href: '/jobs/J2' } } }, '/jobs/J2'],
		['the one URL of the body, by shape', {}, { job: { id: 'J3', monitor: '/queue/J3' } }, '/queue/J3'],
	])('%s', (_name, headers, body, expected) => {
		expect(jobReference(headers, body)).toBe(expected);
	});

	test('none: no Location, no URL, or two URLs under unknown names (never guessed)', () => {
		expect(jobReference({}, { id: 'J1', status: 'queued' })).toBeUndefined();
		expect(jobReference({}, { a: '/one', b: '/two' })).toBeUndefined();
	});

	test('same origin only: another host, scheme or port is refused by its host, never its path', () => {
		expect(sameOrigin('/v1/jobs/1', BASE)).toEqual({ url: new URL('https://svc.example.com/v1/jobs/1') });
		expect(sameOrigin('https://store.example.net/j?sig=s', BASE)).toEqual({ refused: 'store.example.net' });
		expect(sameOrigin('http://svc.example.com/j', BASE)).toEqual({ refused: 'http://svc.example.com' });
		expect(sameOrigin('https://svc.example.com:8443/j', BASE)).toEqual({ refused: 'svc.example.com:8443' });
	});

	test('state by name, the outermost first; rows in lists are not the job', () => {
		expect(jobState({ status: 'Succeeded' })?.state).toBe('done');
		expect(jobState({ job: { state: 'in_progress' } })?.state).toBe('running');
		expect(jobState({ status: 'cancelled', reason: 'stopped' })?.state).toBe('failed');
		expect(jobState({ rows: [{ status: 'rejected' }], accepted: 1 })).toBeUndefined();
		expect(awaitsResult({})).toBe(true);
		expect(awaitsResult({ status: 'pending' })).toBe(true);
		expect(awaitsResult({ id: 'X', name: 'created thing' })).toBe(false);
	});

	test('waits: Retry-After (at least 1 s), else 0.5, 1, 2... capped at 10 s', () => {
		expect(pollWaitMs({ 'Retry-After': '3' }, 0, 0)).toEqual({ ms: 3000, asked: true });
		expect(pollWaitMs({ 'retry-after': '0' }, 5, 0)).toEqual({ ms: 1000, asked: true });
		expect([0, 1, 2, 3, 4, 5, 6].map((n) => pollWaitMs({}, n, 0).ms)).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
	});
});

describe('jobs: followJob with a made-up Service and clock', () => {
	function service(answers: JobRaw[], waitMs = 60_000) {
		let clock = 0;
		const asked: string[] = [];
		const slept: number[] = [];
		const deps: JobDeps = {
			baseUrl: BASE,
			waitMs,
			get: async (url) => {
				asked.push(url);
				return answers.shift() ?? { statusCode: 202, headers: {}, body: { status: 'running' } };
			},
			read: async (raw) => raw.body,
			said: async (raw) => (raw.body as { message?: string }).message,
			discard: () => undefined,
			sleep: async (ms) => {
				slept.push(ms);
				clock += ms;
			},
			now: () => clock,
		};
		return { deps, asked, slept };
	}
	const accepted: JobRaw = { statusCode: 202, headers: { Location: '/jobs/1?sig=s' }, body: {} };

	test('202, 202 (Retry-After 2), then 303 to the result: the result, with the waits asked', async () => {
		const { deps, asked, slept } = service([
			{ statusCode: 202, headers: { 'Retry-After': '2' }, body: { status: 'running' } },
			{ statusCode: 303, headers: { Location: '/jobs/1/result' }, body: undefined },
			{ statusCode: 200, headers: {}, body: { rows: [] } },
		]);
		expect((await followJob('/jobs/1?sig=s', accepted, deps)).body).toEqual({ rows: [] });
		expect(asked).toEqual(['https://svc.example.com/jobs/1?sig=s', 'https://svc.example.com/jobs/1?sig=s', 'https://svc.example.com/jobs/1/result']);
		expect(slept).toEqual([500, 2000]);
	});

	test('a done status with its result inline hands over the result; at a result URL it is fetched once', async () => {
		const inline = service([{ statusCode: 200, headers: {}, body: { status: 'done', result: { rows: [1] } } }]);
		expect((await followJob('/jobs/1', accepted, inline.deps)).body).toEqual({ rows: [1] });
		const linked = service([
			{ statusCode: 200, headers: {}, body: { status: 'completed', links: { result: '/r/1' } } },
			{ statusCode: 200, headers: {}, body: { rows: [2] } },
		]);
		expect((await followJob('/jobs/1', accepted, linked.deps)).body).toEqual({ rows: [2] });
		expect(linked.asked).toHaveLength(2);
	});

	test('a result on another origin is refused before anything is sent there', async () => {
		const { deps, asked } = service([{ statusCode: 303, headers: { Location: 'https://bucket.example.net/r?X-Amz-Signature=s' }, body: undefined }]);
		await expect(followJob('/jobs/1', accepted, deps)).rejects.toThrow('The Service named a result of its job on another origin (bucket.example.net), which is not asked');
		expect(asked).toEqual(['https://svc.example.com/jobs/1']);
	});

	test('a job URL with a user name or password is refused before anything is sent, even on the same origin', async () => {
		const { deps, asked } = service([]);
		await expect(followJob('https://user:pw@svc.example.com/jobs/1', accepted, deps)).rejects.toThrow('The Service named a job to follow at an address with a user name or password, which is not asked');
		expect(asked).toEqual([]);
	});

	test('never done: fails within Job Wait, naming the setting and the path only', async () => {
		const { deps, slept } = service([], 10_000);
		const error = (await followJob('/jobs/1?sig=secret', accepted, deps).catch((e: unknown) => e)) as JobError;
		expect(error).toBeInstanceOf(JobError);
		expect(error.message).toBe('The Service\'s job was still running after 7.5 s, within Job Wait (10 s)');
		expect(error.description).toContain('The job at /jobs/1 gave no result in time');
		expect(error.description).toContain('Job Wait (Seconds) under Advanced Settings');
		expect(error.description).not.toContain('secret');
		expect(slept).toEqual([500, 1000, 2000, 4000]);
	});

	test('a Service answering Retry-After: 0 every time is asked at most once a second and 300 times in all, however long Job Wait is', async () => {
		const running: JobRaw = { statusCode: 202, headers: { 'Retry-After': '0' }, body: { status: 'running' } };
		const { deps, asked, slept } = service(Array.from({ length: 1000 }, () => ({ ...running })), 1e9);
		const error = (await followJob('/jobs/1', { ...accepted, headers: { 'Retry-After': '0' } }, deps).catch((e: unknown) => e)) as JobError;
		expect(error).toBeInstanceOf(JobError);
		expect(error.message).toBe('The Service\'s job was still running after 300 polls in 300 s, the most asked of one job');
		expect(error.description).toContain('Raise Job Wait (Seconds)');
		expect(asked).toHaveLength(300);
		expect(slept.every((ms) => ms === 1000)).toBe(true);
	});

	test('a Retry-After longer than Job Wait fails at once, saying so', async () => {
		const { deps, asked } = service([], 30_000);
		await expect(followJob('/jobs/1', { ...accepted, headers: { 'Retry-After': '3600' } }, deps)).rejects.toThrow(
			'The Service asked to wait 3600 s before asking about its job again, more than is left of Job Wait',
		);
		expect(asked).toEqual([]);
	});

	test('rate limits and faults while polling are waited out three times in a row at most; other errors end it in the Service\'s words', async () => {
		const faults = service([
			{ statusCode: 503, headers: {}, body: {} },
			{ statusCode: 503, headers: {}, body: {} },
			{ statusCode: 503, headers: {}, body: { message: 'down' } },
		]);
		await expect(followJob('/jobs/1', accepted, faults.deps)).rejects.toThrow('The Service answered 503 when asked about its job');
		const gone = service([{ statusCode: 404, headers: {}, body: { message: 'No such job' } }]);
		const error = (await followJob('/jobs/1', accepted, gone.deps).catch((e: unknown) => e)) as JobError;
		expect(error.description).toContain('the Service said "No such job"');
	});
});
