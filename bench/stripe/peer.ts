/**
 * n8n's own Stripe Trigger as a peer of the Service Trigger, offline: n8n sends its outbound HTTPS
 * through HTTPS_PROXY, and the proxy hands CONNECT api.stripe.com:443 to the local stand-in (whose CA
 * n8n trusts), so activating the trigger registers its endpoint there and gets a signing secret.
 * Deliveries then carry `Stripe-Signature` (t=…,v1=… HMAC-SHA256 of "t.body" keyed with the secret
 * text) on a Stripe event body.
 */
import { startConnectProxy, type ConnectProxy } from '../../test/e2e/fixtures/connect-proxy';
import { startStripeStandIn, STRIPE_API_HOST, type StripeStandIn } from './standIn';

export const STRIPE_WORKFLOW_ID = 'benchStripeTrig01';
export const STRIPE_WEBHOOK_ID = '7d3f5b72-8c4e-4a1f-b6d9-e2f3a4b5c601';
export const STRIPE_CREDENTIAL = { id: 'benchStripeApi001', name: 'Stripe (bench stand-in)' };

export interface StripePeer {
	standIn: StripeStandIn;
	proxy: ConnectProxy;
	/** What n8n needs: its outbound HTTPS through the proxy, loopback (the sandbox, its task runners) direct. */
	env: Record<string, string>;
	close(): Promise<void>;
}

export async function startStripePeer(): Promise<StripePeer> {
	const standIn = await startStripeStandIn();
	const proxy = await startConnectProxy({ routes: { [`${STRIPE_API_HOST}:443`]: { host: '127.0.0.1', port: standIn.port } } }).catch(
		async (error: Error) => {
			await standIn.close();
			throw error;
		},
	);
	const noProxy = 'localhost,127.0.0.1,::1';
	return {
		standIn,
		proxy,
		env: {
			HTTPS_PROXY: proxy.url,
			https_proxy: proxy.url,
			HTTP_PROXY: proxy.url,
			http_proxy: proxy.url,
			NO_PROXY: noProxy,
			no_proxy: noProxy,
		},
		close: async () => {
			await proxy.close();
			await standIn.close();
		},
	};
}

/** The stripeApi credential: the stand-in's secret key, no signature secret (the trigger uses the one its endpoint got). */
export function stripeCredential(standIn: StripeStandIn) {
	return { ...STRIPE_CREDENTIAL, type: 'stripeApi', data: { secretKey: standIn.secretKey } };
}

/** The Stripe Trigger on every event, answering at once (its only mode), as a user adds it. */
export function stripeTriggerWorkflow() {
	return {
		id: STRIPE_WORKFLOW_ID,
		name: 'Bench: n8n Stripe Trigger (verifies Stripe-Signature)',
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {},
		nodes: [
			{
				id: 's1',
				name: 'Stripe Trigger',
				type: 'n8n-nodes-base.stripeTrigger',
				typeVersion: 1,
				position: [0, 0],
				webhookId: STRIPE_WEBHOOK_ID,
				parameters: { events: ['*'] },
				credentials: { stripeApi: STRIPE_CREDENTIAL },
			},
		],
	};
}

const eventTypes = ['invoice.paid', 'customer.updated', 'charge.succeeded', 'payment_intent.created', 'customer.subscription.updated'];

/** A Stripe event body of about the Service event's size, the nth of a run. */
export function stripeEvent(id: string, n: number): Buffer {
	return Buffer.from(
		JSON.stringify({
			id: `evt_${id}`,
			object: 'event',
			type: eventTypes[n % eventTypes.length],
			created: Math.floor(Date.now() / 1000),
			livemode: false,
			data: { object: { id: `cus_${String(n % 1_000_000).padStart(7, '0')}`, object: 'customer' } },
		}),
	);
}
