import type { ICredentialDataDecryptedObject, ICredentialTestFunctions } from 'n8n-workflow';

import { findingItem } from '../../nodes/ServiceReader/actions/service/checkSettings.operation';
import { checkedCredential, serviceApiSettings } from '../../nodes/shared/credentialTest';
import { checkSettings, settingsMessage, type Finding } from '../../nodes/shared/settingsCheck';

// The wiring around the checks, whatever they find: the credential test's status and message, what the
// checks are given, one item per finding. The checks themselves run against the sandbox in test/nodes.
jest.mock('../../nodes/shared/settingsCheck', () => ({
	...jest.requireActual('../../nodes/shared/settingsCheck'),
	checkSettings: jest.fn(),
	settingsMessage: jest.fn(),
}));
const checks = jest.mocked(checkSettings);
const message = jest.mocked(settingsMessage);

const TOKEN = 'svc_reader_Zk9/p+Q2xR7wLm4T';
const data = { baseUrl: ' https://svc.example.com/ ', accessToken: TOKEN };
const context = { helpers: { request: () => Promise.reject(new Error('not in this test')) } } as unknown as ICredentialTestFunctions;
const testWith = async (fields: ICredentialDataDecryptedObject = data) => await serviceApiSettings.call(context, { id: '1', name: 'Service API', type: 'serviceApi', data: fields });
const change: Finding = { topic: 'Cursor Parameter', settings: [{ field: 'cursorParameter', label: 'Cursor Parameter', value: 'after' }], verdict: 'change', found: 'after', current: 'cursor', evidence: 'page 2 differs' };

beforeEach(() => jest.resetAllMocks());

test('OK only when the message says nothing is left to change; else Error with the message', async () => {
	checks.mockResolvedValue([]);
	message.mockReturnValue({ ok: true, message: 'Everything works.' });
	expect(await testWith()).toEqual({ status: 'OK', message: 'Everything works.' });

	checks.mockResolvedValue([change]);
	message.mockReturnValue({ ok: false, message: 'Set Cursor Parameter to `after`.' });
	expect(await testWith()).toEqual({ status: 'Error', message: 'Set Cursor Parameter to `after`.' });
	expect(message).toHaveBeenLastCalledWith([change]);
});

test('the token is taken out of the message, in every form, and out of a failure of the checks', async () => {
	checks.mockResolvedValue([]);
	message.mockReturnValue({ ok: false, message: `The Service said: bad token ${encodeURIComponent(TOKEN)}` });
	expect(await testWith()).toEqual({ status: 'Error', message: 'The Service said: bad token ***' });

	checks.mockRejectedValue(new Error(`No answer to GET /v1/reader/x?t=${TOKEN}`));
	expect(await testWith()).toEqual({ status: 'Error', message: 'Check Settings could not finish: No answer to GET /v1/reader/x?t=***' });
});

test('the checks get the Base URL and the Advanced Settings in force, never the token', async () => {
	expect(checkedCredential(data)).toEqual({ baseUrl: 'https://svc.example.com/', advanced: {} });
	expect(checkedCredential({ ...data, cursorParameter: 'page_token' })).toEqual({ baseUrl: 'https://svc.example.com/', advanced: {} });
	const on = checkedCredential({ ...data, advancedSettings: true, cursorParameter: 'page_token' });
	expect(on).toEqual({ baseUrl: 'https://svc.example.com/', advanced: { cursorParameter: 'page_token' } });
	expect(JSON.stringify(on)).not.toContain(TOKEN);

	checks.mockResolvedValue([]);
	message.mockReturnValue({ ok: true, message: '' });
	await testWith({ ...data, advancedSettings: true, jsonFormat: 'application/json' });
	expect(checks.mock.calls[0][1]).toEqual({ baseUrl: 'https://svc.example.com/', advanced: { jsonFormat: 'application/json' } });
});

test('Service > Check Settings: one item per finding, its fields only, matches unless a change', () => {
	expect(findingItem(change)).toEqual({
		topic: 'Cursor Parameter',
		verdict: 'change',
		found: 'after',
		current: 'cursor',
		settings: [{ field: 'cursorParameter', label: 'Cursor Parameter', value: 'after' }],
		evidence: 'page 2 differs',
		matches: false,
	});
	expect(findingItem({ topic: 'Webhook creation', settings: [], verdict: 'not_checked', evidence: 'only writing would tell' })).toEqual({
		topic: 'Webhook creation',
		verdict: 'not_checked',
		found: null,
		current: null,
		settings: [],
		evidence: 'only writing would tell',
		matches: true,
	});
});
