import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, selectors, type Browser, type BrowserContext, type Page } from 'playwright-core';

const run = promisify(execFile);

/** Debian's chromium (scripts/install-chromium.sh); CHROMIUM_PATH overrides. Never a downloaded browser. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface EditorBrowser {
	browser: Browser;
	context: BrowserContext;
	page: Page;
	/** Closes the browser and removes its temporary HOME. */
	close(): Promise<void>;
}

/**
 * Chromium that trusts `caPath` the way a person would: the CA is added to the NSS database of a
 * temporary HOME (`certutil`), so n8n's https is verified like any site's and no check is switched off.
 */
export async function launchChromium(caPath: string): Promise<EditorBrowser> {
	const home = await mkdtemp(join(tmpdir(), 'browser-home-'));
	try {
		const nssdb = `sql:${join(home, '.pki', 'nssdb')}`;
		await mkdir(join(home, '.pki', 'nssdb'), { recursive: true });
		await run('certutil', ['-N', '-d', nssdb, '--empty-password']);
		await run('certutil', ['-A', '-d', nssdb, '-n', 'n8n e2e test CA', '-t', 'C,,', '-i', caPath]);
		// n8n's editor uses data-test-id, not Playwright's default data-testid.
		selectors.setTestIdAttribute('data-test-id');
		const browser = await chromium.launch({
			executablePath: chromiumPath,
			// Chromium's own process sandbox cannot start as root (CI); TLS checks stay on.
			args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
			env: { ...process.env, HOME: home },
		});
		const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
		const page = await context.newPage();
		return {
			browser,
			context,
			page,
			close: async () => {
				await browser.close().catch(() => undefined);
				await rm(home, { recursive: true, force: true });
			},
		};
	} catch (error) {
		await rm(home, { recursive: true, force: true });
		throw error;
	}
}
