/**
 * The workflows of item 1, in the JSON `n8n import:workflow` reads. Each starts with a Manual
 * Trigger so `n8n execute --id` runs it. Execution data is not saved to n8n's database (workflow
 * settings): `n8n execute` still prints the whole run data, and saving a million items would
 * measure n8n's database instead of the nodes. The setting is the same for every variant.
 */

export type ExportVariant = 'baseline' | 'A' | 'B' | 'C' | 'floor';

export const variantNames: Record<ExportVariant, string> = {
	baseline: 'n8n alone (Manual Trigger only)',
	A: 'Service Reader, items',
	B: 'Service Reader, one CSV file',
	C: 'HTTP Request (paginated) + Extract From File',
	floor: 'HTTP Request alone (paginated, pages kept as files, no parsing)',
};

export const SERVICE_CREDENTIAL = { id: 'benchService0001', name: 'Service (bench)' };
export const HEADER_CREDENTIAL = { id: 'benchHeaderAuth01', name: 'Service token header (bench)' };

/** Credentials for `n8n import:credentials`: the package's own, and a header credential for variant C. */
export function benchCredentials(baseUrl: string, token: string): Array<Record<string, unknown>> {
	return [
		{ ...SERVICE_CREDENTIAL, type: 'serviceApi', data: { baseUrl, accessToken: token } },
		{ ...HEADER_CREDENTIAL, type: 'httpHeaderAuth', data: { name: 'Authorization', value: `Bearer ${token}` } },
	];
}

const settings = {
	executionOrder: 'v1',
	saveDataSuccessExecution: 'none',
	saveManualExecutions: false,
	saveExecutionProgress: false,
};

const trigger = { id: 'b1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };

function workflow(id: string, name: string, nodes: Array<Record<string, unknown>>) {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < nodes.length; i++) {
		connections[nodes[i].name as string] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	}
	return { id, name, active: false, settings, nodes, connections };
}

/** Variants A and B: Portfolio > Get Many, Return All, CSV, as items or as one file. */
function serviceReader(output: 'items' | 'file') {
	return {
		id: 'b2',
		name: 'Service Reader',
		type: 'n8n-nodes-service-reader.serviceReader',
		typeVersion: 1,
		position: [220, 0],
		parameters: { resource: 'portfolio', operation: 'getAll', format: 'csv', output, binaryPropertyName: 'data', returnAll: true },
		credentials: { serviceApi: SERVICE_CREDENTIAL },
	};
}

/**
 * Variant C, what a user builds without the package: the HTTP Request node's own pagination
 * sends X-Service-Next-Cursor back as `cursor` until a page comes without it, each page kept as
 * a file, then Extract From File turns every page's CSV into one item per row.
 */
function httpRequestPaged(baseUrl: string) {
	return [
		{
			id: 'b2',
			name: 'HTTP Request',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.5,
			position: [220, 0],
			parameters: {
				url: `${baseUrl}/v1/reader/exports/portfolio`,
				authentication: 'genericCredentialType',
				genericAuthType: 'httpHeaderAuth',
				sendQuery: true,
				queryParameters: { parameters: [{ name: 'format', value: 'csv' }] },
				options: {
					response: { response: { responseFormat: 'file' } },
					pagination: {
						pagination: {
							paginationMode: 'updateAParameterInEachRequest',
							parameters: {
								parameters: [{ type: 'qs', name: 'cursor', value: '={{ $response.headers["x-service-next-cursor"] }}' }],
							},
							paginationCompleteWhen: 'other',
							completeExpression: '={{ !$response.headers["x-service-next-cursor"] }}',
						},
					},
				},
			},
			credentials: { httpHeaderAuth: HEADER_CREDENTIAL },
		},
		{
			id: 'b3',
			name: 'Extract From File',
			type: 'n8n-nodes-base.extractFromFile',
			typeVersion: 1.1,
			position: [440, 0],
			parameters: { operation: 'csv', binaryPropertyName: 'data', options: {} },
		},
	];
}

export const workflowIds: Record<ExportVariant, string> = {
	baseline: 'benchBaseline001',
	A: 'benchExportItems1',
	B: 'benchExportFile01',
	C: 'benchHttpRequest1',
	floor: 'benchHttpFloor001',
};

export function exportWorkflow(variant: ExportVariant, baseUrl: string) {
	const name = `Bench ${variant}: ${variantNames[variant]}`;
	switch (variant) {
		case 'baseline':
			return workflow(workflowIds.baseline, name, [trigger]);
		case 'A':
			return workflow(workflowIds.A, name, [trigger, serviceReader('items')]);
		case 'B':
			return workflow(workflowIds.B, name, [trigger, serviceReader('file')]);
		case 'C':
			return workflow(workflowIds.C, name, [trigger, ...httpRequestPaged(baseUrl)]);
		case 'floor':
			// n8n's own floor for paged fetching: C without the parsing, one item (a file) per page.
			return workflow(workflowIds.floor, name, [trigger, httpRequestPaged(baseUrl)[0]]);
	}
}
