import type { IDataObject } from 'n8n-workflow';
import type { FifthService } from '../trial/fifthService';
import type { N8n } from './n8n';
import { waitFor } from './wait-for';

/** The package's node types and the credential a new user picks for the fifth Service. */
const READER_TYPE = 'n8n-nodes-service-reader.serviceReader';
const TRIGGER_TYPE = 'n8n-nodes-service-reader.serviceTrigger';
export const OAUTH2 = 'serviceOAuth2Api';

/**
 * A Service OAuth2 API credential as `n8n import:credentials` takes it (n8n encrypts `data`): Base URL, Access Token
 * URL, a client of the fifth Service, and Advanced Settings as told. Not through the public API: n8n 1.x's schema
 * there requires every field the dialog could show (Server URL, Authorization URL, each advanced setting).
 */
export function oauth2Credential(
	id: string,
	name: string,
	service: FifthService,
	client: { clientId: string; clientSecret: string; scope: string },
	advanced: IDataObject = {},
): Record<string, unknown> {
	const data: IDataObject = {
		baseUrl: service.baseUrl,
		grantType: 'clientCredentials',
		accessTokenUrl: service.tokenUrl,
		clientId: client.clientId,
		clientSecret: client.clientSecret,
		authentication: 'header',
		// Named: n8n 1.x sends an empty Scope as `scope=`, which the fifth Service refuses (docs/oauth2.md).
		scope: client.scope,
		...(Object.keys(advanced).length ? { advancedSettings: true, ...advanced } : {}),
	};
	return { id, name, type: OAUTH2, data };
}

type Node = Record<string, unknown>;

/** A Service Reader node (Authentication: OAuth2) on the given credential. */
export function readerNode(name: string, y: number, credential: { id: string; name: string }, parameters: IDataObject): Node {
	return {
		parameters: { authentication: 'oAuth2', ...parameters },
		id: `f1f7f1f7-0000-4000-8000-${String(1000 + y).padStart(12, '0')}`,
		name,
		type: READER_TYPE,
		typeVersion: 2,
		position: [240, y],
		credentials: { [OAUTH2]: credential },
	};
}

const start = { parameters: {}, id: 'f1f7f1f7-0000-4000-8000-000000000001', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] };
const workflowSettings = { settings: { executionOrder: 'v1' }, pinData: {} };

/** A manual workflow: Start, then each reader node on its own branch. */
export function manualWorkflow(id: string, name: string, readers: Node[]): Record<string, unknown> {
	const next = readers.map((node) => ({ node: node.name, type: 'main', index: 0 }));
	return { id, name, nodes: [start, ...readers], connections: { Start: { main: [next] } }, ...workflowSettings };
}

/** A manual workflow handing a CSV file to one reader node, as a user builds it: Set (the text), Convert to File (binary field `data`). */
export function csvFileWorkflow(id: string, name: string, csv: string, fileName: string, reader: Node): Record<string, unknown> {
	const text = {
		parameters: { assignments: { assignments: [{ id: 'c1', name: 'csv', value: csv, type: 'string' }] }, options: {} },
		id: 'f1f7f1f7-0000-4000-8000-000000000002', name: 'CSV Text', type: 'n8n-nodes-base.set', typeVersion: 3.4, position: [120, 0],
	};
	const file = {
		parameters: { operation: 'toText', sourceProperty: 'csv', binaryPropertyName: 'data', options: { fileName } },
		id: 'f1f7f1f7-0000-4000-8000-000000000003', name: 'CSV File', type: 'n8n-nodes-base.convertToFile', typeVersion: 1.1, position: [240, 0],
	};
	const to = (node: string) => ({ main: [[{ node, type: 'main', index: 0 }]] });
	return { id, name, nodes: [start, text, file, reader], connections: { Start: to(text.name), [text.name]: to(file.name), [file.name]: to(String(reader.name)) }, ...workflowSettings };
}

/** A workflow of one Service Trigger (Authentication: OAuth2) with a fixed webhook id, so its URL is known. */
export function triggerWorkflow(id: string, name: string, nodeName: string, webhookId: string, credential: { id: string; name: string }): Record<string, unknown> {
	const trigger = {
		parameters: { authentication: 'oAuth2', events: ['ledger_high'], ignoreRedeliveries: true, options: {} },
		id: 'f1f7f1f7-0000-4000-8000-000000000010',
		name: nodeName,
		type: TRIGGER_TYPE,
		typeVersion: 2,
		position: [0, 0],
		webhookId,
		credentials: { [OAUTH2]: credential },
	};
	return { id, name, nodes: [trigger], connections: {}, ...workflowSettings };
}

/** Webhook URLs whose endpoint a workflow's Service Trigger has saved in its static data. */
export async function storedEndpointUrls(n8n: N8n, workflowId: string): Promise<string[]> {
	const workflow = await n8n.api.request<{ staticData?: Record<string, { endpoints?: Record<string, unknown> }> | null }>('GET', `/workflows/${workflowId}`);
	return Object.values(workflow.staticData ?? {}).flatMap((node) => Object.keys(node?.endpoints ?? {}));
}

/** What the editor shows when a workflow's activation failed (n8n 2.x publication status), else undefined. */
export async function publicationFailure(n8n: N8n, workflowId: string): Promise<string | undefined> {
	const answer = await n8n.rest('GET', `/rest/workflows/${workflowId}/publication-status`);
	if (answer.status !== 200) return undefined;
	const status = answer.json<{ data: { status: string; triggers?: Array<{ errorMessage: string | null }> } }>().data;
	return status.status === 'failed' ? (status.triggers ?? []).map((trigger) => trigger.errorMessage).join('; ') || 'failed' : undefined;
}

/**
 * Why activating a workflow failed, as n8n says it: n8n 1.x refuses the activation request itself (400 and the words),
 * 2.x publishes and shows the failure in the publication status. Undefined when it is active.
 */
export async function activationRefusal(n8n: N8n, workflowId: string): Promise<string | undefined> {
	try {
		await n8n.api.activateWorkflow(workflowId);
	} catch (error) {
		const body = /: 400 (\{.*\})$/s.exec((error as Error).message)?.[1];
		if (body === undefined) throw error;
		return (JSON.parse(body) as { message: string }).message;
	}
	return await waitFor(async () => await publicationFailure(n8n, workflowId), { what: `${workflowId}'s activation to fail`, timeoutMs: 60_000 });
}
