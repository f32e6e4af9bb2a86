import { CredentialTestContext } from 'n8n-core';
import type { ICredentialDataDecryptedObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { createAdditionalData, registerNodeType, runWorkflow } from '../harness';
import { credentialTestProbe } from '../../nodes/shared/transport/credentialTestProbe';
import { nodeProbe } from '../../nodes/shared/transport/probe';
import { PROBE_LIMITS, type Probe, type ProbeAnswer, type ProbeRequest } from '../../nodes/shared/settingsCheck/types';
import { serviceApi } from '../sandbox/credential';
import { useSandbox } from '../sandbox/useSandbox';

/**
 * Check Settings' two probes against the sandbox, each through n8n's own client: the node's
 * (httpRequestWithAuthentication in n8n-core's engine) and the credential test's (helpers.request of
 * n8n-core's CredentialTestContext). Both send GETs only, with the credential's own authenticate,
 * never follow a redirect, answer any status, and keep at most PROBE_LIMITS.bodyBytes of a body.
 */
const sandbox = useSandbox();
const CATALOGUE = '/v1/reader/webhooks/catalogue';

interface Seen {
	status: number;
	headers: Record<string, string>;
	bytes: number;
	truncated: boolean;
	text: string;
}
const seen = (answer: ProbeAnswer): Seen => ({
	status: answer.status,
	headers: Object.fromEntries(answer.headers),
	bytes: answer.body.length,
	truncated: answer.truncated,
	text: Buffer.from(answer.body).toString('utf8', 0, Math.min(answer.body.length, 64 * 1024)),
});

/** A node that runs the node probe once per request named in its parameter, in n8n-core's engine. */
class ProbeNode implements INodeType {
	static requests: ProbeRequest[] = [];
	description: INodeTypeDescription = {
		displayName: 'Probe',
		name: 'probe',
		group: ['transform'],
		version: 1,
		description: 'Runs the Check Settings probe',
		defaults: { name: 'Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'serviceApi', required: true }],
		properties: [],
	};
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const probe = nodeProbe(this, await this.getCredentials('serviceApi'));
		const out: INodeExecutionData[] = [];
		for (const request of ProbeNode.requests) {
			try {
				out.push({ json: { ...seen(await probe(request)) } });
			} catch (error) {
				out.push({ json: { thrown: (error as Error).message } });
			}
		}
		return [out];
	}
}
registerNodeType('test.probe', new ProbeNode());

type Outcome = Seen | { thrown: string };
const viaNode = async (credentials: ICredentialDataDecryptedObject, requests: ProbeRequest[]): Promise<Outcome[]> => {
	ProbeNode.requests = requests;
	const result = await runWorkflow(
		{
			nodes: [
				{ id: 'start', name: 'Start', type: 'test.testItems', typeVersion: 1, position: [0, 0], parameters: {} },
				{ id: 'probe', name: 'Probe', type: 'test.probe', typeVersion: 1, position: [200, 0], parameters: {}, credentials: { serviceApi: { id: 'cred-1', name: 'Service API' } } },
			],
			connections: { Start: { main: [[{ node: 'Probe', type: 'main', index: 0 }]] } },
		},
		{ credentials: { serviceApi: credentials } },
	);
	expect(result.error('Probe')).toBeUndefined();
	return result.output('Probe').map((item) => item.json as unknown as Outcome);
};
const viaCredentialTest = async (credentials: ICredentialDataDecryptedObject, requests: ProbeRequest[]): Promise<Outcome[]> => {
	const probe: Probe = credentialTestProbe(new CredentialTestContext(createAdditionalData(undefined, {})), credentials);
	const out: Outcome[] = [];
	for (const request of requests) {
		try {
			out.push(seen(await probe(request)));
		} catch (error) {
			out.push({ thrown: (error as Error).message });
		}
	}
	return out;
};

describe.each([
	['the node probe (httpRequestWithAuthentication)', viaNode],
	['the credential test probe (CredentialTestContext helpers.request)', viaCredentialTest],
])('%s', (_name, run) => {
	afterEach(() => sandbox.control.clearFaults());
	const credential = () => serviceApi(sandbox, { advanced: {} });

	test('a GET with the query as given, the token as the credential sends it; headers in lower case, the body whole', async () => {
		const [answer] = (await run(credential(), [{ path: CATALOGUE, query: [['a b', 'x&y'], ['page[size]', '2']] }])) as Seen[];

		expect(answer.status).toBe(200);
		expect(answer.headers['content-type']).toMatch(/^application\/json/);
		expect(answer.truncated).toBe(false);
		expect(answer.bytes).toBe(Buffer.byteLength(answer.text));
		expect(JSON.parse(answer.text)).toBeInstanceOf(Object);
		const received = sandbox.control.requests();
		expect(received.map((r) => [r.method, r.path, r.query, r.reader, r.status])).toEqual([['GET', CATALOGUE, { 'a b': 'x&y', 'page[size]': '2' }, 'reader', 200]]);
	});

	test('a redirect is an answer, not followed; a 404 is an answer, not an error', async () => {
		sandbox.control.failRoute({ path: CATALOGUE, mode: 'redirect', status: 302, location: 'https://localhost:9/elsewhere', times: 1 });
		const answers = (await run(credential(), [{ path: CATALOGUE }, { path: '/v1/nothing-here' }])) as Seen[];

		expect(answers.map((a) => [a.status, a.headers.location])).toEqual([
			[302, 'https://localhost:9/elsewhere'],
			[404, undefined],
		]);
		expect(sandbox.control.requests().map((r) => [r.method, r.path])).toEqual([
			['GET', CATALOGUE],
			['GET', '/v1/nothing-here'],
		]);
	});

	test(`a body of 1 MiB: its first ${PROBE_LIMITS.bodyBytes} bytes kept, marked truncated`, async () => {
		sandbox.control.failRoute({ path: CATALOGUE, mode: 'oversize', bytes: 1024 * 1024, times: 1 });
		const [answer] = (await run(credential(), [{ path: CATALOGUE }])) as Seen[];

		expect([answer.status, answer.bytes, answer.truncated]).toEqual([200, PROBE_LIMITS.bodyBytes, true]);
	});

	test('`fields` change the credential for one request only: the token sent as another header is not the bearer the Service reads', async () => {
		const answers = (await run(credential(), [
			{ path: CATALOGUE, fields: { tokenPlacement: 'header', authHeaderName: 'X-Api-Key' } },
			{ path: CATALOGUE },
		])) as Seen[];

		expect(answers.map((a) => a.status)).toEqual([401, 200]);
		expect(sandbox.control.requests().map((r) => r.reader)).toEqual([undefined, 'reader']);
	});

	test('nothing is sent to another origin, nor over http://: refused before sending', async () => {
		const outcomes = await run(credential(), [
			{ path: 'https://localhost:9/v1/reader/webhooks/catalogue' },
			{ path: CATALOGUE, fields: { baseUrl: sandbox.baseUrl.replace('https://', 'http://') } },
		]);

		expect(outcomes.map((o) => 'thrown' in o)).toEqual([true, true]);
		expect(sandbox.control.requests()).toEqual([]);
	});
});
