import { errorsWords, jsonApiBody, placed, readableEnvelope } from '../../nodes/shared/transport/envelopes';
import { readErrorBody } from '../../nodes/shared/transport/errors';
import { spokenRequest, type RequestConcept } from '../../nodes/shared/transport/requestNames';

const speak = (scope: Parameters<typeof spokenRequest>[0], body: unknown, entries: Array<[RequestConcept, string]> = []) =>
	spokenRequest(scope, body, undefined, { names: new Map(entries), jsonFormat: 'json' });

describe('JSON:API requests', () => {
	test('a Request Name with dots is a path; every name an own property, __proto__ and constructor included', () => {
		expect(speak('webhook', { url: 'u' }, [['webhook.url', 'data.attributes.url']]).body).toEqual({ data: { attributes: { url: 'u' } } });
		const proto = speak('webhook', { url: 'u' }, [['webhook.url', '__proto__']]).body as object;
		expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
		expect(Object.entries(proto)).toEqual([['__proto__', 'u']]);
		expect(JSON.stringify(placed([[['data', '__proto__', 'x'], 1]]))).toBe('{"data":{"__proto__":{"x":1}}}');
		expect(() => placed([[['a'], 1], [['a', 'b'], 2]])).toThrow('two values at "a"');
	});

	test('a body is JSON:API when its names lead into data.attributes or its type is set: other fields join the attributes, data.type set', () => {
		expect(jsonApiBody({ ke: 'KE-1', policy: 'x' }, 'runs', '/v1/reader/policy-runs')).toEqual({ body: { data: { type: 'runs', attributes: { ke: 'KE-1', policy: 'x' } } }, type: 'runs' });
		expect(jsonApiBody({ data: { attributes: { url: 'u' } }, note: 1 }, undefined, '/v1/reader/webhooks')).toEqual({
			body: { data: { type: 'webhooks', attributes: { url: 'u', note: 1 } } },
			type: 'webhooks',
		});
		expect(jsonApiBody({ url: 'u' }, undefined, '/v1/reader/webhooks')).toEqual({ body: { url: 'u' } });
	});
});

describe('JSON:API answers', () => {
	test('a document of one resource: id, type and attributes beside it, the document kept; a clash goes under _reader', () => {
		const doc = { data: { type: 'webhooks', id: 'w1', attributes: { url: 'u', secret: 's' } }, meta: { x: 1 } };
		expect(readableEnvelope(doc)).toEqual({ ...doc, id: 'w1', type: 'webhooks', url: 'u', secret: 's' });
		expect(readableEnvelope({ data: { type: 't', attributes: { meta: 2 } }, meta: 1 })).toEqual({ data: { type: 't', attributes: { meta: 2 } }, meta: 1, type: 't', _reader: { meta: 2 } });
	});

	test('a list of resources: each with its attributes beside it; other answers unchanged', () => {
		expect(readableEnvelope({ data: [{ type: 'w', id: '1', attributes: { url: 'a' } }] })).toEqual({ data: [{ type: 'w', id: '1', attributes: { url: 'a' }, url: 'a' }] });
		const rows = { data: [{ ke: 'KE-1', type: 'gold' }] };
		expect(readableEnvelope(rows)).toBe(rows);
	});

	test('errors[]: every error\'s title, detail, code and source in the words', () => {
		const body = {
			errors: [
				{ status: '422', code: 'blank', title: 'Invalid attribute', detail: 'url must not be blank', source: { pointer: '/data/attributes/url' } },
				{ status: '400', title: 'Unknown parameter', source: { parameter: 'window' } },
			],
		};
		expect(errorsWords(body)).toEqual({ code: 'blank', message: 'Invalid attribute: url must not be blank (pointer "/data/attributes/url"); Unknown parameter (parameter "window")' });
		expect(readErrorBody(Buffer.from(JSON.stringify(body)))).toEqual(errorsWords(body));
		expect(readErrorBody({ error: { code: 'c', message: 'm' } })).toEqual({ code: 'c', message: 'm' });
	});
});
