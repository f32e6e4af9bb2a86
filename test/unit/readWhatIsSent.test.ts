import { withAdded } from '../../nodes/shared/addedFields';
import { listFromBody } from '../../nodes/shared/answerShape';
import { jsonLines, readAnswerBody } from '../../nodes/shared/transport/answer';
import { describeServiceError } from '../../nodes/shared/transport/errors';
import { askedWait, parseRateLimitResetMs } from '../../nodes/shared/transport/retry';
import { readServiceSettings } from '../../nodes/shared/transport/settings';
import { readCreatedEndpoint } from '../../nodes/shared/webhookEndpoint';
import { matchImportAnswer } from '../../nodes/ServiceReader/actions/invitation/import/invitationImport';

/** What a Service written from the spec alone may send, read as it was meant (issue 32, item 3). */

const read = readServiceSettings({ baseUrl: 'https://svc.example.com', accessToken: 'token-never-shown', advancedSettings: false });
if (read.problem !== undefined) throw new Error(read.problem);
const settings = read.settings;
const deadline = { at: Date.now() + 60_000, ms: 60_000 };

describe('answer bodies', () => {
	it('reads JSON lines as a list, by its content type even when one line long', async () => {
		const text = '{"ke":"KE-1","n":1}\n{"ke":"KE-2","n":2.5}\n';
		for (const type of ['application/x-ndjson', 'application/jsonl', 'application/json', 'text/plain', undefined]) {
			expect(await readAnswerBody(Buffer.from(text), 'json', settings, type, deadline)).toEqual({ body: [{ ke: 'KE-1', n: 1 }, { ke: 'KE-2', n: 2.5 }] });
		}
		expect(await readAnswerBody(Buffer.from('{"ke":"KE-1"}\n'), 'json', settings, 'application/x-ndjson; charset=utf-8', deadline)).toEqual({ body: [{ ke: 'KE-1' }] });
		expect(jsonLines('{"a":1}\nnot json\n')).toBeUndefined();
	});

	it('reads application/vnd.api+json (JSON:API) as JSON, and malformed JSON:API as a fault on the Service\'s side', async () => {
		const doc = { data: { type: 'webhooks', id: 'w1', attributes: { url: 'u' } } };
		expect(await readAnswerBody(Buffer.from(JSON.stringify(doc)), 'json', settings, 'application/vnd.api+json', deadline)).toEqual({ body: doc });
		const broken = await readAnswerBody(Buffer.from('{"data": {'), 'json', settings, 'application/vnd.api+json', deadline);
		expect(broken).toEqual({ problem: expect.objectContaining({ message: 'The Service answered with malformed JSON' }) });
	});

	it('takes a token out of JSON lines too', async () => {
		expect(await readAnswerBody(Buffer.from('{"t":"token-never-shown"}\n{"t":"x"}\n'), 'json', settings, 'application/x-ndjson', deadline)).toEqual({
			body: [{ t: '***' }, { t: 'x' }],
		});
	});

	it('reads 204 or an empty body as zero items for a list, and as an empty answer elsewhere', async () => {
		const empty = await readAnswerBody(Buffer.alloc(0), 'json', settings, undefined, deadline);
		expect(empty).toEqual({ body: {} });
		expect(listFromBody((empty as { body: unknown }).body)).toEqual([]);
		expect(listFromBody(undefined)).toEqual([]);
	});

	it('reads application/problem+json errors in the Service words', () => {
		const body = Buffer.from(JSON.stringify({ type: 'https://svc/probs/bad', title: 'Bad window', status: 400, detail: 'window must be 30, 60 or 90' }));
		const words = describeServiceError(400, body, 1, '');
		expect(`${words.message} ${words.description}`).toMatch(/window must be 30, 60 or 90/);
	});
});

describe('rate limits', () => {
	const now = Date.UTC(2026, 0, 1);
	it('reads RateLimit-Reset and X-RateLimit-Reset as seconds, or as a Unix time from 10^9 on', () => {
		expect(parseRateLimitResetMs('7', now)).toBe(7000);
		expect(parseRateLimitResetMs(String(now / 1000 + 12), now)).toBe(12_000);
		expect(parseRateLimitResetMs('limit=100, remaining=0, reset=5', now)).toBe(5000);
		expect(parseRateLimitResetMs('"default";r=0;t=30', now)).toBe(30_000);
		expect(parseRateLimitResetMs('soon', now)).toBeUndefined();
	});

	it('prefers Retry-After, and names the header it followed', () => {
		const headers = (values: Record<string, string>) => (name: string) => values[name.toLowerCase()];
		expect(askedWait(headers({ 'retry-after': '3', 'ratelimit-reset': '9' }), now)).toEqual({ header: 'Retry-After', ms: 3000, value: '3' });
		expect(askedWait(headers({ 'x-ratelimit-reset': String(now / 1000 + 2) }), now)).toMatchObject({ header: 'X-RateLimit-Reset', ms: 2000 });
		expect(askedWait(headers({}), now)).toBeUndefined();
	});
});

describe('a created endpoint', () => {
	it.each([
		[{ id: 'we_1', signingSecret: { value: 'whsec_abc' } }],
		[{ data: { id: 'we_1', secret: { type: 'hmac-sha256', value: 's3cr3t' } } }],
		[{ endpoint: { id: 'we_1', signing_secret: { encoding: 'hex', key: 'ab'.repeat(32) } } }],
	])('finds the secret in an object under a secret-named key: %j', (body) => {
		const created = readCreatedEndpoint(body);
		expect(created.id).toBe('we_1');
		expect(created.secret).toMatch(/^(whsec_abc|s3cr3t|(ab){32})$/);
	});
});

describe('import answers numbered by file line', () => {
	const line = (n: number, ok = true) => ({ line: n, ok, check: ok ? 'Sent.' : 'Refused.' });
	it('reads lines 2..n+1 (the header is line 1) as rows 1..n', () => {
		const rows = matchImportAnswer({ results: [line(2), line(3, false), line(4)] }, 3);
		expect(rows.map((r) => [r.row, r.ok, r.said.line])).toEqual([
			[1, true, 2],
			[2, false, 3],
			[3, true, 4],
		]);
	});

	it('still reports a row with no answer when the numbers are not plainly lines', () => {
		expect(() => matchImportAnswer({ results: [line(2), line(3)] }, 3)).toThrow('row 1 got no answer');
	});
});

describe('fields the nodes add', () => {
	it('never replace a field the Service sent; the same value replaces nothing', () => {
		expect(withAdded({ a: 1, copy_matches: 'theirs', row: 1 }, { copy_matches: true, row: 1, note: 'n' })).toEqual({
			a: 1,
			copy_matches: 'theirs',
			row: 1,
			note: 'n',
			_reader: { copy_matches: true },
		});
		expect(withAdded({ x: 1, _reader: 1, ___reader: 2 }, { x: 2 })).toEqual({ x: 1, _reader: 1, ___reader: 2, ____reader: { x: 2 } });
	});
});
