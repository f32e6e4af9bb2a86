import { trustCa } from '../../harness';
import { startSandbox, type Sandbox } from '../../sandbox';
import { defaultDialect, type Dialect } from '../../sandbox/dialect';
import { defaultRequestDialect, type RequestDialect } from '../../sandbox/requestDialect';

/** A sandbox per test that reads requests as `request` says (its own names, upload form), closed after each test. */
export function speakingSandboxes(): (request: Partial<RequestDialect>) => Promise<Sandbox> {
	let sandboxes: Sandbox[] = [];
	afterEach(async () => {
		await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
		sandboxes = [];
	});
	return async (request) => {
		// The request default from its own module: `defaultDialect.request` is unset when a test loads requestDialect.ts first (an import cycle through http.ts).
		const dialect: Dialect = { ...defaultDialect, request: { ...defaultRequestDialect, ...request } };
		const sandbox = await startSandbox({ dialect });
		trustCa(sandbox.ca);
		sandboxes.push(sandbox);
		return sandbox;
	};
}
