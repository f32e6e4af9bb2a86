export { runWorkflow, createAdditionalData, initBinaryData } from './runWorkflow';
export type { RunOptions, RunResult, WorkflowDefinition } from './runWorkflow';
export { trustCa } from '../tls/trust';
export { nodeTypes, credentialTypes, registerNodeType, PACKAGE } from './nodeTypes';
export { TestCredentialsHelper } from './credentialsHelper';
export { readerWorkflow, READER } from './workflows';
export { listSearch, type ListSearchOptions } from './listSearch';
export { TriggerHarness, type TriggerHarnessOptions, type WebhookKind } from './triggerHarness';
export type { WebhookRequest, WebhookResponse } from './expressAdapters';
export {
	postDelivery,
	receiverTls,
	startTriggerReceiver,
	type Outage,
	type ReceivedExecution,
	type ReceiverAnswer,
	type TriggerReceiver,
} from './triggerReceiver';
export { captureLogs, type LogLine } from './logCapture';
export { deduplicationStore, initDeduplication } from './deduplication';
export { PollHarness, type PollHarnessOptions, type PollOutcome } from './pollHarness';
