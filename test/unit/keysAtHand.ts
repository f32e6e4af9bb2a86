import type { TimestampUnitSetting } from '../../nodes/ServiceTrigger/verify/signatureHeader';
import type { KeySource, SignatureEncoding } from '../../nodes/ServiceTrigger/verify/verdict';

/**
 * A KeySource holding `keys` as the trigger holds keys it unsealed from its stored endpoints a moment
 * ago: the verdict settles on them and never asks for a credential read.
 */
export function keysAtHand(keys: Buffer[], signatureEncoding: SignatureEncoding, timestampUnit?: TimestampUnitSetting): KeySource {
	const held = { keys, signatureEncoding, timestampUnit, source: 'stored' as const };
	return { remembered: () => held, read: async () => held };
}
