import { trustCa } from '../tls/trust';
import { startSandbox, type Sandbox, type SandboxOptions } from './index';
import { SandboxClient } from './testClient';
import { startReceiver, type TestReceiver } from './testReceiver';

/**
 * One sandbox for the test file (or describe block) that calls this: started before its first test
 * with its CA trusted (TLS checks stay on), its recorded requests cleared before each test, closed
 * after the last. The sandbox returned is filled in by beforeAll: read it inside tests and hooks.
 */
export function useSandbox(options: SandboxOptions = {}): Sandbox {
	const sandbox = sandboxForTests(options);
	beforeAll(() => trustCa(sandbox.ca));
	beforeEach(() => sandbox.control.clearRequests());
	return sandbox;
}

/**
 * For the sandbox's own tests: one sandbox for the file, started before its first test and closed
 * after the last, and a client that trusts its CA. The process does not trust it, and recorded
 * requests are kept from test to test.
 */
export function useSandboxWithClient(options: SandboxOptions = {}): { sandbox: Sandbox; client: SandboxClient } {
	const sandbox = sandboxForTests(options);
	const client = new SandboxClient(sandbox);
	afterAll(() => client.close());
	return { sandbox, client };
}

/**
 * A test receiver for the file, registered as a webhook endpoint of the main reader before the
 * first test and closed after the last. Filled in by beforeAll, as the sandbox is.
 */
export function useReceiverEndpoint(sandbox: Sandbox): TestReceiver {
	const receiver = {} as TestReceiver;
	beforeAll(async () => {
		Object.assign(receiver, await startReceiver(sandbox.receiverTls));
		sandbox.control.addWebhookEndpoint(receiver.url);
	});
	afterAll(async () => {
		await receiver.close?.();
	});
	return receiver;
}

function sandboxForTests(options: SandboxOptions): Sandbox {
	const sandbox = {} as Sandbox;
	beforeAll(async () => {
		Object.assign(sandbox, await startSandbox(options));
	});
	afterAll(async () => {
		await sandbox.close?.();
	});
	return sandbox;
}
