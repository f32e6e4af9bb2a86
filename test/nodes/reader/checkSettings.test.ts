import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import { READER, readerWorkflow, runWorkflow } from '../../harness';
import { PROBE_LIMITS } from '../../../nodes/shared/settingsCheck/types';
import { allFields, expectNoToken } from '../../property/tokenDecoders';
import { serviceApi } from '../../sandbox/credential';
import { dialectFromEnvironment } from '../../sandbox/dialect';
import { useSandbox } from '../../sandbox/useSandbox';

/**
 * Service > Check Settings against the sandbox, in n8n-core's engine: one item per finding, GETs only,
 * within PROBE_LIMITS, the token nowhere. What it finds is DESIGN-38's "Expected on the sandbox":
 * nothing to change on the default dialect; on the alt one the cursor, the JSON format and two
 * Request Names, with the page size parameter for information.
 */
const sandbox = useSandbox();
const CHECK = { resource: 'service', operation: 'checkSettings' };
/** Base URL and token only, as a new user fills in the dialog. */
const newUser = (): ICredentialDataDecryptedObject => ({ baseUrl: sandbox.baseUrl, accessToken: sandbox.tokens.reader });

const run = async (credential: ICredentialDataDecryptedObject, options: { items?: number; continueOnFail?: boolean } = {}) => {
	const result = await runWorkflow(readerWorkflow(CHECK, options.continueOnFail ? { continueOnFail: true } : {}), {
		credentials: { serviceApi: credential },
		inputItems: Array.from({ length: options.items ?? 1 }, () => ({ json: {} })),
	});
	return result;
};

/** What the Service received: every request a GET, at most PROBE_LIMITS.requests per input item. */
function expectReadOnly(items = 1): void {
	const received = sandbox.control.requests();
	expect(received.length).toBeGreaterThan(0);
	expect(received.length).toBeLessThanOrEqual(PROBE_LIMITS.requests * items);
	expect([...new Set(received.map((r) => r.method))]).toEqual(['GET']);
}

const changes = (items: IDataObject[]) => items.filter((item) => item.verdict === 'change');

test('each item is one finding, with exactly its fields; matches is true unless the finding is a change', async () => {
	const result = await run(newUser());

	expect(result.error(READER)).toBeUndefined();
	const output = result.output(READER);
	expect(output.length).toBeGreaterThan(0);
	for (const item of output) {
		expect(Object.keys(item.json).sort()).toEqual(['current', 'evidence', 'found', 'matches', 'settings', 'topic', 'verdict']);
		expect(['ok', 'change', 'unknown', 'not_checked', 'info']).toContain(item.json.verdict);
		expect(item.json.matches).toBe(item.json.verdict !== 'change');
		expect(item.pairedItem).toEqual({ item: 0 });
	}
	expect(output.find((item) => item.json.topic === 'Sign-in')?.json.verdict).toBe('ok');
	expectReadOnly();
	expectNoToken(JSON.stringify(allFields(result.run)), sandbox.tokens.reader);
});

test(`what a new user of the ${dialectFromEnvironment() ?? 'default'} dialect must set, with the values`, async () => {
	const output = (await run(newUser())).output(READER).map((item) => item.json);

	if (sandbox.dialect.name === 'default') {
		expect(changes(output)).toEqual([]);
	} else {
		expect(changes(output).map((item) => item.found).sort()).toEqual(['after', 'application/json', 'output', 'within_days']);
		expect(changes(output).find((item) => item.found === 'after')?.settings).toEqual([{ field: 'cursorParameter', label: 'Cursor Parameter', value: 'after' }]);
		expect(changes(output).find((item) => item.found === 'application/json')?.settings).toEqual([{ field: 'jsonFormat', label: 'JSON Format Value', value: 'application/json' }]);
		const pageSize = output.find((item) => item.topic === 'Page Size Parameter');
		expect([pageSize?.verdict, pageSize?.found]).toEqual(['info', 'limit']);
	}
	// Only writing would tell these: said, never tried.
	expect(output.filter((item) => item.verdict === 'not_checked').length).toBeGreaterThan(0);
	expectReadOnly();
});

test('with the settings a user of this dialect fills in, nothing is left to change', async () => {
	const output = (await run(serviceApi(sandbox))).output(READER).map((item) => item.json);

	expect(changes(output)).toEqual([]);
	expectReadOnly();
});

test('runs once per input item, each finding paired with its item', async () => {
	const output = (await run(newUser(), { items: 2 })).output(READER);

	const paired = output.map((item) => (item.pairedItem as { item: number }).item);
	expect(paired.filter((index) => index === 0).length).toBe(paired.filter((index) => index === 1).length);
	expect(new Set(paired)).toEqual(new Set([0, 1]));
	expectReadOnly(2);
});

test('an http:// Base URL fails the item naming the setting; nothing is sent', async () => {
	const result = await run({ ...newUser(), baseUrl: sandbox.baseUrl.replace('https://', 'http://') });

	expect(result.output(READER)).toEqual([]);
	expect(result.error(READER)?.message).toBe(`The Base URL "${sandbox.baseUrl.replace('https://', 'http://')}" in the Service API credential must start with https://: the Service is reached over HTTPS only.`);
	expect(sandbox.control.requests()).toEqual([]);
});

test('an empty token fails the item in the credential\'s words (Continue On Fail: an item saying so); nothing is sent', async () => {
	const result = await run({ ...newUser(), accessToken: '' }, { continueOnFail: true });

	expect(result.output(READER).map((item) => [item.json, item.pairedItem])).toEqual([
		[{ error: 'The Access Token of the Service API credential is empty: enter your reader organisation\'s service access token.' }, { item: 0 }],
	]);
	expect(sandbox.control.requests()).toEqual([]);
});
