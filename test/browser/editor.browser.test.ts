import type { Page } from 'playwright-core';
import { serviceApi } from '../sandbox/credential';
import { eventCatalogue } from '../sandbox/events';
import { endpointDeletes, exampleIds } from '../e2e/examples/stack';
import { useExampleStack } from '../e2e/examples/useExampleStack';
import { waitFor } from '../e2e/wait-for';
import { launchChromium, type EditorBrowser } from './chromium';
import {
	choose,
	closeDropdown,
	chooseCredential,
	creatorItem,
	dropdownOptions,
	newWorkflowAndSearch,
	outputTable,
	parameter,
	readmeOperations,
	screenshot,
	showOutputAsTable,
	signIn,
} from './editor';

/** What the credential made through the UI is called (n8n's default name for a new one). */
const uiCredential = 'Service account';

// What a new user does in n8n's editor, in Debian's chromium, against a real n8n and the sandbox.
describe('the editor in a real browser', () => {
	const stack = useExampleStack('browser');
	let browser: EditorBrowser | undefined;
	const running = () => {
		if (!browser) throw new Error('the browser did not start');
		return { ...stack(), page: browser.page };
	};

	beforeAll(async () => {
		browser = await launchChromium(stack().n8n.caPath);
		browser.page.setDefaultTimeout(30_000);
		await signIn(browser.page, stack().n8n);
	}, 120_000);

	afterAll(async () => {
		await browser?.close();
	}, 60_000);

	async function openCredentialDialog(page: Page, url: string) {
		await page.goto(`${url}/home/credentials`);
		await page.getByRole('button', { name: 'Create credential' }).click();
		await page.getByRole('combobox', { name: 'Search for app...' }).fill('Service API');
		// "Freshservice API" matches the search too.
		await page
			.getByTestId('new-credential-type-select-option')
			.filter({ has: page.getByText('Service API', { exact: true }) })
			.click();
		await page.getByTestId('new-credential-type-button').click();
		return page.locator('.el-dialog').filter({ has: page.getByTestId('credential-edit-dialog') });
	}

	test('credential: a wrong token and an http:// Base URL are refused in words; the right one tests successfully', async () => {
		const { page, n8n, sandbox } = running();
		const dialog = await openCredentialDialog(page, n8n.url);
		const field = (name: string) => dialog.getByTestId(`parameter-input-${name}`).getByTestId('parameter-input-field');
		// What the Save button offers now: n8n takes a typed change a moment later, and ignores a click while it saves or tests.
		const saveButtonIs = async (state: 'ready' | 'idle') => {
			const button = page.getByTestId('credential-save-button');
			const deadline = Date.now() + 30_000;
			for (;;) {
				const label = (await button.textContent())?.trim() ?? '';
				const busy = /Saving|Testing/i.test(label);
				if (!busy && (state === 'idle' || ((await button.isEnabled()) && /^Save$/i.test(label)))) return;
				if (Date.now() > deadline) throw new Error(`The credential's Save button stayed "${label}" (waiting for it to be ${state})`);
				await page.waitForTimeout(100);
			}
		};
		const saveAndTest = async () => {
			// Saving tests the credential; the banner of the previous test stays until this one answers.
			await saveButtonIs('ready');
			const tested = page.waitForResponse((response) => response.url().includes('/rest/credentials/test'));
			await page.getByTestId('credential-save-button').click();
			await tested;
			await saveButtonIs('idle');
			// Both banners are in the page; the one shown is the result.
			await dialog.getByText(/Connection tested successfully|Couldn.t connect with these settings/).filter({ visible: true }).first().waitFor();
			const details = dialog.getByText('More details');
			if (await details.isVisible()) await details.click();
			return dialog.locator('[data-test-id=credential-edit-dialog]').innerText();
		};

		await field('baseUrl').fill(sandbox.baseUrl);
		await field('accessToken').fill('not-the-reader-token');
		const wrongToken = await saveAndTest();
		expect(wrongToken).toContain("Couldn’t connect with these settings");
		expect(wrongToken).toContain('Sign-in: Check the Access Token (it may be wrong, expired or revoked)');

		await field('accessToken').fill(sandbox.tokens.reader);
		await field('baseUrl').fill(sandbox.baseUrl.replace(/^https:/, 'http:'));
		const plainHttp = await saveAndTest();
		expect(plainHttp).toContain("Couldn’t connect with these settings");
		expect(plainHttp).toContain('must be an https:// address: the access token is sent over HTTPS only');

		await field('baseUrl').fill(sandbox.baseUrl);
		const right = await saveAndTest();
		expect(right).toContain('Connection tested successfully');

		// The settings the spec leaves open are one switch away, and a change to them still tests.
		await dialog.getByTestId('parameter-input-advancedSettings').locator('.el-switch').click();
		for (const label of ['Cursor Parameter', 'Secret Encoding', 'Request Timeout (Seconds)', 'Webhook Signing Secret']) {
			await dialog.getByText(label, { exact: true }).first().waitFor();
		}
		await field('cursorParameter').fill(sandbox.dialect.cursorParameter);
		expect(await saveAndTest()).toContain('Connection tested successfully');
		await page.keyboard.press('Escape');
	}, 120_000);

	test('Service Reader: found by "Service", every resource and operation of the README offered', async () => {
		const { page, n8n } = running();
		await newWorkflowAndSearch(page, n8n, 'Service');
		await creatorItem(page, 'Service Reader').click();
		const readme = readmeOperations();
		const panel = page.getByTestId('node-creator');
		await panel.getByText('Get many portfolio rows').waitFor();
		// One group of actions per resource, under the README's resource names, one action per operation.
		const groups = await panel.evaluate((root) => {
			const out: Array<{ header: string; actions: string[] }> = [];
			for (const element of root.querySelectorAll('[data-test-id=item-iterator-item]')) {
				const text = element.textContent?.trim() ?? '';
				// Group headers ("Portfolio Actions") are items without a keyboard-navigation type.
				if (element.getAttribute('data-keyboard-nav-type') === 'action') out.at(-1)?.actions.push(text);
				else out.push({ header: text, actions: [] });
			}
			return out;
		});
		const actionGroups = groups.filter((group) => /actions$/i.test(group.header));
		expect(actionGroups.map((group) => group.header.replace(/ actions$/i, '').toLowerCase())).toEqual(
			[...readme.keys()].map((name) => name.toLowerCase()),
		);
		expect(actionGroups.map((group) => group.actions.length)).toEqual([...readme.values()].map((ops) => ops.length));
		// Tall enough for every action at once.
		await screenshot(page, 'reader-operations', panel, { width: 1440, height: 1700 });

		// The Resource and Operation dropdowns use the README's names exactly.
		// n8n adds "Custom API Call" itself (the HTTP Request node with this credential).
		const ours = (names: string[]) => names.filter((name) => name !== 'Custom API Call');
		await creatorItem(page, 'Get many portfolio rows').click();
		expect(ours(await dropdownOptions(page, 'resource'))).toEqual([...readme.keys()]);
		await closeDropdown(page);
		for (const [resource, operations] of readme) {
			await choose(page, 'resource', resource);
			expect({ resource, operations: ours(await dropdownOptions(page, 'operation')).sort() }).toEqual({
				resource,
				operations: [...operations].sort(),
			});
			await closeDropdown(page);
		}
	}, 180_000);

	test('Service Reader: Portfolio > Get Many run from the editor shows every shared company in the table', async () => {
		const { page, n8n, sandbox } = running();
		await newWorkflowAndSearch(page, n8n, 'Service');
		await creatorItem(page, 'Service Reader').click();
		await creatorItem(page, 'Get many portfolio rows').click();
		await chooseCredential(page, uiCredential);
		expect(await parameter(page, 'resource').locator('input').inputValue()).toBe('Portfolio');
		expect(await parameter(page, 'operation').locator('input').inputValue()).toBe('Get Many');
		await page.getByTestId('ndv').getByTestId('node-execute-button').click();
		await showOutputAsTable(page);
		const [header, ...rows] = await outputTable(page);
		const shared = sandbox.control.shares().filter((share) => share.state === 'shared');
		expect(header).toEqual(expect.arrayContaining(['ke', 'company_name', 'tier', 'status', 'decision_due']));
		const ke = header.indexOf('ke');
		expect(rows.map((row) => row[ke]).sort()).toEqual(shared.map((share) => share.ke).sort());
		const names = rows.map((row) => row[header.indexOf('company_name')]);
		expect(names).toContain('Acme Supplies Ltd');
		// Strip Formula Guard is off by default: a name that would read as a formula keeps the Service's quote.
		expect(names).toContain('\'=HYPERLINK("http://evil.example","click me")');
		await screenshot(page, 'portfolio-output', undefined, { width: 1920, height: 900 });
	}, 120_000);

	test('Service Reader: Invitation > Import from the previous node\'s CSV shows each refused row with its reason', async () => {
		const { page, n8n } = running();
		await page.goto(`${n8n.url}/workflow/${exampleIds.invitations}`);
		await page.locator('[data-test-id=canvas-node][data-node-name="Import invitations"]').dblclick();
		await page.getByTestId('ndv').getByTestId('node-execute-button').click();
		await showOutputAsTable(page);
		const rows = (await outputTable(page)).slice(1).map((row) => row.join(' '));
		const rowOf = (company: string) => rows.find((row) => row.includes(company)) ?? `no row for ${company}`;
		expect(rows).toHaveLength(6);
		expect(rowOf('Quick Parts')).toContain('free-mail');
		expect(rowOf('No Number Ltd')).toContain('registration number is missing');
		expect(rowOf('Northwind Traders')).toContain('already exists');
		expect(rowOf('Typo Trading')).toContain('not a valid email address');
		await screenshot(page, 'invitation-import-output', undefined, { width: 1920, height: 900 });
	}, 120_000);

	test('Service Trigger: the catalogue\'s events, a test event shown in the editor, stopping removes the test endpoint', async () => {
		const { page, n8n, sandbox } = running();
		await newWorkflowAndSearch(page, n8n, 'Service');
		await creatorItem(page, 'Service Trigger').click();
		// The panel offers an "Add to workflow" button for a trigger without actions: click it, as a person does.
		await page.getByTestId('node-creator').getByRole('button', { name: 'Add to workflow' }).click();
		await chooseCredential(page, uiCredential);
		// The catalogue (ledger_low and ledger_info are only in it), not the spec's named events.
		expect((await dropdownOptions(page, 'events', 'share_revoked')).sort()).toEqual(eventCatalogue.map((event) => event.event_type).sort());
		await page.locator('.el-popper[aria-hidden="false"] [role=option]').filter({ hasText: /^ledger_high/ }).click();
		await closeDropdown(page);
		// Options > Add Company Details, switched on, as a person does it.
		// n8n shows a collection of one option as a button, of more as a select: either is labelled Add Option.
		const ndv = page.getByTestId('ndv');
		await ndv.getByRole('button', { name: 'Add Option' }).or(ndv.getByPlaceholder('Add Option')).first().click();
		const companyDetails = parameter(page, 'addCompanyDetails');
		const offered = page.getByRole('option', { name: 'Add Company Details' });
		await companyDetails.or(offered).first().waitFor();
		if (await offered.isVisible()) await offered.click();
		await companyDetails.locator('.el-switch').click();

		const testEndpoint = async () =>
			waitFor(async () => sandbox.control.webhookEndpoints().find((endpoint) => endpoint.url.includes('/webhook-test/')), {
				what: 'the test URL to be registered with the sandbox',
				timeoutMs: 30_000,
			});
		await page.getByTestId('trigger-execute-button').click();
		await page.getByTestId('trigger-listening').waitFor();
		const endpoint = await testEndpoint();
		expect(endpoint.url.startsWith(`${n8n.url}/webhook-test/`)).toBe(true);
		await screenshot(page, 'trigger-listening');

		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1010' });
		await page.getByTestId('output-panel').getByText(alert.alertId).first().waitFor();
		const output = await page.getByTestId('output-panel').innerText();
		expect(output).toContain('KE-1010');
		expect(output).toContain('ledger_high');
		// The company's name, tier and status from the portfolio, in the trigger's own output: no extra node.
		const company = sandbox.control.companies().find((candidate) => candidate.ke === 'KE-1010');
		const share = sandbox.control.shares().find((candidate) => candidate.ke === 'KE-1010');
		expect(output).toContain(company!.name);
		expect(output).toContain(company!.status);
		expect(output).toContain(share!.tier);
		// The JSON view shows `company` whole, where the table would cut it off to the right.
		await page.getByTestId('output-panel').getByTestId('radio-button-json').click();
		await page.getByTestId('output-panel').getByText(company!.name).first().waitFor();
		await screenshot(page, 'trigger-company-details', undefined, { width: 1920, height: 900 });
		// Having received its event, the test URL is removed at the Service.
		expect(await endpointDeletes(sandbox, endpoint.id)).toHaveLength(1);

		// Listening again, then Stop Listening: the new test endpoint is deleted too.
		await page.getByTestId('ndv').getByTestId('node-execute-button').or(page.getByTestId('trigger-execute-button')).first().click();
		await page.getByTestId('trigger-listening').waitFor();
		const second = await testEndpoint();
		expect(second.id).not.toBe(endpoint.id);
		await page.getByRole('button', { name: 'Stop Listening' }).first().click();
		expect(await endpointDeletes(sandbox, second.id)).toHaveLength(1);
		expect(sandbox.control.webhookEndpoints().filter((e) => e.url.includes('/webhook-test/'))).toEqual([]);
	}, 180_000);

	test('Service Changes Trigger: added from the nodes panel, Fetch Test Event shows a sample of the portfolio as added rows', async () => {
		const { page, n8n, sandbox } = running();
		await newWorkflowAndSearch(page, n8n, 'Service');
		await creatorItem(page, 'Service Changes Trigger').click();
		const addToWorkflow = page.getByTestId('node-creator').getByRole('button', { name: 'Add to workflow' });
		// A trigger without actions offers "Add to workflow" in the panel; otherwise the node is open already.
		await addToWorkflow.or(page.getByTestId('ndv')).first().waitFor();
		if (await addToWorkflow.isVisible()) await addToWorkflow.click();
		// The example stack's credential, so that this test also runs alone (-t).
		await chooseCredential(page, 'Service API');
		expect(await parameter(page, 'export').locator('input').inputValue()).toBe('Portfolio');

		const before = sandbox.control.requests({ method: 'GET', path: '/v1/reader/exports/portfolio' }).length;
		// The panel's header and its middle both offer the button; either runs the same test poll.
		await page.getByTestId('ndv').getByRole('button', { name: 'Fetch Test Event' }).first().click();
		await showOutputAsTable(page);
		const [header, ...rows] = await outputTable(page);
		expect(header).toEqual(expect.arrayContaining(['change', 'export', 'key', 'row']));
		// A sample: the first rows of the portfolio, each as `added`, read from the Service just now.
		const keys = rows.map((row) => row[header.indexOf('key')]);
		const shared = sandbox.control.shares().filter((share) => share.state === 'shared').map((share) => share.ke);
		expect(keys.length).toBeGreaterThan(0);
		for (const key of keys) expect(shared).toContain(key);
		expect(rows.map((row) => row[header.indexOf('change')])).toEqual(keys.map(() => 'added'));
		expect(sandbox.control.requests({ method: 'GET', path: '/v1/reader/exports/portfolio' }).length).toBeGreaterThan(before);
		await screenshot(page, 'changes-test-event', undefined, { width: 1920, height: 900 });
	}, 120_000);

	test('Service Reader: a company picked by typing part of its name is the one fetched', async () => {
		const { page, n8n, sandbox } = running();
		await page.goto(`${n8n.url}/workflow/${exampleIds.supplierCheck}`);
		await page.locator(`[data-test-id=canvas-node][data-node-name="Supplier's signed record"]`).dblclick();
		await page.getByTestId('ndv').getByTestId('rlc-input').click();
		const search = page.getByTestId('rlc-search');
		const searchBox = (await search.evaluate((element) => element.tagName)) === 'INPUT' ? search : search.locator('input');
		await searchBox.fill('widg');
		// Only the companies whose name or KE holds what was typed, by name and KE.
		const offered = page.getByTestId('rlc-item');
		await offered.filter({ hasText: 'Struck Off Widgets Ltd' }).first().waitFor();
		expect(await offered.allInnerTexts()).toEqual(['Struck Off Widgets Ltd (KE-1010)']);
		await screenshot(page, 'company-picker', undefined, { width: 1440, height: 900 });
		await offered.filter({ hasText: 'Struck Off Widgets Ltd' }).click();
		expect(await page.getByTestId('ndv').getByTestId('rlc-input').inputValue()).toContain('Struck Off Widgets Ltd');

		const before = sandbox.control.requests({ path: '/v1/reader/exports/records/KE-1010' }).length;
		await page.getByTestId('ndv').getByTestId('node-execute-button').click();
		await showOutputAsTable(page);
		const [header, ...rows] = await outputTable(page);
		expect(rows).toHaveLength(1);
		expect(rows[0][header.indexOf('ke')]).toBe('KE-1010');
		expect(rows[0][header.indexOf('company_name')]).toBe('Struck Off Widgets Ltd');
		// The Service was asked for the picked company's record, once.
		expect(sandbox.control.requests({ path: '/v1/reader/exports/records/KE-1010' }).slice(before).map((r) => r.status)).toEqual([200]);
	}, 120_000);

	test('Service Trigger: a test event refused only by a credential setting shows in the editor, naming the setting', async () => {
		const { page, n8n, sandbox } = running();
		// A credential whose Signature Timestamp Unit is pinned to the unit this Service does not send.
		const wrongUnit = sandbox.dialect.timestampUnit === 'seconds' ? 'milliseconds' : 'seconds';
		const name = `Service API (t pinned to ${wrongUnit})`;
		await n8n.importCredentials([
			{ id: 'svcWrongUnitCred', name, type: 'serviceApi', data: serviceApi(sandbox, { advanced: { signatureTimestampUnit: wrongUnit } }) },
		]);
		await newWorkflowAndSearch(page, n8n, 'Service');
		await creatorItem(page, 'Service Trigger').click();
		await page.getByTestId('node-creator').getByRole('button', { name: 'Add to workflow' }).click();
		await chooseCredential(page, name);
		await page.getByTestId('trigger-execute-button').click();
		await page.getByTestId('trigger-listening').waitFor();
		const endpoint = await waitFor(async () => sandbox.control.webhookEndpoints().find((e) => e.url.includes('/webhook-test/')), {
			what: 'the test URL to be registered with the sandbox',
			timeoutMs: 30_000,
		});

		const alert = sandbox.control.emit('ledger_high', { organisation: 'KE-1001' });
		const refused = page.getByTestId('ndv').getByText("The Service's test event was refused").first();
		await refused.waitFor();
		const shown = await page.getByTestId('ndv').innerText();
		expect(shown).toContain('Signature Timestamp Unit');
		// The Service was refused (401), as in production; only the editor was told why.
		const toTestUrl = await waitFor(
			async () => sandbox.control.deliveries({ alertId: alert.alertId }).find((d) => d.endpointId === endpoint.id && d.attempts.length > 0),
			{ what: `the delivery of ${alert.alertId} to the test URL to be answered`, timeoutMs: 30_000 },
		);
		expect(toTestUrl.attempts[0].status).toBe(401);
		expect(await endpointDeletes(sandbox, endpoint.id)).toHaveLength(1);
		await screenshot(page, 'trigger-test-refused', undefined, { width: 1920, height: 900 });
	}, 180_000);

	test('AI Agent: the Service Reader is offered as a tool and its parameters render', async () => {
		const { page, n8n } = running();
		await newWorkflowAndSearch(page, n8n, 'AI Agent');
		await creatorItem(page, /^AI Agent/).click();
		await page.getByTestId('ndv-close-button').click();
		await page.locator('[data-test-id=canvas-node-input-handle][data-handleid="inputs/ai_tool/0"] [data-test-id=canvas-handle-plus]').click();
		await page.getByTestId('node-creator-search-bar').fill('Service');
		await creatorItem(page, 'Service Reader Tool').click();
		await chooseCredential(page, uiCredential);
		await choose(page, 'resource', 'Record');
		await choose(page, 'operation', 'Get');
		await expect(parameter(page, 'ke').isVisible()).resolves.toBe(true);
		// The KE can be left to the model ($fromAI), as n8n offers for a tool's parameters.
		await parameter(page, 'ke').hover();
		await page.getByTestId('ndv').getByTestId('from-ai-override-button').first().waitFor();
		expect(await parameter(page, 'descriptionType').locator('input').inputValue()).toBe('Set Automatically');
		await screenshot(page, 'agent-tool');
	}, 120_000);

	test('an example workflow executed in the editor: every node succeeded', async () => {
		const { page, n8n } = running();
		await page.goto(`${n8n.url}/workflow/${exampleIds.portfolio}`);
		await page.getByTestId('execute-workflow-button').click();
		await waitFor(async () => ((await page.getByTestId('canvas-node-status-success').count()) === 3 ? true : undefined), {
			what: 'the three nodes of the portfolio example to succeed',
			timeoutMs: 60_000,
		});
		// Under the node, its resource and operation as the dropdowns name them.
		expect(await page.locator('[data-test-id=canvas-node][data-node-name="Portfolio: every page"]').innerText()).toContain(
			'Portfolio: Get Many',
		);
		await screenshot(page, 'example-workflow');
	}, 120_000);
});
