import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { N8n } from '../e2e/n8n';
import { repoRoot } from '../e2e/n8n-install';

export { readmeOperations } from './readme';

/** Signs in through n8n's sign-in form as the owner the harness created. */
export async function signIn(page: Page, n8n: N8n): Promise<void> {
	await page.goto(`${n8n.url}/signin`);
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(n8n.owner.email);
	await page.getByTestId('password').locator('input').fill(n8n.owner.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
}

/** A new, empty workflow with the nodes panel open and `search` typed into it. */
export async function newWorkflowAndSearch(page: Page, n8n: N8n, search: string): Promise<void> {
	await page.goto(`${n8n.url}/workflow/new`);
	await page.getByTestId('canvas-plus-button').click();
	await page.getByTestId('node-creator-search-bar').fill(search);
}

/**
 * The name of an entry of the open nodes panel (a node, or one of its actions): what a person clicks.
 * Not the row itself, whose centre may be empty space or another control, depending on the fonts.
 */
export function creatorItem(page: Page, text: string | RegExp): Locator {
	const item = page.getByTestId('node-creator').getByTestId('item-iterator-item');
	return (typeof text === 'string' ? item.getByText(text, { exact: true }) : item.getByText(text)).first();
}

/** The open node's parameter `name` (its dropdown or input). */
export function parameter(page: Page, name: string): Locator {
	return page.getByTestId('ndv').getByTestId(`parameter-input-${name}`);
}

/** The options of the dropdown that is open now (n8n's own tests find it the same way). */
function openOptions(page: Page): Locator {
	return page.locator('.el-popper[aria-hidden="false"] [role=option]');
}

/** Closes the open dropdown and waits until it is gone, so the next one is not confused with it. */
export async function closeDropdown(page: Page): Promise<void> {
	await page.keyboard.press('Escape');
	await openOptions(page).first().waitFor({ state: 'detached' }).catch(() => openOptions(page).first().waitFor({ state: 'hidden' }));
}

/** Opens a dropdown parameter and returns its options' first lines (the names, without descriptions). */
export async function dropdownOptions(page: Page, name: string, loadedWhen?: string): Promise<string[]> {
	await parameter(page, name).click();
	// Options loaded from the Service arrive after the dropdown opens.
	await (loadedWhen ? openOptions(page).filter({ hasText: loadedWhen }) : openOptions(page)).first().waitFor();
	const texts = await openOptions(page).allInnerTexts();
	return texts.map((text) => text.split('\n')[0].trim());
}

/** Picks `option` in dropdown parameter `name` (matched on the option's name line). */
export async function choose(page: Page, name: string, option: string): Promise<void> {
	await parameter(page, name).click();
	await openOptions(page).filter({ has: page.getByText(option, { exact: true }) }).first().click();
	await openOptions(page).first().waitFor({ state: 'hidden' }).catch(() => undefined);
}

/** Picks a credential by its name in the open node's Credential dropdown. */
export async function chooseCredential(page: Page, name: string): Promise<void> {
	await page.getByTestId('ndv').getByTestId('node-credentials-select').click();
	await openOptions(page).filter({ has: page.getByText(name, { exact: true }) }).first().click();
	await openOptions(page).first().waitFor({ state: 'hidden' }).catch(() => undefined);
}

/** The rows of the output panel's table, each as the texts of its cells (header row first). */
export async function outputTable(page: Page): Promise<string[][]> {
	const table = page.getByTestId('output-panel').getByTestId('ndv-data-container').locator('table').first();
	await table.waitFor();
	return table.evaluate((element) =>
		[...element.querySelectorAll(':scope > thead > tr, :scope > tbody > tr')].map((row) =>
			[...row.querySelectorAll(':scope > th, :scope > td')].map((cell) => (cell as unknown as { innerText: string }).innerText.trim()),
		),
	);
}

/** Switches the output panel to its table view. */
export async function showOutputAsTable(page: Page): Promise<void> {
	await page.getByTestId('output-panel').getByTestId('radio-button-table').click();
}

/** Writes `docs/<name>.png` (for the README) from the current page, in another window size if given. */
export async function screenshot(page: Page, name: string, clip?: Locator, size?: { width: number; height: number }): Promise<void> {
	const before = page.viewportSize();
	if (size) await page.setViewportSize(size);
	// Toasts cover the panels and say nothing the picture needs.
	await page
		.locator('.el-notification .el-notification__closeBtn')
		.evaluateAll((buttons) => buttons.forEach((button) => (button as unknown as { click(): void }).click()));
	await page.mouse.move(0, 0);
	await page.waitForTimeout(400);
	const path = join(repoRoot, 'docs', `${name}.png`);
	if (clip) await clip.screenshot({ path });
	else await page.screenshot({ path });
	if (size && before) await page.setViewportSize(before);
}
