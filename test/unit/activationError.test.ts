import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import { activationError } from '../../nodes/ServiceTrigger/lifecycle/lifecycle';

const node: INode = { id: '1', name: 'Service Trigger', type: 'n8n-nodes-service-reader.serviceTrigger', typeVersion: 2, position: [0, 0], parameters: {} };

describe('an activation failure, as every n8n line shows it', () => {
	it('a refusal (NodeApiError) becomes a NodeOperationError with its message and description: n8n 1.x would show the description alone', () => {
		const refused = new NodeApiError(node, { status: 422 }, {
			message: 'The Service answered 422 naming `endpoint_url`, which the node did not send. Set Request Names > Webhook Endpoint > URL to `endpoint_url` (sent as `url`).',
			description: 'The Service refused the request (422): is required. Check the parameters of this node against what the Service expects. (POST /v1/reader/webhooks)',
			httpCode: '422',
		});
		const shown = activationError(node, refused) as NodeOperationError;
		expect(shown).toBeInstanceOf(NodeOperationError);
		expect(shown).not.toBeInstanceOf(NodeApiError);
		expect([shown.message, shown.description]).toEqual([refused.message, refused.description]);
	});

	it('anything else passes as it was', () => {
		const own = new NodeOperationError(node, 'The Service accepts https webhook URLs only', { description: 'Set WEBHOOK_URL' });
		const plain = new Error('socket hang up');
		expect(activationError(node, own)).toBe(own);
		expect(activationError(node, plain)).toBe(plain);
	});
});
