export { runWorkflow, createAdditionalData, initBinaryData } from './runWorkflow';
export type { RunOptions, RunResult, WorkflowDefinition } from './runWorkflow';
export { trustCa } from './tls';
export { nodeTypes, credentialTypes, registerNodeType, PACKAGE } from './nodeTypes';
export { TestCredentialsHelper } from './credentialsHelper';
export { readerWorkflow, READER } from './workflows';
export * from './trigger';
export { deduplicationStore, initDeduplication } from './deduplication';
