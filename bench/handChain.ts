/**
 * The hand-built chain n8n forum answers tell a user to build for signed webhooks, verifying the
 * Service's `Service-Signature` (t=…,v1=…, HMAC-SHA256 of "t.body"): Webhook (Raw Body on, answer
 * from a Respond to Webhook node) → Extract From File (the raw body as text: n8n 2.x keeps binary
 * data on disk, so `$binary.data.data` is no longer the content) → Crypto (HMAC-SHA256 of "t." + the
 * raw body, keyed by the Crypto credential's HMAC secret) → IF (the HMAC equals `v1`, and `t` is
 * within 300 s of now) → Respond to Webhook 200 on true, 401 on false. Every request starts an
 * execution, forged or not.
 *
 * The Crypto credential holds the secret as text and the node keys the HMAC with its UTF-8 bytes, as
 * Stripe does; the Service's `whsec_` + base64 secrets key it with the decoded bytes, which no text
 * field can hold. So the chain is given a secret that is its own key text (the Service Trigger's
 * Secret Encoding "raw" case), and its deliveries are signed with that.
 */
export const HAND_CHAIN_WORKFLOW_ID = 'benchHandChain001';
export const HAND_CHAIN_PATH = 'bench-hand-chain';
export const HAND_CHAIN_CREDENTIAL = { id: 'benchCryptoHmac01', name: 'HMAC secret (bench hand-built chain)' };

/** The Crypto credential n8n imports, holding the chain's secret. */
export function handChainCredential(secret: string) {
	return { ...HAND_CHAIN_CREDENTIAL, type: 'crypto', data: { hmacSecret: secret } };
}

// The header's fields as forum answers split them: t= and v1= (the last v1 wins, as a split-and-map does).
const header = `($json.headers["service-signature"] || "")`;
const field = (name: string) => `(${header}.split(",").map(p => p.trim()).filter(p => p.startsWith("${name}=")).pop() || "").slice(${name.length + 1})`;

export function handChainWorkflow() {
	const respond = (id: string, name: string, code: number, y: number) => ({
		id,
		name,
		type: 'n8n-nodes-base.respondToWebhook',
		typeVersion: 1.5,
		position: [880 + 220, y],
		parameters: { respondWith: 'noData', options: { responseCode: code } },
	});
	return {
		id: HAND_CHAIN_WORKFLOW_ID,
		name: 'Bench: hand-built chain (Webhook, Extract From File, Crypto, IF, Respond to Webhook)',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'h1',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: '9c2e4a61-7b3d-4f0e-a5c8-d1e2f3a4b502',
				parameters: { httpMethod: 'POST', path: HAND_CHAIN_PATH, responseMode: 'responseNode', options: { rawBody: true } },
			},
			{
				id: 'h6',
				name: 'Raw body as text',
				type: 'n8n-nodes-base.extractFromFile',
				typeVersion: 1.1,
				position: [220, 0],
				parameters: { operation: 'text', binaryPropertyName: 'data', destinationKey: 'rawBody', options: { encoding: 'utf8', keepSource: 'json' } },
			},
			{
				id: 'h2',
				name: 'Crypto',
				type: 'n8n-nodes-base.crypto',
				typeVersion: 2,
				position: [440, 0],
				parameters: {
					action: 'hmac',
					type: 'SHA256',
					value: `={{ ${field('t')} }}.{{ $json.rawBody }}`,
					dataPropertyName: 'expected_v1',
					encoding: 'hex',
				},
				credentials: { crypto: HAND_CHAIN_CREDENTIAL },
			},
			{
				id: 'h3',
				name: 'Signature valid?',
				type: 'n8n-nodes-base.if',
				typeVersion: 2.2,
				position: [660, 0],
				parameters: {
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
						conditions: [
							{
								id: 'c1',
								leftValue: '={{ $json.expected_v1 }}',
								rightValue: `={{ ${field('v1')} }}`,
								operator: { type: 'string', operation: 'equals' },
							},
							{
								id: 'c2',
								leftValue: `={{ Math.abs($now.toSeconds() - Number(${field('t')})) }}`,
								rightValue: 300,
								operator: { type: 'number', operation: 'lte' },
							},
						],
						combinator: 'and',
					},
					options: {},
				},
			},
			respond('h4', 'Accept', 200, -100),
			respond('h5', 'Refuse', 401, 100),
		],
		connections: {
			Webhook: { main: [[{ node: 'Raw body as text', type: 'main', index: 0 }]] },
			'Raw body as text': { main: [[{ node: 'Crypto', type: 'main', index: 0 }]] },
			Crypto: { main: [[{ node: 'Signature valid?', type: 'main', index: 0 }]] },
			'Signature valid?': {
				main: [[{ node: 'Accept', type: 'main', index: 0 }], [{ node: 'Refuse', type: 'main', index: 0 }]],
			},
		},
	};
}
