import { RENEWAL_INTERVAL_MS, renewalDue, renewalError, renewalIn, renewalItem, type EndpointRenewal } from '../../nodes/ServiceTrigger/lifecycle/renewal';
import { storedEndpoints } from '../../nodes/ServiceTrigger/lifecycle/staticData';

const NOW = Date.parse('2026-11-26T04:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

describe('renewalDue: at most once an hour, by the attempt stored', () => {
	it('is due with no attempt stored, or an unreadable one', () => {
		expect(renewalDue(undefined, NOW)).toBe(true);
		expect(renewalDue('yesterday', NOW)).toBe(true);
	});

	it('is not due within the hour, and due from the hour on', () => {
		expect(renewalDue(ago(0), NOW)).toBe(false);
		expect(renewalDue(ago(RENEWAL_INTERVAL_MS - 1), NOW)).toBe(false);
		expect(renewalDue(ago(RENEWAL_INTERVAL_MS), NOW)).toBe(true);
	});

	it('takes an attempt up to an hour ahead of this clock as recent (another process, another clock), and one further ahead as an error', () => {
		expect(renewalDue(ago(-RENEWAL_INTERVAL_MS), NOW)).toBe(false);
		expect(renewalDue(ago(-RENEWAL_INTERVAL_MS - 1), NOW)).toBe(true);
	});

	it('the attempt survives a read of the static data', () => {
		const data = { endpoints: { 'https://n8n.example/webhook/x/webhook': { id: 'we_1', sealedSecret: 's1.x', createdAt: ago(0), renewalAttemptedAt: ago(5) } } };
		expect(storedEndpoints(data)['https://n8n.example/webhook/x/webhook'].renewalAttemptedAt).toBe(ago(5));
	});
});

describe('the execution a renewing delivery starts', () => {
	const renewed: EndpointRenewal = {
		notice: 'service_trigger_endpoint_renewed',
		webhookUrl: 'https://n8n.example/webhook/x/webhook',
		attemptedAt: ago(0),
		oldEndpointId: 'we_old',
		newEndpointId: 'we_new',
		oldEndpointDeleted: true,
	};

	it('carries the renewal in one marked item, which a delivery item never is', () => {
		expect(renewalIn([renewalItem(renewed)])).toEqual(renewed);
		expect(renewalIn([renewalItem(renewed), renewalItem(renewed)])).toBeUndefined();
		expect(renewalIn([{ json: { event_type: 'ledger_high', alert_id: 'al_1', notice: 'service_trigger_endpoint_renewed' } }])).toBeUndefined();
		expect(renewalIn([{ json: { __serviceTriggerEndpointRenewal: { notice: 'other' } } }])).toBeUndefined();
	});

	it('says what happened, what was lost and what to do', () => {
		expect(renewalError(renewed)).toEqual({
			message: 'The Service Trigger registered a new endpoint: the access token changed and no n8n process held the signing secret',
			description: expect.stringContaining('registered endpoint we_new for the same URL with the current token and deleted endpoint we_old. New alerts reach it. Alerts sent to the old endpoint could not be verified and are lost'),
		});
		expect(renewalError({ ...renewed, oldEndpointDeleted: false }).description).toContain('could not confirm that endpoint we_old is deleted (remove it in the Service');
		const failed = renewalError({ ...renewed, notice: 'service_trigger_endpoint_renewal_failed', newEndpointId: null, oldEndpointDeleted: false, problem: 'The Service is down' });
		expect(failed.message).toBe('The Service Trigger could not register a new endpoint after the access token changed');
		expect(failed.description).toContain('failed: The Service is down. Deliveries stay refused.');
	});
});
