/**
 * Takes docs/screenshot-demo.png: Debian's Chromium, headless, signed in as the demo owner, showing one
 * example workflow. Run it while `npm run demo` is running, with what the demo printed:
 *
 *   bash scripts/toolchain.sh tsx scripts/demo/screenshot.ts <editor URL> <CA file> <email> <password> [path]
 *
 * TLS stays checked: Chromium is told to accept exactly n8n's key (--ignore-certificate-errors-spki-list
 * pins the SPKI hash of the demo's certificate), nothing else.
 */
import { spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { login } from '../../test/e2e/n8n-owner';
import { waitFor } from '../../test/e2e/wait-for';

const [url, caPath, email, password, path = '/workflow/svcShareRevoked1'] = process.argv.slice(2);
const output = join(__dirname, '..', '..', 'docs', 'screenshot-demo.png');

/** base64 SHA-256 of the certificate's SubjectPublicKeyInfo, as Chromium's pin list wants it. */
function spkiHash(certPem: string): string {
	const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
	return createHash('sha256').update(spki).digest('base64');
}

/** Minimal Chrome DevTools Protocol client over the page's WebSocket. */
async function devtools(port: number) {
	const targets = await waitFor(
		async () => {
			const response = await fetch(`http://127.0.0.1:${port}/json/list`).catch(() => undefined);
			const list = response?.ok ? ((await response.json()) as Array<{ type: string; webSocketDebuggerUrl: string }>) : [];
			return list.find((target) => target.type === 'page');
		},
		{ what: 'Chromium\'s DevTools endpoint', timeoutMs: 30_000 },
	);
	const socket = new WebSocket(targets.webSocketDebuggerUrl);
	await new Promise((resolve, reject) => {
		socket.onopen = resolve;
		socket.onerror = reject;
	});
	let next = 0;
	const pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
	socket.onmessage = (event) => {
		const message = JSON.parse(String(event.data));
		pending.get(message.id)?.(message);
	};
	const send = <T>(method: string, params: Record<string, unknown> = {}) =>
		new Promise<T>((resolve, reject) => {
			const id = ++next;
			pending.set(id, (message) => (message.error ? reject(new Error(JSON.stringify(message.error))) : resolve(message.result as T)));
			socket.send(JSON.stringify({ id, method, params }));
		});
	return { send, close: () => socket.close() };
}

async function main(): Promise<void> {
	if (!url || !caPath || !email || !password) throw new Error('usage: screenshot.ts <editor URL> <CA file> <email> <password> [path]');
	const ca = readFileSync(caPath, 'utf8');
	const certPem = readFileSync(join(dirname(caPath), 'server.pem'), 'utf8');
	const cookie = await login({ url, ca }, { email, password });
	const profile = mkdtempSync(join(tmpdir(), 'demo-chromium-'));
	const port = 9222 + Math.floor(Math.random() * 500);
	const chromium = spawn(
		'chromium',
		[
			'--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
			'--disable-sync', '--no-first-run', `--user-data-dir=${profile}`, `--remote-debugging-port=${port}`,
			`--ignore-certificate-errors-spki-list=${spkiHash(certPem)}`, '--window-size=1600,900', 'about:blank',
		],
		{ stdio: 'ignore' },
	);
	try {
		const cdp = await devtools(port);
		await cdp.send('Network.enable');
		const [name, value] = cookie.split('=');
		await cdp.send('Network.setCookie', { name, value, url, httpOnly: true, secure: true });
		await cdp.send('Page.enable');
		await cdp.send('Page.navigate', { url: `${url}${path}` });
		// The editor renders the canvas after loading the workflow: wait until its nodes are on screen.
		await waitFor(
			async () => {
				const { result } = await cdp.send<{ result: { value: number } }>('Runtime.evaluate', {
					expression: 'document.querySelectorAll(".vue-flow__node").length',
					returnByValue: true,
				});
				return result.value >= 3 ? true : undefined;
			},
			{ what: 'the workflow canvas to show its nodes', timeoutMs: 60_000, intervalMs: 500 },
		);
		// Let the canvas finish fitting the view before the picture is taken.
		await new Promise((resolve) => setTimeout(resolve, 2_000));
		const { data } = await cdp.send<{ data: string }>('Page.captureScreenshot', { format: 'png' });
		writeFileSync(output, Buffer.from(data, 'base64'));
		cdp.close();
		console.log(`wrote ${output}`);
	} finally {
		chromium.kill('SIGTERM');
		rmSync(profile, { recursive: true, force: true });
	}
}

main().catch((error: Error) => {
	console.error(error.message);
	process.exit(1);
});
