import { trustCa } from '../../harness';
import { startSandbox, type Sandbox } from '../../sandbox';
import { defaultDialect, type Dialect } from '../../sandbox/dialect';
import type { RequestDialect } from '../../sandbox/requestDialect';

/** A sandbox per test that reads requests as `request` says (its own names, upload form), closed after each test. */
export function speakingSandboxes(): (request: Partial<RequestDialect>) => Promise<Sandbox> {
	let sandboxes: Sandbox[] = [];
	afterEach(async () => {
		await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
		sandboxes = [];
	});
	return async (request) => {
		const dialect: Dialect = { ...defaultDialect, request: { ...defaultDialect.request, ...request } };
		const sandbox = await startSandbox({ dialect });
		trustCa(sandbox.ca);
		sandboxes.push(sandbox);
		return sandbox;
	};
}
