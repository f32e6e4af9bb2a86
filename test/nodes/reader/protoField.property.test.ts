import fc from 'fast-check';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { useSandbox } from '../../sandbox/useSandbox';
import { verificationBody } from '../../sandbox/routes/verify';
import { runs } from '../../property/fc';
import { READER, runReader } from './helpers';

/**
 * `__proto__` in a Service's answer is a field like any other (docs/service-choices.md, "Fields the
 * nodes add"): whatever operation copies the answer into items, plain or as a JSON:API resource, at
 * any depth, the field is in the item with its value, and no object of the item, nor Object itself,
 * takes the value as its prototype.
 */
const sandbox = useSandbox();
afterEach(() => sandbox.control.clearFaults());

type Fields = Record<string, unknown>;
const own = (record: object, name: string) => Object.prototype.hasOwnProperty.call(record, name);

/** An operation that copies an answer: its route, its parameters, and the answer it copies with `extra` placed in it. */
interface Copying {
	name: string;
	method: 'GET' | 'POST' | 'PUT';
	path: string;
	parameters: INodeParameters;
	answer: (extra: string) => string;
	inputItems?: () => Promise<INodeExecutionData[]>;
}

const obj = (fields: Fields, extra: string) => `${JSON.stringify(fields).slice(0, -1)}${Object.keys(fields).length ? ',' : ''}${extra}}`;
const OPERATIONS: Copying[] = [
	{ name: 'Record > Verify', method: 'GET', path: '/v1/public/reports/KS-1001-v1/verify', parameters: { resource: 'record', operation: 'verify', ks: 'KS-1001-v1' }, answer: (extra) => obj({ valid: true, ks: 'KS-1001-v1' }, extra) },
	{ name: 'Invitation > Create', method: 'POST', path: '/v1/reader/invitations', parameters: { resource: 'invitation', operation: 'create', companyName: 'Proto Ltd', registrationNumber: 'GB1', workEmail: 'a@proto.example', additionalFields: {} }, answer: (extra) => obj({ id: 'INV-9', status: 'sent' }, extra) },
	{ name: 'Webhook > Create Endpoint', method: 'POST', path: '/v1/reader/webhooks', parameters: { resource: 'webhook', operation: 'createEndpoint', url: 'https://hooks.buyer.example/proto' }, answer: (extra) => obj({ id: 'wh-9', url: 'https://hooks.buyer.example/proto', secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0' }, extra) },
	{ name: 'Policy Run > Create', method: 'POST', path: '/v1/reader/policy-runs', parameters: { resource: 'policyRun', operation: 'create', ke: 'KE-1001', options: {} }, answer: (extra) => obj({ id: 'run-9', ke: 'KE-1001', status: 'completed', statement_id: 'st-9' }, extra) },
	{
		name: 'SSO > Set Configuration',
		method: 'PUT',
		path: '/v1/reader/sso',
		parameters: { resource: 'sso', operation: 'setConfiguration', providerType: 'SAML', emailDomains: { domain: [{ name: 'buyer.example' }] }, groupRoleMapping: { mapping: [] } },
		answer: (extra) => obj({ provider_type: 'SAML' }, extra),
	},
	{ name: 'Webhook > Get Catalogue', method: 'GET', path: '/v1/reader/webhooks/catalogue', parameters: { resource: 'webhook', operation: 'getCatalogue' }, answer: (extra) => `{"data":[${obj({ id: 'share_granted' }, extra)}]}` },
	{ name: 'Portfolio > Get Many (JSON)', method: 'GET', path: '/v1/reader/exports/portfolio', parameters: { resource: 'portfolio', operation: 'getAll', returnAll: true, format: 'json' }, answer: (extra) => `{"data":[${obj({ ke: 'KE-1001' }, extra)}]}` },
];

/** Where `__proto__` goes: top level, in a nested object, or (JSON:API) in the resource's attributes. */
const placement = fc.constantFrom<'top' | 'nested' | 'attributes'>('top', 'nested', 'attributes');
/** An object as its value: were it ever made a prototype, its fields would show through. */
const protoValue = fc.dictionary(fc.constantFrom('polluted', 'id', 'secret', 'valid', 'toString', 'status'), fc.oneof(fc.string({ maxLength: 8 }), fc.boolean()), { minKeys: 1, maxKeys: 3 });

function placed(operation: Copying, where: 'top' | 'nested' | 'attributes', value: Fields): string {
	const field = `"__proto__":${JSON.stringify(value)}`;
	if (where === 'top') return operation.answer(field);
	if (where === 'nested') return operation.answer(`"meta":{"depth":{${field}}}`);
	// JSON:API: the answer's own fields as the resource's attributes.
	const inner = JSON.parse(operation.answer(field)) as Fields;
	const list = Array.isArray(inner.data);
	const attributes = (list ? (inner.data as unknown[])[0] : inner) as Fields;
	const resource = `{"type":"things","id":"r-1","attributes":${JSON.stringify(attributes).slice(0, -1)},${field}}}`;
	return list ? `{"data":[${resource}]}` : `{"data":${resource}}`;
}

/** Every object of `value` has a plain prototype; the own `__proto__` fields found, with their values. */
function protoFields(value: unknown, found: unknown[] = []): unknown[] {
	if (value === null || typeof value !== 'object') return found;
	const prototype = Object.getPrototypeOf(value);
	expect(prototype === Object.prototype || prototype === Array.prototype || prototype === null).toBe(true);
	if (own(value, '__proto__')) found.push((value as Fields)['__proto__']);
	for (const inner of Object.values(value)) protoFields(inner, found);
	return found;
}

test('property: every operation copies `__proto__` as a field, never as a prototype', async () => {
	await fc.assert(
		fc.asyncProperty(fc.constantFrom(...OPERATIONS), placement, protoValue, async (operation, where, value) => {
			sandbox.control.clearFaults();
			const body = placed(operation, where, value);
			sandbox.control.failRoute({ path: operation.path, method: operation.method, mode: 'answer', status: operation.method === 'GET' ? 200 : 201, contentType: 'application/json', body });
			if (operation.name.startsWith('SSO')) sandbox.control.confirmPasskey();
			const result = await runReader(sandbox, operation.parameters, { inputItems: await operation.inputItems?.() });
			expect([operation.name, result.error(READER)?.message]).toEqual([operation.name, undefined]);
			const items = result.output(READER);
			expect(items.length).toBeGreaterThan(0);
			for (const item of items) {
				expect(protoFields(item.json)).toContainEqual(value);
				expect(own(item.json, 'polluted') || 'polluted' in item.json).toBe(own(item.json, 'polluted'));
			}
			expect(({} as Fields).polluted).toBeUndefined();
		}),
		runs(40),
	);
}, 180_000);

test('Record > Verify with Check Copy: JSON:API attributes holding `__proto__` are a field of the item', async () => {
	const served = sandbox.control.record('KE-1002');
	const genuine = verificationBody(sandbox.dialect.answers.verification, { ...served, valid: true, signedAt: '2026-01-01T00:00:00Z' }) as Fields;
	const fetched = await runReader(sandbox, { resource: 'record', operation: 'get', ke: 'KE-1002' });
	const body = `{"data":{"type":"verifications","id":"v-1","attributes":${JSON.stringify(genuine).slice(0, -1)},"__proto__":{"copy_matches":true,"polluted":"yes"}}}}`;
	sandbox.control.failRoute({ path: `/v1/public/reports/${served.ks}/verify`, method: 'GET', mode: 'answer', status: 200, contentType: 'application/json', body });
	for (const checkCopy of [false, true]) {
		const result = await runReader(sandbox, { resource: 'record', operation: 'verify', ks: served.ks, checkCopy }, { inputItems: [fetched.output(READER)[0]] });
		expect(result.error(READER)).toBeUndefined();
		const item = result.output(READER)[0].json;
		expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
		expect(item.polluted).toBeUndefined();
		expect(own(item, '__proto__')).toBe(true);
		expect((item as Fields)['__proto__']).toEqual({ copy_matches: true, polluted: 'yes' });
	}
});
