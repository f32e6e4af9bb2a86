import { heldSecrets, resealRetries } from '../../../nodes/ServiceTrigger/verify/heldSecrets';
import { recentKeys } from '../../../nodes/ServiceTrigger/verify/recentKeys';
import { renewalAttempts } from '../../../nodes/ServiceTrigger/lifecycle/renewal';
import { useTriggerSetup } from '../trigger/setup';
import { oauth2Credential } from './credential';

// The Service Trigger with Authentication: OAuth2: its endpoint registered with a fetched token, the
// signing secret sealed under the client secret, so a renewed token loses nothing.
const setup = useTriggerSetup();
const KE = 'KE-1001';

describe('Service Trigger with Authentication: OAuth2', () => {
	it('registers its endpoint, verifies deliveries, and after n8n renewed the token and restarted still verifies them', async () => {
		const credentials = { serviceOAuth2Api: oauth2Credential(setup.sandbox) };
		setup.harness = setup.newHarness({ parameters: { authentication: 'oAuth2' }, credentials });
		await expect(setup.harness.activate()).resolves.toEqual({ created: true });
		const [endpoint] = setup.sandbox.control.webhookEndpoints();
		expect(endpoint.url).toBe(setup.harness.webhookUrl());
		const firstToken = (credentials.serviceOAuth2Api.oauthTokenData as { access_token: string }).access_token;
		expect(firstToken).toMatch(/^oat_reader_/);
		expect(JSON.stringify(setup.harness.saved)).not.toContain(firstToken);

		const alert = setup.sandbox.control.emit('ledger_high', { organisation: KE });
		await setup.sandbox.control.whenSettled(alert.alertId);
		expect(await setup.executionsOf(alert.alertId)).toHaveLength(1);

		// n8n stored a new token; this process forgot everything it held.
		credentials.serviceOAuth2Api.oauthTokenData = { access_token: 'oat_reader_renewed_elsewhere', token_type: 'Bearer' };
		heldSecrets.clear();
		resealRetries.clear();
		recentKeys.forgetAll();
		renewalAttempts.clear();
		setup.harness = setup.harness.restart();
		setup.sandbox.control.clearRequests();
		await expect(setup.harness.activate('production', 'init')).resolves.toEqual({ created: false });
		expect(setup.sandbox.control.requests({ method: 'POST', path: '/v1/reader/webhooks' })).toHaveLength(0);
		const later = setup.sandbox.control.emit('ledger_high', { organisation: KE });
		await setup.sandbox.control.whenSettled(later.alertId);
		expect(await setup.executionsOf(later.alertId)).toHaveLength(1);
		await setup.harness.deactivate();
	});
});
