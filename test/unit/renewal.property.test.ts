/**
 * Renewal under simultaneous deliveries (issue 36): however the credential reads and the Service's
 * answers interleave (fast-check's scheduler), deliveries that find the stored secret sealed under an
 * earlier token renew each trigger's endpoint at most once in this process, whether the Service
 * registers it or fails; every later delivery within the hour asks the Service nothing; and a renewed
 * endpoint's secret opens with the current token. What two processes do is in docs/trigger.md.
 */
import { Readable } from 'node:stream';

import fc from 'fast-check';
import type { IWebhookFunctions } from 'n8n-workflow';

import { renewalAttempts, renewEndpoint, type EndpointRenewal } from '../../nodes/ServiceTrigger/lifecycle/renewal';
import { storedEndpoints } from '../../nodes/ServiceTrigger/lifecycle/staticData';
import { heldSecrets } from '../../nodes/ServiceTrigger/verify/heldSecrets';
import { sealSecret, unsealSecret } from '../../nodes/ServiceTrigger/verify/secretSeal';
import { runs } from '../property/fc';

const OLD_TOKEN = 'tok_old_0123456789abcdef';
const NEW_TOKEN = 'tok_new_fedcba9876543210';
const BASE_URL = 'https://service.example';

interface Sent {
	method: string;
	url: string;
	trigger: number;
}

interface World {
	staticData: Array<Record<string, unknown>>;
	sent: Sent[];
	endpointsMade: number;
}

/** A delivery's context in one trigger: its credential reads and its requests wait for the scheduler. */
function deliveryContext(world: World, trigger: number, s: fc.Scheduler, registerFails: boolean): IWebhookFunctions {
	const url = `https://n8n.example/webhook/trigger-${trigger}/webhook`;
	const logger = { warn: () => undefined, error: () => undefined, info: () => undefined, debug: () => undefined };
	const answer = (statusCode: number, body: unknown) => ({
		statusCode,
		headers: { 'content-type': 'application/json' },
		body: Readable.from(body === undefined ? [] : [Buffer.from(JSON.stringify(body))]),
	});
	const context = {
		getMode: () => 'webhook',
		getNodeWebhookUrl: () => url,
		getWorkflowStaticData: () => world.staticData[trigger],
		getNode: () => ({ name: `Service Trigger ${trigger}`, type: 'serviceTrigger', typeVersion: 1, parameters: {}, id: String(trigger), position: [0, 0] }),
		getWorkflow: () => ({ id: `wf-${trigger}`, name: `Workflow ${trigger}`, active: true }),
		// No option set: each parameter as its default (Signing Secret Field is read when registering).
		getNodeParameter: (_name: string, fallback: unknown) => fallback,
		logger,
		getCredentials: async () => await s.schedule(Promise.resolve({ baseUrl: BASE_URL, accessToken: NEW_TOKEN }), `credentials ${trigger}`),
		helpers: {
			httpRequestWithAuthentication: async (_credential: string, request: { method: string; url: string }) => {
				world.sent.push({ method: request.method, url: request.url, trigger });
				if (request.method === 'POST') {
					if (registerFails) return await s.schedule(Promise.resolve(answer(503, { message: 'down' })), `POST ${trigger}`);
					world.endpointsMade++;
					const secret = Buffer.from(`secret-${trigger}-${world.endpointsMade}-0123456789`).toString('base64');
					return await s.schedule(Promise.resolve(answer(201, { id: `we_new_${world.endpointsMade}`, secret })), `POST ${trigger}`);
				}
				return await s.schedule(Promise.resolve(answer(204, undefined)), `${request.method} ${trigger}`);
			},
		},
	};
	return context as unknown as IWebhookFunctions;
}

function staleEndpoint(trigger: number): Record<string, unknown> {
	const url = `https://n8n.example/webhook/trigger-${trigger}/webhook`;
	const secret = Buffer.from(`secret-old-${trigger}-0123456789abcdef`).toString('base64');
	return { endpoints: { [url]: { id: `we_old_${trigger}`, sealedSecret: sealSecret(secret, OLD_TOKEN, url), createdAt: new Date(0).toISOString() } } };
}

describe('renewal under simultaneous deliveries, in one process', () => {
	beforeEach(() => {
		renewalAttempts.clear();
		heldSecrets.clear();
	});

	it('renews each trigger at most once, whatever the interleaving; later deliveries ask nothing; the renewed secret opens with the current token', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.scheduler(),
				fc.integer({ min: 1, max: 3 }),
				fc.array(fc.nat({ max: 2 }), { minLength: 1, maxLength: 12 }),
				fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
				async (s, triggers, deliveries, failing) => {
					renewalAttempts.clear();
					heldSecrets.clear();
					const world: World = { staticData: [0, 1, 2].map(staleEndpoint), sent: [], endpointsMade: 0 };
					const targets = deliveries.map((d) => d % triggers);
					const results = targets.map((trigger) =>
						renewEndpoint.call(deliveryContext(world, trigger, s, failing[trigger]), `wf-${trigger}/node-${trigger}`),
					);
					// Released as each becomes waiting, also after the answer bodies are read.
					const outcomes = (await s.waitFor(Promise.all(results))) as Array<EndpointRenewal | undefined>;

					for (let trigger = 0; trigger < triggers; trigger++) {
						const mine = outcomes.filter((_, i) => targets[i] === trigger);
						const attempted = mine.filter((o) => o !== undefined);
						const posts = world.sent.filter((r) => r.trigger === trigger && r.method === 'POST');
						if (mine.length === 0) {
							expect(posts).toHaveLength(0);
							continue;
						}
						// Exactly one of the trigger's deliveries renews (or fails to), the others do nothing.
						expect(attempted).toHaveLength(1);
						expect(posts).toHaveLength(1);
						const url = `https://n8n.example/webhook/trigger-${trigger}/webhook`;
						const stored = storedEndpoints(world.staticData[trigger])[url];
						expect(stored.renewalAttemptedAt).toBe(attempted[0]!.attemptedAt);
						if (failing[trigger]) {
							expect(attempted[0]!.notice).toBe('service_trigger_endpoint_renewal_failed');
							expect(stored.id).toBe(`we_old_${trigger}`);
						} else {
							expect(attempted[0]!.notice).toBe('service_trigger_endpoint_renewed');
							expect(stored.id).toBe(attempted[0]!.newEndpointId);
							expect(unsealSecret(stored.sealedSecret, NEW_TOKEN, url)).toEqual(expect.stringMatching(/./));
							// The old endpoint is deleted, once.
							expect(world.sent.filter((r) => r.trigger === trigger && r.method === 'DELETE').map((r) => r.url)).toEqual([
								`${BASE_URL}/v1/reader/webhooks/we_old_${trigger}`,
							]);
						}
					}

					// A second wave within the hour: nothing is asked of the Service, nothing renewed.
					const before = world.sent.length;
					const again = targets.map((trigger) => renewEndpoint.call(deliveryContext(world, trigger, s, failing[trigger]), `wf-${trigger}/node-${trigger}`));
					expect((await s.waitFor(Promise.all(again))).filter((o) => o !== undefined)).toEqual([]);
					expect(world.sent.length).toBe(before);
				},
			),
			runs(60),
		);
	});

	it('a renewal stored in static data within the hour holds in a process that does not remember it (n8n restarted)', async () => {
		await fc.assert(
			fc.asyncProperty(fc.scheduler(), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 59 }), async (s, count, minutesAgo) => {
				renewalAttempts.clear();
				heldSecrets.clear();
				const world: World = { staticData: [staleEndpoint(0)], sent: [], endpointsMade: 0 };
				const url = 'https://n8n.example/webhook/trigger-0/webhook';
				const entry = storedEndpoints(world.staticData[0])[url];
				(world.staticData[0].endpoints as Record<string, unknown>)[url] = { ...entry, renewalAttemptedAt: new Date(Date.now() - minutesAgo * 60_000).toISOString() };
				const all = Array.from({ length: count }, () => renewEndpoint.call(deliveryContext(world, 0, s, false), 'wf-0/node-0'));
				expect((await s.waitFor(Promise.all(all))).filter((o) => o !== undefined)).toEqual([]);
				expect(world.sent).toEqual([]);
			}),
			runs(30),
		);
	});

});

describe('renewal under simultaneous deliveries, in two webhook processes (queue mode)', () => {
	// Each process has its own memory (a second copy of the modules) and reads the static data as n8n
	// stored it when the delivery arrived; n8n saves each delivery's static data after it, the last save winning.
	const processes = [
		{ renewEndpoint, renewalAttempts, heldSecrets },
		(() => {
			let copy: { renewEndpoint: typeof renewEndpoint; renewalAttempts: typeof renewalAttempts; heldSecrets: typeof heldSecrets } | undefined;
			jest.isolateModules(() => {
				const renewal = require('../../nodes/ServiceTrigger/lifecycle/renewal') as typeof import('../../nodes/ServiceTrigger/lifecycle/renewal');
				const held = require('../../nodes/ServiceTrigger/verify/heldSecrets') as typeof import('../../nodes/ServiceTrigger/verify/heldSecrets');
				copy = { renewEndpoint: renewal.renewEndpoint, renewalAttempts: renewal.renewalAttempts, heldSecrets: held.heldSecrets };
			});
			return copy!;
		})(),
	];

	it('each process renews at most once; the endpoint stored last exists at the Service and its secret opens with the current token', async () => {
		await fc.assert(
			fc.asyncProperty(fc.scheduler(), fc.array(fc.nat({ max: 1 }), { minLength: 1, maxLength: 8 }), async (s, deliveries) => {
				for (const p of processes) {
					p.renewalAttempts.clear();
					p.heldSecrets.clear();
				}
				const url = 'https://n8n.example/webhook/trigger-0/webhook';
				let saved = staleEndpoint(0);
				const world: World = { staticData: [], sent: [], endpointsMade: 0 };
				const arrivals = deliveries.map(async (which, i) => {
					// The delivery's copy of the static data, read when it arrives (after the scheduler lets it).
					await s.schedule(Promise.resolve(), `delivery ${i} arrives at process ${which}`);
					const mine = structuredClone(saved);
					const ctx = deliveryContext({ ...world, staticData: [mine] } as World, 0, s, false);
					// The shared world counts requests and endpoints for both processes.
					Object.assign(ctx.helpers, { httpRequestWithAuthentication: deliveryContext(world, 0, s, false).helpers.httpRequestWithAuthentication });
					const outcome = await processes[which].renewEndpoint.call(ctx, 'wf-0/node-0');
					if (JSON.stringify(mine) !== JSON.stringify(saved)) saved = mine;
					return { which, outcome };
				});
				const outcomes = await s.waitFor(Promise.all(arrivals));
				for (const which of [0, 1]) expect(outcomes.filter((o) => o.which === which && o.outcome !== undefined).length).toBeLessThanOrEqual(1);
				const renewals = outcomes.filter((o) => o.outcome !== undefined);
				expect(renewals.length).toBeGreaterThanOrEqual(1);
				const deleted = world.sent.filter((r) => r.method === 'DELETE').map((r) => r.url.slice(r.url.lastIndexOf('/') + 1));
				const stored = storedEndpoints(saved)[url];
				expect(stored.id).toMatch(/^we_new_/);
				expect(deleted).not.toContain(stored.id);
				expect(unsealSecret(stored.sealedSecret, NEW_TOKEN, url)).toEqual(expect.stringMatching(/./));
			}),
			runs(60),
		);
	});
});

