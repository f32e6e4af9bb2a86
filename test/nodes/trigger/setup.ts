import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import { ServiceTrigger } from '../../../nodes/ServiceTrigger/ServiceTrigger.node';
import {
	captureLogs,
	receiverTls,
	startTriggerReceiver,
	TriggerHarness,
	trustCa,
	type LogLine,
	type TriggerReceiver,
} from '../../harness';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox';

export interface TriggerSetup {
	sandbox: Sandbox;
	receiver: TriggerReceiver;
	/** CA of the receiver's certificate (the sandbox trusts it through `trustedCas`). */
	receiverCa: string;
	/** The harness the receiver hands deliveries to; replace it to simulate a restart or new settings. */
	harness: TriggerHarness;
	credentials: Record<string, ICredentialDataDecryptedObject>;
	logs: LogLine[];
	newHarness(options?: { parameters?: INodeParameters; credentials?: Record<string, ICredentialDataDecryptedObject>; publicUrl?: string }): TriggerHarness;
	close(): Promise<void>;
}

/**
 * The sandbox Service, an https receiver standing in for n8n's webhook server (its certificate
 * from a CA the sandbox trusts via `trustedCas`), and the real Service Trigger behind it.
 */
export async function startTriggerSetup(
	options: { parameters?: INodeParameters; sandbox?: SandboxOptions } = {},
): Promise<TriggerSetup> {
	const tls = await receiverTls();
	const sandbox = await startSandbox({ ...options.sandbox, trustedCas: [tls.ca] });
	// The node reaches the sandbox through n8n-core's request helpers: trust its CA, check everything.
	trustCa(sandbox.ca);
	const captured = captureLogs();
	const setup = {} as TriggerSetup;
	const receiver = await startTriggerReceiver(tls, () => setup.harness);
	const credentials = { serviceApi: { baseUrl: sandbox.baseUrl, accessToken: sandbox.tokens.reader } };
	Object.assign(setup, {
		sandbox,
		receiver,
		receiverCa: tls.ca,
		credentials,
		logs: captured.lines,
		newHarness(next: { parameters?: INodeParameters; credentials?: Record<string, ICredentialDataDecryptedObject>; publicUrl?: string } = {}) {
			return new TriggerHarness({
				nodeType: new ServiceTrigger(),
				parameters: next.parameters ?? options.parameters,
				credentials: next.credentials ?? credentials,
				publicUrl: next.publicUrl ?? receiver.origin,
			});
		},
		async close() {
			captured.restore();
			await receiver.close();
			await sandbox.close();
		},
	});
	setup.harness = setup.newHarness();
	return setup;
}

/** Every run of `length` characters of `secret`: none may appear in stored or logged text. */
export function secretWindows(secret: string, length = 8): string[] {
	return Array.from({ length: Math.max(secret.length - length + 1, 0) }, (_, i) => secret.slice(i, i + length));
}
