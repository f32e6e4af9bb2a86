/**
 * While the editor listens for a test event, a delivery refused only because of a credential
 * setting (it verifies once that setting is back on its detecting default) is shown in the editor:
 * the Service still gets 401, and the test execution starts with one marked item, which the
 * trigger's execution step turns into an error naming the setting. Production deliveries never are.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Delivery, HeldKeys, KeySource, RefusalReason } from '../verify/verdict';
import { deliveryVerdict } from '../verify/verdict';

const MARK = '__serviceTriggerTestRefusal';

export interface TestRefusal {
	reason: string;
	setting: string;
	detect: string;
}

/** The settings a refusal can come from alone, and the same keys with that setting detecting. */
const SETTINGS: Partial<Record<RefusalReason, { setting: string; detect: string; relax: (keys: HeldKeys) => HeldKeys }>> = {
	unit_seconds: { setting: 'Signature Timestamp Unit', detect: 'Detect (Seconds or Milliseconds)', relax: (keys) => ({ ...keys, timestampUnit: undefined }) },
	unit_milliseconds: { setting: 'Signature Timestamp Unit', detect: 'Detect (Seconds or Milliseconds)', relax: (keys) => ({ ...keys, timestampUnit: undefined }) },
	no_signature: { setting: 'Signature Encoding', detect: 'Detect (Hex or Base64)', relax: (keys) => ({ ...keys, signatureEncoding: 'auto' }) },
};

/**
 * The item to show a refused test delivery in the editor, when the delivery is genuine and only a
 * setting refused it; otherwise undefined (a forgery stays a plain 401).
 */
export async function testRefusalItem(delivery: Delivery, keys: KeySource, reason: RefusalReason, words: string, detail?: string): Promise<IDataObject | undefined> {
	// Verified already under another reading of the secret: genuine, refused by Secret Encoding alone.
	if (reason === 'secret_encoding') return { [MARK]: { reason: words, setting: 'Secret Encoding', detect: `${detail ?? 'Detect'} (or Detect)` } satisfies TestRefusal };
	const fix = SETTINGS[reason];
	if (fix === undefined) return undefined;
	const relaxed: KeySource = {
		remembered: () => undefined,
		read: async (clock) => {
			const read = await keys.read(clock);
			return 'problem' in read ? read : fix.relax(read);
		},
	};
	const verdict = await deliveryVerdict(delivery, relaxed);
	return verdict.ok ? { [MARK]: { reason: words, setting: fix.setting, detect: fix.detect } satisfies TestRefusal } : undefined;
}

/** The refusal a test execution was started to show, if it was. */
export function testRefusalIn(items: INodeExecutionData[]): TestRefusal | undefined {
	const marked = items.length === 1 ? items[0].json[MARK] : undefined;
	if (marked === null || typeof marked !== 'object') return undefined;
	const { reason, setting, detect } = marked as Record<string, unknown>;
	return typeof reason === 'string' && typeof setting === 'string' && typeof detect === 'string' ? { reason, setting, detect } : undefined;
}
