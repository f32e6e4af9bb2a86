import { endpointListed, readCreatedEndpoint, webhookUrlProblem } from '../../nodes/shared/webhookEndpoint';

describe('readCreatedEndpoint', () => {
	it('reads id and secret, or signing_secret', () => {
		expect(readCreatedEndpoint({ id: 'we_1', url: 'https://x', secret: 'whsec_a' })).toEqual({ id: 'we_1', secret: 'whsec_a' });
		expect(readCreatedEndpoint({ id: 7, signing_secret: 'whsec_b' })).toEqual({ id: '7', secret: 'whsec_b' });
	});

	it('reports what is missing as undefined', () => {
		expect(readCreatedEndpoint({ url: 'https://x' })).toEqual({ id: undefined, secret: undefined });
		expect(readCreatedEndpoint({ id: '', secret: '  ' })).toEqual({ id: undefined, secret: undefined });
		expect(readCreatedEndpoint('nope')).toEqual({});
	});
});

describe('webhookUrlProblem', () => {
	it('accepts https', () => {
		expect(webhookUrlProblem('https://n8n.example.com/webhook/x/webhook')).toBeUndefined();
	});

	it.each([['http://localhost:5678/webhook/x/webhook'], [''], [undefined], ['not a url']])(
		'refuses %p and says how to get a public https URL',
		(url) => {
			const problem = webhookUrlProblem(url);
			expect(problem).toMatch(/WEBHOOK_URL/);
			expect(problem).toMatch(/reverse proxy/);
			expect(problem).toMatch(/tunnel/);
		},
	);
});

describe('endpointListed', () => {
	const url = 'https://n8n.example.com/webhook/x/webhook';
	it('finds the endpoint by id and URL', () => {
		expect(endpointListed({ data: [{ id: 'we_1', url }] }, 'we_1', url)).toBe('present');
		expect(endpointListed({ data: [{ id: 'we_2', url }] }, 'we_1', url)).toBe('absent');
		expect(endpointListed({ data: [{ id: 'we_1', url: 'https://elsewhere' }] }, 'we_1', url)).toBe('absent');
	});

	it('cannot tell from an answer that is not a list', () => {
		expect(endpointListed({ raw: 'x' }, 'we_1', url)).toBe('unknown');
		expect(endpointListed(null, 'we_1', url)).toBe('unknown');
	});
});
