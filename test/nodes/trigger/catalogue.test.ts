import { eventCatalogue, type RouteFault } from '../../sandbox';
import { dialectFromEnvironment, dialectNamed } from '../../sandbox/dialect';
import { useTriggerSetup } from './setup';

// The trigger's Events list reads every page of the catalogue: no event type is missed. Only a catalogue
// that cannot be read at all gives the named events, and that is logged; a later page that fails is an error.
const setup = useTriggerSetup({ sandbox: { dialect: { ...dialectNamed(dialectFromEnvironment()), listPageSize: 3 } } });
const CATALOGUE = '/v1/reader/webhooks/catalogue';
const warnings = () => setup.logs.filter((line) => line.level === 'warn' && line.message.includes('event catalogue'));

beforeEach(() => {
	setup.sandbox.control.clearFaults();
	setup.sandbox.control.clearRequests();
	setup.logs.length = 0;
});

test('every page of the catalogue is in the Events list', async () => {
	const events = await setup.harness.loadOptions('getEvents');

	expect(events.map((event) => event.value).sort()).toEqual([...new Set(eventCatalogue.map((type) => type.event_type))].sort());
	expect(events.find((event) => event.value === 'ledger_info')?.description).toMatch(/routine register filing/);
	expect(setup.sandbox.control.requests({ path: CATALOGUE })).toHaveLength(Math.ceil(eventCatalogue.length / 3));
	expect(warnings()).toEqual([]);
});

test('a later page that fails is an error naming it, not a short list', async () => {
	setup.sandbox.control.failRoute({ path: CATALOGUE, mode: 'redirect', status: 302, location: 'https://localhost:9/x', skip: 2, times: 1 } as RouteFault);

	await expect(setup.harness.loadOptions('getEvents')).rejects.toMatchObject({
		message: 'The Service answered with a redirect (302 to localhost:9), which is not followed',
		description: expect.stringMatching(/^Page 3 of the event catalogue \(fetched with cursor "cat-6"\) failed/),
	});
});

test('a catalogue that cannot be read at all gives the named events, and says so in the log', async () => {
	setup.sandbox.control.failRoute({ path: CATALOGUE, mode: 'redirect', status: 302, location: 'https://localhost:9/x', times: 1 } as RouteFault);

	const events = await setup.harness.loadOptions('getEvents');

	expect(events).toHaveLength(10);
	expect(events.map((event) => event.value)).not.toContain('ledger_info');
	expect(warnings().map((line) => line.message)).toEqual([
		'Service Trigger: could not load the event catalogue (The Service answered with a redirect (302 to localhost:9), which is not followed); offering the event types named in the specification.',
	]);
});

describe('the endpoint listing is paged too', () => {
	const LISTING = '/v1/reader/webhooks';
	const others = ['a', 'b', 'c', 'd'].map((name) => `https://hooks.other.example/${name}`);

	beforeAll(() => {
		for (const url of others) setup.sandbox.control.addWebhookEndpoint(url);
	});
	afterAll(() => {
		for (const endpoint of setup.sandbox.control.webhookEndpoints()) setup.sandbox.control.removeWebhookEndpoint(endpoint.id);
	});

	test('the activation check finds its endpoint on a later page; with the state lost, the one at its URL on a later page is replaced, not kept twice', async () => {
		const mine = () => setup.sandbox.control.webhookEndpoints().filter((endpoint) => endpoint.url === setup.harness.webhookUrl());
		setup.harness = setup.newHarness();
		await setup.harness.activate();
		expect(mine()).toHaveLength(1);
		// Behind the four others, so on the second page of three.
		expect(setup.sandbox.control.webhookEndpoints().findIndex((endpoint) => endpoint.url === setup.harness.webhookUrl())).toBeGreaterThanOrEqual(3);

		setup.sandbox.control.clearRequests();
		expect(await setup.harness.runHook('checkExists')).toBe(true);
		expect(setup.sandbox.control.requests({ path: LISTING }).map((r) => r.query[setup.sandbox.dialect.cursorParameter])).toEqual([undefined, 'we-3']);

		// A new harness has no stored endpoint: activating it removes the one at its URL (found on page 2) and registers one.
		const before = mine()[0].id;
		setup.harness = setup.newHarness();
		await setup.harness.activate();
		expect(mine()).toHaveLength(1);
		expect(mine()[0].id).not.toBe(before);
		await setup.harness.deactivate();
		expect(mine()).toEqual([]);
	});
});
