import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import { ServiceTrigger } from '../../../nodes/ServiceTrigger/ServiceTrigger.node';
import { renewalAttempts } from '../../../nodes/ServiceTrigger/lifecycle/renewal';
import { heldSecrets, resealRetries } from '../../../nodes/ServiceTrigger/verify/heldSecrets';
import { recentKeys } from '../../../nodes/ServiceTrigger/verify/recentKeys';
import {
	captureLogs,
	receiverTls,
	startTriggerReceiver,
	TriggerHarness,
	trustCa,
	type LogLine,
	type ReceivedExecution,
	type TriggerReceiver,
} from '../../harness';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';
import { serviceApi } from '../../sandbox/credential';

/** What a new harness may change: the node's parameters, the credential, n8n's public URL. */
export type HarnessSettings = { parameters?: INodeParameters; credentials?: Record<string, ICredentialDataDecryptedObject>; publicUrl?: string };

export interface TriggerSetup {
	sandbox: Sandbox;
	receiver: TriggerReceiver;
	/** CA of the receiver's certificate (the sandbox trusts it through `trustedCas`). */
	receiverCa: string;
	/** The harness the receiver hands deliveries to; replace it to simulate a restart or new settings. */
	harness: TriggerHarness;
	credentials: Record<string, ICredentialDataDecryptedObject>;
	logs: LogLine[];
	newHarness(settings?: HarnessSettings): TriggerHarness;
	/** The executions started for one alert, once every execution started so far has finished. */
	executionsOf(alertId: string): Promise<ReceivedExecution[]>;
	close(): Promise<void>;
}

export interface TriggerSetupOptions {
	parameters?: INodeParameters;
	sandbox?: SandboxOptions;
}

/**
 * One setup for the test file or describe block that calls this: started before its first test (and
 * the trigger activated, with `activate`), deactivated and closed after its last. The setup returned
 * is filled in by beforeAll: read it inside tests and hooks.
 */
export function useTriggerSetup(options: TriggerSetupOptions & { activate?: boolean } = {}): TriggerSetup {
	const setup = {} as TriggerSetup;
	beforeAll(async () => {
		await startTriggerSetup(options, setup);
		if (options.activate) await setup.harness.activate();
	});
	afterAll(async () => {
		if (options.activate) await setup.harness?.deactivate();
		await setup.close?.();
	});
	return setup;
}

/**
 * The sandbox Service, an https receiver standing in for n8n's webhook server (its certificate
 * from a CA the sandbox trusts via `trustedCas`), and the real Service Trigger behind it, filled
 * into `setup`.
 */
async function startTriggerSetup(options: TriggerSetupOptions, setup: TriggerSetup): Promise<void> {
	const tls = await receiverTls();
	const sandbox = await startSandbox({ ...options.sandbox, trustedCas: [tls.ca] });
	// The node reaches the sandbox through n8n-core's request helpers: trust its CA, check everything.
	trustCa(sandbox.ca);
	const captured = captureLogs();
	const receiver = await startTriggerReceiver(tls, () => setup.harness);
	const credentials = { serviceApi: serviceApi(sandbox) };
	Object.assign(setup, {
		sandbox,
		receiver,
		receiverCa: tls.ca,
		credentials,
		logs: captured.lines,
		newHarness(next: HarnessSettings = {}) {
			return new TriggerHarness({
				nodeType: new ServiceTrigger(),
				parameters: next.parameters ?? options.parameters,
				credentials: next.credentials ?? credentials,
				publicUrl: next.publicUrl ?? receiver.origin,
			});
		},
		async executionsOf(alertId: string) {
			await receiver.drained();
			return receiver.executions.filter((e) => String(e.items[0]?.json.alert_id) === alertId);
		},
		async close() {
			captured.restore();
			await receiver.close();
			await sandbox.close();
		},
	});
	setup.harness = setup.newHarness();
}

/** Every run of `length` characters of `secret`: none may appear in stored or logged text. */
export function secretWindows(secret: string, length = 8): string[] {
	return Array.from({ length: Math.max(secret.length - length + 1, 0) }, (_, i) => secret.slice(i, i + length));
}

/** What a restart forgets: every secret, key and attempt this process held. */
export function freshProcess(): void {
	heldSecrets.clear();
	resealRetries.clear();
	recentKeys.forgetAll();
	renewalAttempts.clear();
}
