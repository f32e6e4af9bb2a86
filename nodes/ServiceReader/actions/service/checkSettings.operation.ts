import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkedCredential, refusedCredential } from '../../../shared/credentialTest';
import { checkSettings, type Finding } from '../../../shared/settingsCheck';
import { credentialName } from '../../../shared/transport/credentialKind';
import { nodeProbe } from '../../../shared/transport/probe';
import { readServiceSettings } from '../../../shared/transport/settings';

export const description: INodeProperties[] = [];

/** Check Settings (GETs only, within PROBE_LIMITS): one item per finding, `matches` when the credential needs no change for it. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	// Read once: the probes pass it (or a copy with a probe's fields) to n8n as the credential to apply.
	const credentials = await this.getCredentials(credentialName(this), itemIndex);
	// An unusable Base URL or Advanced Settings in the words every operation uses; an empty token in authenticate's.
	const refused = readServiceSettings(credentials).problem ?? (await refusedCredential(credentials));
	if (refused !== undefined) throw new NodeOperationError(this.getNode(), refused, { itemIndex });
	const findings = await checkSettings(nodeProbe(this, credentials), checkedCredential(credentials));
	return findings.map((finding) => ({ json: findingItem(finding) }));
}

export function findingItem(finding: Finding): IDataObject {
	return {
		topic: finding.topic,
		verdict: finding.verdict,
		found: finding.found ?? null,
		current: finding.current ?? null,
		// A Request Names row says which one (its concept), as the dialog's Sent For does.
		settings: finding.settings.map(({ field, label, value, concept }) => ({ field, label, value, ...(concept === undefined ? {} : { concept }) })),
		evidence: finding.evidence,
		matches: finding.verdict !== 'change',
	};
}
