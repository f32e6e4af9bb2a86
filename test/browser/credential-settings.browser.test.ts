import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import type { Locator, Page } from 'playwright-core';
import { ServiceApi } from '../../credentials/ServiceApi.credentials';
import { conceptLabel, type RequestConcept } from '../../nodes/shared/transport/requestNames';
import { startSandbox, type Sandbox } from '../sandbox';
import { settingsToldIn } from '../e2e/credential-test';
import { packPackage, startN8n, type N8n } from '../e2e/n8n';
import { repoRoot } from '../e2e/n8n-install';
import { launchChromium, type EditorBrowser } from './chromium';
import { screenshot, signIn } from './editor';

/** Text as n8n's banner lays it out (`white-space: normal`): every run of white space one space. */
const asShown = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The options of the dropdown that is open now. */
const openOptions = (page: Page) => page.locator('.el-popper[aria-hidden="false"] [role=option]');

/**
 * Enters settings in the open credential dialog as a person does: the Advanced Settings switch, each
 * field (an option by its name), and one Request Names row each (Add Request Name, Sent For, Service Name).
 */
async function enterSettings(page: Page, dialog: Locator, settings: IDataObject): Promise<void> {
	const properties = new Map(new ServiceApi().properties.map((property) => [property.name, property]));
	await dialog.getByTestId('parameter-input-advancedSettings').locator('.el-switch').click();
	for (const [name, value] of Object.entries(settings)) {
		if (name === 'requestNames') continue;
		const property = properties.get(name);
		if (property?.type === 'options') {
			const option = property.options?.find((candidate) => 'value' in candidate && candidate.value === value);
			await dialog.getByTestId(`parameter-input-${name}`).click();
			await openOptions(page).filter({ has: page.getByText(String(option?.name), { exact: true }) }).first().click();
		} else {
			await dialog.getByTestId(`parameter-input-${name}`).getByTestId('parameter-input-field').fill(String(value));
		}
	}
	const rows = (settings.requestNames as { name: Array<{ concept: RequestConcept; serviceName: string }> } | undefined)?.name ?? [];
	for (const [index, row] of rows.entries()) {
		await dialog.getByRole('button', { name: 'Add Request Name' }).click();
		await dialog.getByTestId('parameter-input-concept').nth(index).click();
		await openOptions(page).filter({ has: page.getByText(conceptLabel(row.concept), { exact: true }) }).first().click();
		await dialog.getByRole('textbox', { name: `Parameter: "name[${index}].serviceName"` }).fill(row.serviceName);
	}
}

// A new user's first minutes: Base URL and token of a Service that differs from the documented defaults
// (the sandbox's alt dialect), Save, and the dialog says which settings to change, with their values.
describe('the credential dialog in a real browser: a Service that needs settings', () => {
	let work: string;
	let sandbox: Sandbox | undefined;
	let n8n: N8n | undefined;
	let browser: EditorBrowser | undefined;
	const running = () => {
		if (!sandbox || !n8n || !browser) throw new Error('the sandbox, n8n or the browser did not start');
		return { sandbox, n8n, page: browser.page };
	};

	beforeAll(async () => {
		work = await mkdtemp(join(tmpdir(), 'service-browser-settings-'));
		sandbox = await startSandbox({ dialect: 'alt' });
		n8n = await startN8n({ trustedCas: [sandbox.ca], communityPackages: [await packPackage(repoRoot, work)] });
		browser = await launchChromium(n8n.caPath);
		browser.page.setDefaultTimeout(30_000);
		await signIn(browser.page, n8n);
	}, 300_000);

	afterAll(async () => {
		await browser?.close();
		await n8n?.stop();
		await sandbox?.close();
		if (work) await rm(work, { recursive: true, force: true });
	}, 60_000);

	test('Save names each setting to change with its value, in full; entered as told, Save tests successfully', async () => {
		const { page, n8n, sandbox } = running();
		await page.goto(`${n8n.url}/home/credentials`);
		// With no credential yet, the empty list offers a second "Create credential"; both open the same dialog.
		await page.getByRole('button', { name: 'Create credential' }).first().click();
		await page.getByRole('combobox', { name: 'Search for app...' }).fill('Service API');
		// "Freshservice API" matches the search too.
		await page.getByRole('option').filter({ has: page.getByText('Service API', { exact: true }) }).click();
		await page.getByRole('button', { name: 'Continue' }).click();
		const dialog = page.getByRole('dialog').filter({ has: page.getByTestId('credential-edit-dialog') });
		// n8n's parameter inputs carry no label of their own ("Parameter: ''"): found by the field they edit.
		const field = (name: string) => dialog.getByTestId(`parameter-input-${name}`).getByTestId('parameter-input-field');
		await field('baseUrl').fill(sandbox.baseUrl);
		await field('accessToken').fill(sandbox.tokens.reader);

		// Save stores the credential and tests it, as a user's first Save does.
		const tested = page.waitForResponse((response) => response.url().includes('/rest/credentials/test'), { timeout: 60_000 });
		await dialog.getByRole('button', { name: 'Save' }).click();
		const answer = (await (await tested).json()) as { data: { status: string; message: string } };
		expect(answer.data.status).toBe('Error');
		await dialog.getByText('Couldn’t connect with these settings').waitFor();
		await dialog.getByText('More details').click();

		const shown = await dialog.innerText();
		expect(shown).toContain('Set Cursor Parameter to `after`');
		expect(shown).toContain('Set JSON Format Value to `application/json`');
		// The whole message, word for word, as the banner lays text out.
		expect(asShown(shown)).toContain(asShown(answer.data.message));
		expect(shown).not.toContain(sandbox.tokens.reader);

		// The dialog's box (Element Plus's .el-dialog), not the page-wide overlay that carries its role.
		await screenshot(page, 'credential-settings', page.locator('.el-dialog').filter({ has: page.getByTestId('credential-edit-dialog') }));

		// The user enters what the message says, in the same dialog, and saves again.
		const told = settingsToldIn(answer.data.message);
		await enterSettings(page, dialog, told);
		const retested = page.waitForResponse((response) => response.url().includes('/rest/credentials/test'), { timeout: 60_000 });
		await dialog.getByRole('button', { name: 'Save' }).click();
		const second = await retested;
		// What the dialog sent is what the message said, in the credential's own fields.
		const sent = (second.request().postDataJSON() as { credentials: { data: IDataObject } }).credentials.data;
		expect(sent).toMatchObject({ advancedSettings: true, ...told });
		expect(((await second.json()) as { data: { status: string } }).data.status).toBe('OK');
		await dialog.getByText('Connection tested successfully').waitFor();
		await page.keyboard.press('Escape');
	}, 180_000);
});
