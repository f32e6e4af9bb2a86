import { CredentialTestContext } from 'n8n-core';
import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import { createAdditionalData, READER, readerWorkflow, runWorkflow, trustCa } from '../harness';
import { ServiceReader } from '../../nodes/ServiceReader/ServiceReader.node';
import { applyFindings, type Finding } from '../../nodes/shared/settingsCheck';
import { getMany } from '../nodes/reader/exportHelpers';
import { expectNoToken } from '../property/tokenDecoders';
import { startFourthService, type FourthService } from './fourthService';

/**
 * The trial: a new user of a Service written from the spec by someone else (test/trial/CHOICES.md:
 * routes under /api, the token in X-Auth-Token, `page_token`, tab-separated pages, `format=ndjson`,
 * `horizon_days`, unknown parameters refused) fills in the address of the Service's host and the token,
 * presses Test, sets what it names, and the nodes read every export right. Nothing here knows the
 * Service's choices but the assertions.
 */
let service: FourthService;
beforeAll(async () => {
	service = await startFourthService();
	trustCa(service.ca);
});
afterAll(async () => await service.close());

const newUser = (): ICredentialDataDecryptedObject => ({ baseUrl: service.origin, accessToken: service.readerToken });

async function credentialTest(data: ICredentialDataDecryptedObject) {
	const context = new CredentialTestContext(createAdditionalData(undefined, {}));
	return await new ServiceReader().methods.credentialTest.serviceApiSettings.call(context, { id: 'cred-1', name: 'Service API', type: 'serviceApi', data });
}

async function read(credential: ICredentialDataDecryptedObject, parameters: INodeParameters) {
	const result = await runWorkflow(readerWorkflow(parameters), { credentials: { serviceApi: credential } });
	const error = result.error(READER);
	if (error) throw new Error(`${error.message} ${error.description ?? ''}`);
	return result.output(READER).map((item) => item.json);
}

test('Test names every setting this Service needs, with its values; set as told, Test passes and every export reads right', async () => {
	const first = await credentialTest(newUser());
	expect(first.status).toBe('Error');
	for (const words of [
		`Set Base URL to \`${service.baseUrl}\``,
		'Set Send Token As to `Another Header` and Token Header Name to `X-Auth-Token`',
		'Set Cursor Parameter to `page_token`',
		'Set JSON Format Value to `ndjson`',
		'Set Request Names > Expiries > Window Parameter to `horizon_days`',
	]) {
		expect(first.message).toContain(words);
	}
	expect(first.message.match(/Set /g)).toHaveLength(5);
	expectNoToken(first.message, service.readerToken);

	// The same findings as items (Service > Check Settings), applied as the user types them.
	const findings = (await read(newUser(), { resource: 'service', operation: 'checkSettings' })) as unknown as Finding[];
	const { baseUrl, ...advanced } = applyFindings({}, findings);
	const told: ICredentialDataDecryptedObject = { ...newUser(), baseUrl: baseUrl as string, ...advanced };
	expect(told).toEqual({
		baseUrl: service.baseUrl,
		accessToken: service.readerToken,
		advancedSettings: true,
		tokenPlacement: 'header',
		authHeaderName: 'X-Auth-Token',
		cursorParameter: 'page_token',
		jsonFormat: 'ndjson',
		requestNames: { name: [{ concept: 'export.window', serviceName: 'horizon_days' }] },
	});
	expect(await credentialTest(told)).toMatchObject({ status: 'OK' });

	// Every page of each export, as the Service holds it: 25 shared companies, 11 / 41 expiries within 30 / 90 days.
	const portfolio = await read(told, getMany('portfolio', { returnAll: true }));
	expect(new Set(portfolio.map((row) => row.ke)).size).toBe(25);
	expect(await read(told, getMany('portfolio', { returnAll: true, format: 'json' }))).toHaveLength(25);
	expect(await read(told, getMany('expiry', { returnAll: true, window: 30 }))).toHaveLength(11);
	expect(await read(told, getMany('expiry', { returnAll: true, window: 90 }))).toHaveLength(41);
	expect((await read(told, getMany('decision', { returnAll: true }))).length).toBeGreaterThan(10);
	expect((await read(told, getMany('statement', { returnAll: true }))).length).toBe(3);
});
