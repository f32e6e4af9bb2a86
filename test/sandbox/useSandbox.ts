import { trustCa } from '../tls/trust';
import { startSandbox, type Sandbox, type SandboxOptions } from './index';

/**
 * One sandbox for the test file (or describe block) that calls this: started before its first test
 * with its CA trusted (TLS checks stay on), its recorded requests cleared before each test, closed
 * after the last. The sandbox returned is filled in by beforeAll: read it inside tests and hooks.
 */
export function useSandbox(options: SandboxOptions = {}): Sandbox {
	const sandbox = {} as Sandbox;
	beforeAll(async () => {
		Object.assign(sandbox, await startSandbox(options));
		trustCa(sandbox.ca);
	});
	afterAll(async () => {
		await sandbox.close?.();
	});
	beforeEach(() => sandbox.control.clearRequests());
	return sandbox;
}
