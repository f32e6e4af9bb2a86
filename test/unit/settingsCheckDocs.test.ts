import { applyFindings, checkSettings, type Finding } from '../../nodes/shared/settingsCheck';
import { propertiesOf, requestSchema, resolved, secretEncoding, WRITES } from '../../nodes/shared/settingsCheck/apiDocument';
import { readCurrent } from '../../nodes/shared/settingsCheck/current';
import { withDocument, writesFinding } from '../../nodes/shared/settingsCheck/documented';
import { notChecked } from '../../nodes/shared/settingsCheck/notChecked';
import { fakeService, jsonAnswer } from './settingsCheckFakes';

// Check Settings reading a published API document: the writes' body names paired with the Request
// Names rows, refs inside the document, Swagger 2, JSON:API bodies; nothing guessed between two.

const BASE = 'https://svc.example';
const current = readCurrent({ baseUrl: BASE, advanced: {} });
const write = (scope: string) => WRITES.find((entry) => entry.scope === scope)!;
const topic = (findings: Finding[], name: string) => findings.find((entry) => entry.topic === name)!;
const withBody = (path: string, schema: unknown, extra: Record<string, unknown> = {}) => ({
	openapi: '3.1.0',
	paths: { [path]: { post: { requestBody: { content: { 'application/json': { schema } } } } } },
	...extra,
});

describe('reading the document', () => {
	test('OpenAPI 3: $refs followed inside the document (schema, request body), names as written', () => {
		const document = {
			openapi: '3.0.3',
			paths: { '/v1/reader/invitations': { post: { requestBody: { $ref: '#/components/requestBodies/Invite' } } } },
			components: {
				requestBodies: { Invite: { content: { 'application/json; charset=utf-8': { schema: { $ref: '#/components/schemas/Invite' } } } } },
				schemas: { Invite: { allOf: [{ $ref: '#/components/schemas/Company' }, { properties: { email: { type: 'string' } } }] }, Company: { properties: { 'org~name/x': {}, regNo: {} } } },
			},
		};
		expect(propertiesOf(document, requestSchema(document, write('invitation'))).map((entry) => entry.name)).toEqual(['org~name/x', 'regNo', 'email']);
	});

	test('Swagger 2: the body parameter\'s schema; paths under a base path match by their end', () => {
		const document = {
			swagger: '2.0',
			basePath: '/v1/reader',
			paths: { '/policy-runs': { post: { parameters: [{ in: 'query', name: 'dry' }, { in: 'body', name: 'run', schema: { $ref: '#/definitions/Run' } }] } } },
			definitions: { Run: { properties: { company_ke: { type: 'string' } } } },
		};
		expect(propertiesOf(document, requestSchema(document, write('policyRun'))).map((entry) => entry.name)).toEqual(['company_ke']);
	});

	test('a $ref loop or a $ref outside the document ends, with nothing', () => {
		const document = { components: { schemas: { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } } } };
		expect(resolved(document, { $ref: '#/components/schemas/A' })).toBeUndefined();
		expect(resolved(document, { $ref: 'https://elsewhere.example/schema.json' })).toBeUndefined();
	});

	test('JSON:API bodies: the names under data.attributes', () => {
		const document = withBody('/v1/reader/webhooks', { properties: { data: { properties: { type: {}, attributes: { properties: { target: {} } } } } } });
		expect(propertiesOf(document, requestSchema(document, write('webhook'))).map((entry) => entry.name)).toEqual(['target']);
	});

	test('the likely encoding of an example secret', () => {
		expect(secretEncoding('a'.repeat(64))).toEqual({ value: 'hex', why: 'it is 64 hex characters' });
		expect(secretEncoding('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toEqual({ value: 'base64', why: 'it starts with whsec_ followed by base64 text' });
		expect(secretEncoding('c2VjcmV0LXNlY3JldC1zZWNyZXQ=')).toEqual({ value: 'base64', why: 'it is base64 text' });
		expect(secretEncoding('not a secret!')).toBeUndefined();
	});
});

describe('Request Names of Writes from the document', () => {
	test('names other than documented: the rows to set with their values, applied as Request Names rows', () => {
		const document = withBody('/v1/reader/webhooks', { properties: { target: { type: 'string' }, description: {} } }, {
			paths: {
				'/v1/reader/webhooks': { post: { requestBody: { content: { 'application/json': { schema: { properties: { target: {}, description: {} } } } } } } },
				'/v1/reader/policy-runs': { post: { requestBody: { content: { 'application/json': { schema: { properties: { ke: {} } } } } } } },
			},
		});
		const found = writesFinding({ path: '/openapi.json', document }, current)!;
		expect(found).toEqual({
			topic: 'Request Names of Writes',
			verdict: 'change',
			settings: [{ field: 'requestNames', concept: 'webhook.url', label: 'Request Names > Webhook Endpoint > URL', value: 'target' }],
			found: 'target',
			evidence: 'The API document at /openapi.json shows the request bodies of /v1/reader/webhooks, /v1/reader/policy-runs. Its names: Webhook Endpoint > URL "target". Sent as documented: Policy Run > KE (ke).',
		});
		expect(applyFindings({}, [found])).toEqual({ advancedSettings: true, requestNames: { name: [{ concept: 'webhook.url', serviceName: 'target' }] } });
	});

	test('the documented names: ok, nothing to set', () => {
		const document = withBody('/v1/reader/webhooks', { properties: { url: {} } });
		expect(writesFinding({ path: '/v1/openapi.json', document }, current)).toEqual({
			topic: 'Request Names of Writes',
			verdict: 'ok',
			settings: [],
			found: 'as documented',
			evidence: 'The API document at /v1/openapi.json shows the request bodies of /v1/reader/webhooks. Sent as documented: Webhook Endpoint > URL (url).',
		});
	});

	test('two properties fitting one row: both named, neither picked; a name the credential could not send is no proposal', () => {
		const document = withBody('/v1/reader/invitations', { properties: { email: {}, contact_email: {}, 'company"name': {}, [`reg_${'x'.repeat(200)}`]: {} } });
		expect(writesFinding({ path: '/openapi.json', document }, current)).toEqual({
			topic: 'Request Names of Writes',
			verdict: 'unknown',
			settings: [],
			evidence: 'The API document at /openapi.json shows the request bodies of /v1/reader/invitations. Not picked, set the row yourself: "email" may be Invitation > Work Email; "contact_email" may be Invitation > Work Email.',
		});
	});

	test('SSO: the mapping\'s entries paired under the mapping\'s name', () => {
		const document = {
			openapi: '3.0.0',
			paths: { '/v1/reader/sso': { put: { requestBody: { content: { 'application/json': { schema: { properties: { provider_type: {}, email_domains: {}, groupRoles: { type: 'array', items: { properties: { idpGroup: {}, role: {} } } } } } } } } } } },
		};
		const found = writesFinding({ path: '/openapi.json', document }, current)!;
		expect(found.verdict).toBe('change');
		expect(found.settings.map((entry) => [entry.concept, entry.value])).toEqual([['sso.group_role_mapping', 'groupRoles'], ['sso.group_role_mapping.group', 'idpGroup']]);
	});

	test('no body schema for the writes: the finding as it was, word for word', () => {
		const document = { openapi: '3.0.0', paths: { '/v1/reader/invitations': { post: { responses: { '201': { description: 'ok' } } } } } };
		expect(writesFinding({ path: '/openapi.json', document }, current)).toBeUndefined();
		expect(withDocument(notChecked(current), undefined, { path: '/openapi.json', document }, current)).toEqual(notChecked(current));
	});
});

describe('the whole check with a document served', () => {
	const served = (path: string, value: unknown) => fakeService({ before: (request) => (request.path === `${BASE}${path}` ? jsonAnswer(200, value) : undefined) });

	test('the document asked last, at the first conventional path that has one; its findings in place of not_checked', async () => {
		const document = {
			openapi: '3.0.0',
			paths: {
				'/v1/reader/webhooks': {
					post: {
						requestBody: { content: { 'application/json': { schema: { properties: { callbackUrl: {} } } } } },
						responses: { '201': { content: { 'application/json': { schema: { properties: { signing_secret: { type: 'string', example: `whsec_${'QUJD'.repeat(8)}` } } } } } } },
					},
				},
			},
		};
		const service = served('/v1/openapi.json', document);
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} }, () => 0);
		expect(service.asked.slice(-2).map((request) => request.path)).toEqual([`${BASE}/openapi.json`, `${BASE}/v1/openapi.json`]);
		expect(topic(findings, 'Request Names of Writes')).toMatchObject({ verdict: 'change', settings: [{ concept: 'webhook.url', value: 'callbackUrl' }] });
		expect(topic(findings, 'Webhook Signing')).toMatchObject({
			verdict: 'not_checked',
			found: 'base64',
			settings: [{ field: 'signingKeyEncoding', label: 'Secret Encoding', value: 'base64', shown: 'Base64 (Optional Whsec_ Prefix)' }],
		});
		expect(topic(findings, 'Webhook Signing').evidence).toContain('An example secret in the API document at /v1/openapi.json is likely Base64 (Optional Whsec_ Prefix) (it starts with whsec_ followed by base64 text): Secret Encoding may be set to it, but Detect (the default) finds it from the first delivery.');
		// A hint only: applying the findings leaves Secret Encoding on Detect.
		expect(applyFindings({}, findings)).toEqual({ advancedSettings: true, requestNames: { name: [{ concept: 'webhook.url', serviceName: 'callbackUrl' }] } });
	});

	test('no document at any path: the four GETs, and the findings exactly as without them', async () => {
		const service = fakeService();
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} }, () => 0);
		expect(service.asked.slice(-4).map((request) => request.path)).toEqual(['/openapi.json', '/v1/openapi.json', '/.well-known/openapi.json', '/swagger.json'].map((path) => `${BASE}${path}`));
		expect(findings.slice(-5)).toEqual(notChecked(current));
	});

	test('a JSON answer that is no API document is passed over', async () => {
		const service = served('/openapi.json', { data: [] });
		const findings = await checkSettings(service, { baseUrl: BASE, advanced: {} }, () => 0);
		expect(topic(findings, 'Request Names of Writes').verdict).toBe('not_checked');
	});
});
