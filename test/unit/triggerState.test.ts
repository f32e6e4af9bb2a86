import { forgetEndpoint, storedEndpoints, storeEndpoint } from '../../nodes/ServiceTrigger/lifecycle/staticData';

const production = 'https://n8n.example.com/webhook/id/webhook';
const test = 'https://n8n.example.com/webhook-test/id/webhook';

describe('trigger static data', () => {
	it('keeps test and production endpoints apart', () => {
		const data: Record<string, unknown> = {};
		storeEndpoint(data, production, { id: 'we_p', sealedSecret: 's1.p', createdAt: 'x' });
		storeEndpoint(data, test, { id: 'we_t', sealedSecret: 's1.t', createdAt: 'y' });
		expect(Object.keys(storedEndpoints(data))).toEqual([production, test]);
		forgetEndpoint(data, test);
		expect(storedEndpoints(data)).toEqual({ [production]: { id: 'we_p', sealedSecret: 's1.p', createdAt: 'x' } });
	});

	it('forgets everything once the last endpoint is gone', () => {
		const data: Record<string, unknown> = { seenAlerts: [['al_1', 1]] };
		storeEndpoint(data, production, { sealedSecret: 's1.p', createdAt: 'x' });
		expect(storedEndpoints(data)[production]).toEqual({ id: undefined, sealedSecret: 's1.p', createdAt: 'x' });
		forgetEndpoint(data, production);
		expect(data).toEqual({});
	});

	it('ignores malformed entries', () => {
		expect(storedEndpoints({ endpoints: { a: null, b: { id: 'x' }, c: 'junk' } })).toEqual({});
		expect(storedEndpoints({ endpoints: [] })).toEqual({});
	});
});
